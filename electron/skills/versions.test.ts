// Skill history (migration 0008): versions kept on every change, diff, restore, fork — through the
// store, the migration from 7 to 8 with data, and the CLI as a user runs it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Result } from '../contract/channels.js';
import { openDatabase } from '../store/index.js';
import {
  consistencyCheckerExample,
  quietLogger,
  runCli,
  tempDir,
  testHost,
  VALID_STATE_BLOB,
} from '../test-support/index.js';
import { invokeChannel } from '../transport/dispatch.js';

const pkg = (version: string, line: string, extra: Record<string, unknown> = {}) => ({
  name: 'Greeter',
  description: 'Greets people.',
  version,
  source: 'user',
  artifacts: [{ kind: 'prompt_template', name: 'Greet', content: `Hello {{ who }}!\n${line}\n` }],
  ...extra,
});

function cli(home: string, ws?: string) {
  return (...args: string[]) => runCli(['--home', home, ...(ws ? ['--workspace', ws] : []), ...args]);
}

describe('migration 0008_skill_versions', () => {
  it('adds the history table to a store that has skills, leaving them as they were', () => {
    const file = join(tempDir(), 'agents.db');
    const before = openDatabase(file, { targetVersion: 7 });
    const skills = before.prepare('SELECT count(*) AS n FROM skills').get() as { n: number };
    before.close();
    const db = openDatabase(file, { targetVersion: 8 });
    expect((db.prepare('SELECT count(*) AS n FROM skills').get() as { n: number }).n).toBe(skills.n);
    expect(db.prepare('SELECT count(*) AS n FROM skill_versions').get()).toEqual({ n: 0 });
    expect(() =>
      db
        .prepare(
          "INSERT INTO skill_versions (name_key, name, version, package, content_hash, origin, created_at) VALUES ('a','a','1','{}','h','nonsense','t')",
        )
        .run(),
    ).toThrow(/CHECK/);
    db.close();
  });
});

