// run_python's runtime by level (chat over workspace over Settings over Pyodide), migration 0019
// (a chat's own runtime, checked by the database), and the host's python/* channels with a
// workspace open; the lock's closure gives a top-level package exactly the wheels it needs.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Result } from '../contract/channels.js';
import { createHost } from '../host.js';
import { openDatabase } from '../store/db.js';
import { quietLogger, tempDir } from '../test-support/index.js';
import { invokeChannel } from '../transport/dispatch.js';
import { FULL_PYTHON_LOCK, lockClosure } from './index.js';
import {
  chatHosts,
  chatRuntime,
  effectiveRuntime,
  runtimePreference,
  setChatHosts,
  setChatRuntime,
  setRuntimePreference,
} from './python-runtime-choice.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('run_python runtime levels', () => {
  it('migration 0019 adds a checked python_runtime to chats; preferences per store', () => {
    const file = join(tempDir(), 'agents.db');
    const before = openDatabase(file, { targetVersion: 18 });
    before
      .prepare("INSERT INTO chat_sessions (id, title, created_at, updated_at) VALUES ('c1', 't', 'x', 'x')")
      .run();
    before.close();
    const db = openDatabase(file, { targetVersion: 19 });
    expect(chatRuntime(db, 'c1')).toBeNull();
    expect(setChatRuntime(db, 'c1', 'full')).toBe(true);
    expect(chatRuntime(db, 'c1')).toBe('full');
    expect(setChatRuntime(db, 'nope', 'full')).toBe(false);
    expect(() =>
      db.prepare("UPDATE chat_sessions SET python_runtime = 'cpython' WHERE id = 'c1'").run(),
    ).toThrow(/CHECK/);
    expect(runtimePreference(db)).toBeNull();
    setRuntimePreference(db, 'full');
    expect(runtimePreference(db)).toBe('full');
    setRuntimePreference(db, null);
    expect(runtimePreference(db)).toBeNull();
    db.close();
    expect(effectiveRuntime({ chat: null, workspace: null, settings: null })).toEqual({
      runtime: 'pyodide',
      from: 'default',
    });
    expect(effectiveRuntime({ chat: null, workspace: 'pyodide', settings: 'full' })).toEqual({
      runtime: 'pyodide',
      from: 'workspace',
    });
    expect(effectiveRuntime({ chat: 'full', workspace: 'pyodide', settings: 'pyodide' }).from).toBe('chat');
  });

  it('migration 0021 gives every chat an empty, checked list of granted hosts', () => {
    const file = join(tempDir(), 'agents.db');
    const before = openDatabase(file, { targetVersion: 20 });
    before
      .prepare(
        "INSERT INTO chat_sessions (id, title, created_at, updated_at, python_runtime) VALUES ('c1', 't', 'x', 'x', 'full')",
      )
      .run();
    before.close();
    const db = openDatabase(file, { targetVersion: 21 });
    expect(chatHosts(db, 'c1')).toEqual([]);
    expect(chatRuntime(db, 'c1')).toBe('full');
    expect(setChatHosts(db, 'c1', ['b.example', 'a.example:8443', 'b.example'])).toBe(true);
    expect(chatHosts(db, 'c1')).toEqual(['a.example:8443', 'b.example']);
    expect(setChatHosts(db, 'nope', ['a.example'])).toBe(false);
    expect(chatHosts(db, 'nope')).toEqual([]);
    for (const value of ['not json', '{"a":1}'])
      expect(() =>
        db.prepare("UPDATE chat_sessions SET python_hosts = ? WHERE id = 'c1'").run(value),
      ).toThrow(/CHECK/);
    db.close();
  });

  it('python/* channels: Settings, then the workspace over it; the chat level needs a chat that exists', async () => {
    const home = tempDir();
    const workspace = tempDir();
    const host = createHost({ home, workspace, env: {}, mode: 'test', logger: quietLogger });
    cleanups.push(() => host.dispose());
    const call = async <T>(channel: string, req: unknown) =>
      (await invokeChannel(
        host.handlers,
        channel,
        req,
        { transport: 'in-process' },
        quietLogger,
      )) as Result<T>;
    const ok = async <T = Record<string, unknown>>(channel: string, req: unknown): Promise<T> => {
      const r = await call<T>(channel, req);
      if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
      return r.value;
    };
    expect(await ok('python/get-runtime', {})).toMatchObject({ runtime: 'pyodide', from: 'default' });
    expect(await ok('python/set-runtime', { level: 'settings', runtime: 'full' })).toMatchObject({
      runtime: 'full',
      from: 'settings',
      settings: 'full',
    });
    expect(await ok('python/set-runtime', { level: 'workspace', runtime: 'pyodide' })).toMatchObject({
      runtime: 'pyodide',
      from: 'workspace',
    });
    const bad = await call('python/set-runtime', { level: 'chat', runtime: 'full' });
    expect(bad.ok).toBe(false);
    const missing = await call('python/get-runtime', { session_id: 'no-such-chat' });
    expect(!missing.ok && missing.error.code).toBe('NOT_FOUND');
    const view = await ok<{ full: { packages: string[]; wheels: string[]; installed: boolean } }>(
      'python/get-runtime',
      {},
    );
    expect(view.full.packages).toEqual(FULL_PYTHON_LOCK.packages);
    expect(view.full.wheels).toContain('pandas==3.1.1');
    expect(view.full.installed).toBe(false);
  });

  it('the lock: every wheel pinned and hashed; a closure holds exactly what a package needs', () => {
    for (const w of FULL_PYTHON_LOCK.wheels) {
      expect(w.filename).toMatch(/-(cp311-cp311-manylinux|py3-none-any|py2\.py3-none-any)/);
      expect(w.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(lockClosure(FULL_PYTHON_LOCK, ['pandas']).map((w) => w.name)).toEqual([
      'numpy',
      'pandas',
      'python-dateutil',
      'tzdata',
    ]);
    expect(lockClosure(FULL_PYTHON_LOCK).length).toBe(FULL_PYTHON_LOCK.wheels.length);
    expect(() => lockClosure(FULL_PYTHON_LOCK, ['requests'])).toThrow(/not in Full Python's lock/);
  });
});
