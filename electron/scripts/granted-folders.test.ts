// Folders the user grants: refused where dangerous, stored with the chat (migrated, removed with
// it, not exported), and in the real OS sandbox a granted folder is there read-only for the chat's
// run_script, a revoked one is gone, and over `mcp serve --folder` a file outside is refused.
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventPayload, Result } from '../contract/channels.js';
import { createHost, type Host } from '../host.js';
import { type LoopbackScriptInput, startLoopbackProvider } from '../llm/index.js';
import { openDatabase } from '../store/index.js';
import { PROJECT_ROOT, quietLogger, runCli, skipWithout, tempDir } from '../test-support/index.js';
import { nativePythonOrNull, seedNativeEnv } from '../test-support/native-env.js';
import { invokeChannel } from '../transport/dispatch.js';
import {
  addGrant,
  chatFolderGrants,
  checkGrantableFolder,
  fileInGrantedFolder,
  setChatFolderGrants,
} from './granted-folders.js';
import {
  acceptNativeRuntime,
  NATIVE_REPORT_DIR,
  nativeSandboxSupport,
  pythonPrefixes,
  runNativeSandboxed,
} from './index.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('checkGrantableFolder', () => {
  const home = tempDir();
  it('grants a plain folder by its real path and name', () => {
    const dir = join(tempDir(), 'reports');
    mkdirSync(dir);
    const link = join(tempDir(), 'alias');
    symlinkSync(dir, link);
    expect(checkGrantableFolder(link, { home })).toEqual({ name: 'reports', path: dir });
  });

  it('refuses the root, the home folder, SkillDesk’s data folder (inside or holding it) and /proc, /sys, /dev', () => {
    const userHome = tempDir();
    const data = join(userHome, '.config', 'skilldesk');
    mkdirSync(join(data, 'native'), { recursive: true });
    const refusals: Array<[string, RegExp]> = [
      ['/', /root of the file system/],
      [userHome, /your whole home folder/],
      [data, /inside SkillDesk's own data folder/],
      [join(data, 'native'), /inside SkillDesk's own data folder/],
      [join(userHome, '.config'), /holds SkillDesk's own data folder/],
      ['/proc', /\/proc is the kernel's/],
      ['/proc/self', /\/proc is the kernel's/],
      ['/sys', /\/sys is the kernel's/],
      ['/dev', /\/dev is the kernel's/],
    ];
    for (const [path, why] of refusals)
      expect(() => checkGrantableFolder(path, { home: data, userHome }), path).toThrow(why);
    expect(() => checkGrantableFolder(homedir(), { home: data })).toThrow(/whole home folder/);
    expect(() => checkGrantableFolder('relative/dir', { home })).toThrow(/full path/);
    expect(() => checkGrantableFolder(join(tempDir(), 'nope'), { home })).toThrow(/no such folder/);
    const file = join(tempDir(), 'f.txt');
    writeFileSync(file, 'x');
    expect(() => checkGrantableFolder(file, { home })).toThrow(/not a folder/);
  });

  it('one name per grant; files are taken by path only inside a granted folder, links resolved', () => {
    const a = join(tempDir(), 'data');
    const b = join(tempDir(), 'data');
    mkdirSync(a);
    mkdirSync(b);
    writeFileSync(join(a, 'in.csv'), 'x');
    const outside = join(tempDir(), 'secret.txt');
    writeFileSync(outside, 's');
    symlinkSync(outside, join(a, 'leak.txt'));
    const list = addGrant([], { name: 'data', path: a });
    expect(addGrant(list, { name: 'data', path: a })).toEqual(list);
    expect(() => addGrant(list, { name: 'data', path: b })).toThrow(/both named data/);
    expect(fileInGrantedFolder(join(a, 'in.csv'), list)).toBe(join(a, 'in.csv'));
    expect(() => fileInGrantedFolder(outside, list)).toThrow(/outside the folders granted/);
    expect(() => fileInGrantedFolder(join(a, 'leak.txt'), list)).toThrow(/outside the folders granted/);
    expect(() => fileInGrantedFolder(join(a, '..', 'x'), list)).toThrow(/outside the folders granted/);
    expect(() => fileInGrantedFolder(outside, [])).toThrow(/no folder is granted/);
  });

  it('migration 0024 gives every chat an empty, checked list of grants', () => {
    const file = join(tempDir(), 'agents.db');
    const before = openDatabase(file, { targetVersion: 23 });
    before
      .prepare("INSERT INTO chat_sessions (id, title, created_at, updated_at) VALUES ('c1', 't', 'x', 'x')")
      .run();
    before.close();
    const db = openDatabase(file, { targetVersion: 24 });
    expect(chatFolderGrants(db, 'c1')).toEqual([]);
    expect(setChatFolderGrants(db, 'c1', [{ name: 'd', path: '/srv/d' }])).toBe(true);
    expect(chatFolderGrants(db, 'c1')).toEqual([{ name: 'd', path: '/srv/d' }]);
    expect(setChatFolderGrants(db, 'nope', [])).toBe(false);
    expect(() => db.prepare("UPDATE chat_sessions SET folder_grants = '{}' WHERE id = 'c1'").run()).toThrow(
      /CHECK/,
    );
    db.close();
  });
});

function open(home: string) {
  const host: Host = createHost({ home, env: {}, mode: 'test', logger: quietLogger });
  cleanups.push(() => host.dispose());
  const call = async <T = Record<string, unknown>>(
    channel: string,
    req: unknown,
    transport: 'in-process' | 'ws' = 'in-process',
  ): Promise<Result<T>> =>
    (await invokeChannel(host.handlers, channel, req, { transport }, quietLogger)) as Result<T>;
  const ok = async <T = Record<string, unknown>>(channel: string, req: unknown): Promise<T> => {
    const r = await call<T>(channel, req);
    if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
    return r.value;
  };
  const turn = async (session_id: string | undefined, message: string) => {
    const done = new Promise<EventPayload<'chat/turn-finished'>>((resolve) => {
      const off = host.events.subscribe('chat/turn-finished', (p) => {
        off();
        resolve(p);
      });
    });
    const sent = await ok<{ session_id: string }>('chat/send-message', {
      message,
      ...(session_id ? { session_id } : {}),
    });
    await done;
    return sent.session_id;
  };
  return { host, ok, call, turn };
}

function lastToolResult(body: unknown): Record<string, unknown> {
  const messages = (body as { messages: Array<{ role: string; content: unknown }> }).messages;
  const m = messages.filter((x) => x.role === 'tool').at(-1)!;
  return JSON.parse(typeof m.content === 'string' ? m.content : JSON.stringify(m.content));
}

/** A skill whose script reports what it sees under inputs/ and whether it could write there. */
function probeSkill(): string {
  const skill = join(tempDir(), 'folder-probe');
  mkdirSync(join(skill, 'scripts'), { recursive: true });
  writeFileSync(
    join(skill, 'SKILL.md'),
    '---\nname: folder-probe\ndescription: Says what it sees under inputs.\n---\nRun scripts/probe.py.\n',
  );
  writeFileSync(
    join(skill, 'scripts', 'probe.py'),
    [
      'import json, os',
      'tree = sorted(os.path.join(d, n) for d, _, ns in os.walk("inputs") for n in ns)',
      'seen = {p: open(p).read() for p in tree}',
      'try:',
      '    open("inputs/data/a.csv", "a").write("x")',
      '    wrote = "yes"',
      'except OSError as e:',
      '    wrote = e.strerror',
      'print(json.dumps({"tree": tree, "seen": seen, "wrote": wrote}))',
    ].join('\n'),
  );
  return skill;
}

function dataFolder(): string {
  const data = join(tempDir(), 'data');
  mkdirSync(join(data, 'sub'), { recursive: true });
  writeFileSync(join(data, 'a.csv'), 'x,y\n');
  writeFileSync(join(data, 'sub', 'b.txt'), 'b');
  return data;
}

const nativePython = nativePythonOrNull();
const sandbox = nativeSandboxSupport();
const nativeMissing = !sandbox.ok ? sandbox.reason : !nativePython ? 'no Python 3.11+' : null;

describe.skipIf(skipWithout(nativeMissing, 'granted folders in the OS sandbox'))(
  'granted folders in the OS sandbox',
  () => {
    it('a chat’s granted folder is read-only under inputs/<name>/ for run_script; revoked, it is gone; export leaves it out', async () => {
      const home = tempDir();
      const rsArgs = { name: 'folder-probe', script: 'scripts/probe.py' };
      const script: LoopbackScriptInput = [
        { text: 'Hello.' },
        { tool_calls: [{ name: 'run_script', arguments: rsArgs }] },
        { text: 'Saw it.', expect: { tool_result_contains: 'inputs/data/a.csv' } },
        { tool_calls: [{ name: 'run_script', arguments: rsArgs }] },
        { text: 'Gone.' },
      ];
      const provider = await startLoopbackProvider({ script });
      cleanups.push(() => provider.close());
      expect((await runCli(['--home', home, 'skills', 'import', probeSkill()])).code).toBe(0);
      seedNativeEnv(home, 'folder-probe', nativePython!);
      acceptNativeRuntime(home, 'folder-probe', ['lxml']);
      const app = open(home);
      await app.ok('settings/set-provider', { provider: 'openai', base_url: provider.url });
      await app.ok('settings/set-key', { provider: 'openai', key: 'sk-test' });
      const sid = await app.turn(undefined, 'hi');

      const data = dataFolder();
      // Refused where dangerous, through the same channel the window uses.
      for (const bad of ['/', '/proc', homedir(), home]) {
        const r = await app.call('chat/grant-folder', { session_id: sid, path: bad }, 'ws');
        expect(r.ok, bad).toBe(false);
      }
      const granted = await app.ok<{ folders: unknown[] }>('chat/grant-folder', {
        session_id: sid,
        path: data,
      });
      expect(granted.folders).toEqual([{ name: 'data', path: data }]);
      expect((await app.ok('chat/list-folders', { session_id: sid })).folders).toEqual(granted.folders);

      await app.turn(sid, 'probe');
      const seen = lastToolResult(provider.requests[2]!.body);
      expect(seen.exit_code).toBe(0);
      const out = JSON.parse(seen.stdout as string);
      expect(out.tree).toEqual(['inputs/data/a.csv', 'inputs/data/sub/b.txt']);
      expect(out.seen['inputs/data/a.csv']).toBe('x,y\n');
      expect(out.wrote).toBe('Read-only file system');

      const md = await app.ok<{ content: string }>('chat/export-session', { session_id: sid, format: 'md' });
      expect(md.content).toMatch(/folder of this computer granted \(data\)\. Grants are not exported/);
      expect(md.content).not.toContain(data);
      const json = await app.ok<{ content: string }>('chat/export-session', {
        session_id: sid,
        format: 'json',
      });
      expect(JSON.parse(json.content).granted_folders_not_exported.names).toEqual(['data']);
      expect(json.content).not.toContain(data);

      expect((await app.ok('chat/revoke-folder', { session_id: sid, name: 'data' })).folders).toEqual([]);
      await app.turn(sid, 'probe again');
      const after = JSON.parse(lastToolResult(provider.requests[4]!.body).stdout as string);
      expect(after.tree).toEqual([]);
      expect(after.wrote).toMatch(/No such file or directory/);

      // Granted again, then the chat deleted: its grants go with it.
      await app.ok('chat/grant-folder', { session_id: sid, path: data });
      await app.ok('chat/delete-session', { session_id: sid });
      expect((await app.call('chat/list-folders', { session_id: sid })).ok).toBe(false);
    }, 180_000);

    it('Full Python’s working-folder runs see a granted folder read-only inside their writable folder', async () => {
      const data = dataFolder();
      const root = tempDir();
      const [cwd, code, report] = ['work', 'code', 'report'].map((d) => join(root, d));
      for (const d of [cwd!, code!, report!]) mkdirSync(d);
      writeFileSync(
        join(code!, 'main.py'),
        [
          'import json, os',
          'seen = open("inputs/data/a.csv").read()',
          'try:',
          '    open("inputs/data/new.txt", "w").write("x")',
          '    wrote = "yes"',
          'except OSError as e:',
          '    wrote = e.strerror',
          'open("result.txt", "w").write("kept")',
          `json.dump({"seen": seen, "wrote": wrote}, open("${NATIVE_REPORT_DIR}/r.json", "w"))`,
        ].join('\n'),
      );
      const python = nativePython!.executable;
      const r = await runNativeSandboxed({
        python,
        pythonPaths: pythonPrefixes(python),
        skillDir: code!,
        script: 'main.py',
        outDir: report!,
        workDir: cwd!,
        inputs: [{ name: 'data', path: data }],
        limits: { timeout_ms: 60_000 },
      });
      expect(r.stderr).toBe('');
      expect(r.exit_code).toBe(0);
      expect(JSON.parse(readFileSync(join(report!, 'r.json'), 'utf8'))).toEqual({
        seen: 'x,y\n',
        wrote: 'Read-only file system',
      });
      // The run wrote its own file; the granted folder is as it was, and only an empty mount point
      // was left in the throwaway working folder.
      expect(readFileSync(join(cwd!, 'result.txt'), 'utf8')).toBe('kept');
      expect(existsSync(join(data, 'new.txt'))).toBe(false);
      expect(readdirSync(join(cwd!, 'inputs', 'data'))).toEqual([]);
    }, 120_000);

    it('mcp serve --folder: run_script sees the folder read-only and files inside it by path; outside is refused', async () => {
      const home = tempDir();
      expect((await runCli(['--home', home, 'skills', 'import', probeSkill()])).code).toBe(0);
      seedNativeEnv(home, 'folder-probe', nativePython!);
      acceptNativeRuntime(home, 'folder-probe', ['lxml']);
      const data = dataFolder();
      const outside = join(tempDir(), 'secret.txt');
      writeFileSync(outside, 'secret');
      const refused = await runCli(['--home', home, 'mcp', 'serve', '--folder', '/proc']);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/--folder \/proc: .*kernel's/);

      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [join(PROJECT_ROOT, 'bin', 'skilldesk.mjs'), '--home', home, 'mcp', 'serve', '--folder', data],
        env: { PATH: process.env.PATH ?? '' },
        stderr: 'pipe',
      });
      const client = new Client({ name: 'skilldesk-test', version: '1.0.0' });
      cleanups.push(() => client.close());
      await client.connect(transport);
      type ToolResult = { content: Array<{ text?: string }>; isError?: boolean };
      const r = (await client.callTool({
        name: 'run_script',
        arguments: {
          name: 'folder-probe',
          script: 'scripts/probe.py',
          files: [{ path: join(data, 'sub', 'b.txt'), name: 'b-copy.txt' }],
        },
      })) as ToolResult;
      expect(r.isError).toBe(false);
      const result = JSON.parse(r.content[0]!.text!);
      const out = JSON.parse(result.stdout);
      expect(out.tree).toEqual(['inputs/b-copy.txt', 'inputs/data/a.csv', 'inputs/data/sub/b.txt']);
      expect(out.wrote).toBe('Read-only file system');

      const bad = (await client.callTool({
        name: 'run_script',
        arguments: { name: 'folder-probe', script: 'scripts/probe.py', files: [{ path: outside }] },
      })) as ToolResult;
      expect(bad.isError).toBe(true);
      expect(bad.content[0]!.text).toMatch(
        /secret\.txt is outside the folders granted to this server or chat/,
      );
      expect(bad.content[0]!.text).not.toContain('"stdout"');
    }, 180_000);
  },
);