describe('skill versions through the CLI', () => {
  it('keeps the replaced version on update, diffs line by line, restores as a new change, and survives a delete', async () => {
    const dir = tempDir();
    const run = cli(join(dir, 'home'));
    writeFileSync(join(dir, 'v1.json'), JSON.stringify(pkg('1.0.0', 'Have a nice day.')));
    writeFileSync(
      join(dir, 'v2.json'),
      JSON.stringify(pkg('1.1.0', 'Have a great day.', { tags: ['greeting'] })),
    );
    expect((await run('skills', 'import', join(dir, 'v1.json'))).code).toBe(0);
    expect((await run('skills', 'import', join(dir, 'v2.json'))).code).toBe(0);

    const v = (await run('--json', 'skills', 'versions', 'greeter')).json();
    expect(v.current.version).toBe('1.1.0');
    expect(v.versions).toMatchObject([{ number: 1, version: '1.0.0', origin: 'import' }]);

    const d = (await run('--json', 'skills', 'diff', 'Greeter', '1')).json();
    expect(d.fields).toEqual(
      expect.arrayContaining([
        { field: 'version', from: '1.0.0', to: '1.1.0' },
        { field: 'tags', from: null, to: ['greeting'] },
      ]),
    );
    expect(d.artifacts[0]).toMatchObject({ name: 'Greet', change: 'changed' });
    expect(d.artifacts[0].patch).toContain('-Have a nice day.');
    expect(d.artifacts[0].patch).toContain('+Have a great day.');

    const r = await run('--json', 'skills', 'restore', 'Greeter', '1.0.0');
    expect(r.json().restored).toMatchObject({ version: '1.0.0', from_number: 1 });
    const shown = (await run('--json', 'skills', 'show', 'Greeter')).json();
    expect(shown.skill.artifacts[0].content).toContain('nice day');
    expect(
      (await run('--json', 'skills', 'versions', 'Greeter'))
        .json()
        .versions.map((x: { origin: string }) => x.origin),
    ).toEqual(['import', 'restore']);

    expect((await run('skills', 'delete', 'Greeter', '--scope', 'account')).code).toBe(0);
    const after = (await run('--json', 'skills', 'versions', 'Greeter')).json();
    expect(after.current).toBeNull();
    expect(after.versions.at(-1).origin).toBe('delete');
    expect((await run('skills', 'restore', 'Greeter', String(after.versions.length))).code).toBe(0);
    expect((await run('--json', 'skills', 'show', 'Greeter')).json().skill.version).toBe('1.0.0');

    const missing = await run('skills', 'restore', 'Greeter', '99');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no version 99/);
  }, 60_000);

  it('forks an account skill into the workspace, where it overrides the account one', async () => {
    const dir = tempDir();
    const ws = join(dir, 'ws');
    mkdirSync(ws);
    const run = cli(join(dir, 'home'), ws);
    writeFileSync(join(dir, 'v1.json'), JSON.stringify(pkg('1.0.0', 'Hi.')));
    expect((await run('skills', 'import', '--scope', 'account', join(dir, 'v1.json'))).code).toBe(0);
    const f = await run('--json', 'skills', 'fork', 'Greeter', '--to', 'workspace');
    expect(f.json().forked).toEqual({
      name: 'Greeter',
      scope: 'workspace',
      version: '1.0.0',
      from_scope: 'account',
    });
    const list = (await run('--json', 'skills', 'list'))
      .json()
      .skills.filter((s: { name: string }) => s.name === 'Greeter');
    expect(list).toMatchObject([
      { scope: 'workspace', overridden: false, overrides: 'account' },
      { scope: 'account', overridden: true },
    ]);
    const again = await run('skills', 'fork', 'Greeter', '--to', 'workspace');
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already/);
  }, 60_000);

  it('validate: exit 0 for a valid package, 2 with the JSON path or the template line and column', async () => {
    const dir = tempDir();
    const run = cli(join(dir, 'home'));
    writeFileSync(join(dir, 'ok.json'), JSON.stringify(pkg('1.0.0', 'Hi.')));
    writeFileSync(
      join(dir, 'schema.json'),
      JSON.stringify({ ...pkg('1.0.0', 'Hi.'), artifacts: [{ kind: 'nope' }] }),
    );
    writeFileSync(
      join(dir, 'syntax.json'),
      JSON.stringify({
        ...pkg('1.0.0', ''),
        artifacts: [{ kind: 'prompt_template', name: 'T', content: 'a\n{% if x %}' }],
      }),
    );
    const ok = await run('--json', 'skills', 'validate', join(dir, 'ok.json'));
    expect(ok.code).toBe(0);
    expect(ok.json().templates).toEqual([{ artifact: 'Greet', ok: true, variables: ['who'] }]);
    const schema = await run('--json', 'skills', 'validate', join(dir, 'schema.json'));
    expect(schema.code).toBe(2);
    expect(schema.json().issues[0].path).toMatch(/^artifacts\[0\]/);
    const syntax = await run('--json', 'skills', 'validate', join(dir, 'syntax.json'));
    expect(syntax.code).toBe(2);
    expect(syntax.json().templates[0]).toMatchObject({ artifact: 'T', ok: false, line: 2 });
  }, 60_000);
});

describe('skills/save-package (the Composer save)', () => {
  it('creates, keeps the replaced version on update, refuses a stale expected_hash, and leaves identical content alone', async () => {
    const host = testHost({ home: tempDir() });
    const call = async <T>(channel: string, req: unknown) => {
      const r = (await invokeChannel(
        host.handlers,
        channel,
        req,
        { transport: 'in-process' },
        quietLogger,
      )) as Result<T>;
      return r;
    };
    type Saved = { saved: { action: string; content_hash: string; version: string } };
    const created = await call<Saved>('skills/save-package', {
      package: pkg('1.0.0', 'A.'),
      scope: 'account',
    });
    expect(created.ok && created.value.saved.action).toBe('created');
    const h1 = created.ok ? created.value.saved.content_hash : '';
    const same = await call<Saved>('skills/save-package', {
      package: pkg('1.0.0', 'A.'),
      scope: 'account',
      expected_hash: h1,
    });
    expect(same.ok && same.value.saved.action).toBe('unchanged');
    const updated = await call<Saved>('skills/save-package', {
      package: pkg('1.0.1', 'B.'),
      scope: 'account',
      expected_hash: h1,
    });
    expect(updated.ok && updated.value.saved.action).toBe('updated');
    const stale = await call<Saved>('skills/save-package', {
      package: pkg('1.0.2', 'C.'),
      scope: 'account',
      expected_hash: h1,
    });
    expect(stale.ok).toBe(false);
    expect(!stale.ok && stale.error.code).toBe('CONFLICT');
    const versions = await call<{ versions: Array<{ origin: string; version: string }> }>('skills/versions', {
      name: 'Greeter',
    });
    expect(versions.ok && versions.value.versions).toEqual([
      expect.objectContaining({ origin: 'save', version: '1.0.0' }),
    ]);
    const bad = await call<Saved>('skills/save-package', {
      package: { ...pkg('2', 'x'), artifacts: 'no' },
      scope: 'account',
    });
    expect(!bad.ok && bad.error.code).toBe('INVALID_INPUT');
  });

  it("keeps a DSPy module's compiled state the editor never sees, until its program changes", async () => {
    const host = testHost({ home: tempDir() });
    const ctx = { transport: 'in-process' as const };
    const optimised = consistencyCheckerExample();
    const arts = optimised.artifacts as Array<Record<string, unknown>>;
    arts[3]!.state_blob = VALID_STATE_BLOB;
    await host.handlers['skills/save-package']({ package: optimised, scope: 'account' }, ctx);
    const blobBytes = async () => {
      const { skill } = await host.handlers['skills/get']({ name: 'Consistency Checker' }, ctx);
      return skill.artifacts.find((a) => a.kind === 'dspy_module')!.state_blob_bytes;
    };
    const stored = await blobBytes();
    expect(stored).toBeGreaterThan(0);
    // As the Composer saves it: the form's fields, no state, a changed description.
    const edited = consistencyCheckerExample();
    delete (edited.artifacts as Array<Record<string, unknown>>)[3]!.state_blob;
    edited.description = 'Finds contradictions across workspace pages.';
    const r = await host.handlers['skills/save-package']({ package: edited, scope: 'account' }, ctx);
    expect(r.saved!.action).toBe('updated');
    expect(await blobBytes()).toBe(stored);
    // A changed program: its old demos may not fit, so they go.
    const reprogrammed = consistencyCheckerExample();
    const dspy = (reprogrammed.artifacts as Array<Record<string, unknown>>)[3]!;
    delete dspy.state_blob;
    dspy.content = `${String(dspy.content)}\n`;
    await host.handlers['skills/save-package']({ package: reprogrammed, scope: 'account' }, ctx);
    expect(await blobBytes()).toBeNull();
  });

  it('raises the patch version of changed content saved under the same version; a version the user set stays', async () => {
    const host = testHost({ home: tempDir() });
    const ctx = { transport: 'in-process' as const };
    const save = (p: Record<string, unknown>) =>
      host.handlers['skills/save-package']({ package: p, scope: 'account' }, ctx);
    await save(pkg('1.0.0', 'A.'));
    const b = await save(pkg('1.0.0', 'B.'));
    expect(b.saved).toMatchObject({ action: 'updated', version: '1.0.1' });
    const c = await save(pkg('1.0.1', 'C.'));
    expect(c.saved!.version).toBe('1.0.2');
    // Same content under the old version: nothing to save, nothing raised.
    const same = await save(pkg('1.0.2', 'C.'));
    expect(same.saved).toMatchObject({ action: 'unchanged', version: '1.0.2' });
    const mine = await save(pkg('2.0.0', 'D.'));
    expect(mine.saved!.version).toBe('2.0.0');
    const v = await host.handlers['skills/versions']({ name: 'Greeter' }, ctx);
    // History tells the versions apart.
    expect(v.current?.version).toBe('2.0.0');
    expect(v.versions.map((x) => x.version)).toEqual(['1.0.0', '1.0.1', '1.0.2']);
  });
});
