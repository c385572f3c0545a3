import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, smallPackage, snapshotDir, tempDir } from '../test-support/index.js';

function write(dir: string, file: string, value: unknown): string {
  const path = join(dir, file);
  writeFileSync(path, JSON.stringify(value));
  return path;
}

describe('skilldesk skills: names compare by NFKC and case folding', () => {
  it('shows, exports and deletes the workspace ÉTUDE that the list shows overriding the account étude', async () => {
    const home = tempDir();
    const ws = tempDir();
    const dir = tempDir();
    const account = write(
      dir,
      'account.json',
      smallPackage('étude', '1.0.0', { description: 'account copy' }),
    );
    const workspace = write(
      dir,
      'ws.json',
      smallPackage('ÉTUDE', '2.0.0', { description: 'workspace copy' }),
    );
    expect((await runCli(['--home', home, 'skills', 'import', account])).code).toBe(0);
    const g = ['--home', home, '--workspace', ws];
    expect((await runCli([...g, 'skills', 'import', workspace])).code).toBe(0);

    const list = (await runCli([...g, '--json', 'skills', 'list'])).json().skills as Array<
      Record<string, unknown>
    >;
    expect(list.filter((s) => s.name === 'ÉTUDE' || s.name === 'étude')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'ÉTUDE', scope: 'workspace', overrides: 'account' }),
        expect.objectContaining({
          name: 'étude',
          scope: 'account',
          overridden: true,
          overridden_by: 'workspace',
        }),
      ]),
    );

    for (const spelling of ['étude', 'Étude', 'ÉTUDE']) {
      const show = await runCli([...g, '--json', 'skills', 'show', spelling]);
      expect(show.code).toBe(0);
      expect(show.json().skill).toMatchObject({
        name: 'ÉTUDE',
        scope: 'workspace',
        description: 'workspace copy',
      });
    }
    const exp = await runCli([...g, 'skills', 'export', 'étude']);
    expect(JSON.parse(exp.stdout)).toMatchObject({ name: 'ÉTUDE', version: '2.0.0' });

    const del = await runCli([...g, '--json', 'skills', 'delete', 'étude', '--scope', 'workspace']);
    expect(del.code).toBe(0);
    expect(del.json().deleted).toMatchObject({ name: 'ÉTUDE', scope: 'workspace' });
    const after = await runCli([...g, '--json', 'skills', 'show', 'ÉTUDE']);
    expect(after.json().skill).toMatchObject({ name: 'étude', scope: 'account' });
  });

  it('treats straße and STRASSE as one skill when importing', async () => {
    const home = tempDir();
    const dir = tempDir();
    await runCli(['--home', home, 'skills', 'import', write(dir, 'a.json', smallPackage('straße'))]);
    const again = await runCli([
      '--home',
      home,
      '--json',
      'skills',
      'import',
      write(dir, 'b.json', smallPackage('STRASSE', '1.1.0')),
    ]);
    expect(again.json().imported[0]).toMatchObject({ action: 'updated', previous_version: '1.0.0' });
    const list = (await runCli(['--home', home, '--json', 'skills', 'list'])).json().skills as Array<{
      name: string;
    }>;
    expect(list.filter((s) => s.name.toLowerCase().startsWith('stra'))).toHaveLength(1);
  });
});

describe('skilldesk skills import: built-in skills', () => {
  it('exits 2 for a package claiming source "system", naming the file and the JSON path, writing nothing', async () => {
    const home = join(tempDir(), 'home');
    const file = write(tempDir(), 'system.json', smallPackage('Sneaky', '1.0.0', { source: 'system' }));
    const r = await runCli(['--home', home, 'skills', 'import', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}: source: "system" is reserved`);
    expect(r.stderr).toMatch(/"user" or "community"/);
    expect(existsSync(home)).toBe(false);
  });

  it('exits 2 when a package would replace a built-in skill, and replaces it (as a user skill) with --force', async () => {
    const home = tempDir();
    await runCli(['--home', home, 'skills', 'list']);
    const before = snapshotDir(home);
    const file = write(tempDir(), 'mine.json', smallPackage('summarize', '9.0.0'));
    const r = await runCli(['--home', home, 'skills', 'import', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/"Summarize" is a built-in SkillDesk skill .*--force/);
    expect(snapshotDir(home)).toEqual(before);

    const forced = await runCli(['--home', home, '--json', 'skills', 'import', file, '--force']);
    expect(forced.code).toBe(0);
    expect(forced.json().imported[0]).toMatchObject({ action: 'updated', version: '9.0.0' });
    const show = await runCli(['--home', home, '--json', 'skills', 'show', 'Summarize']);
    expect(show.json().skill).toMatchObject({ name: 'summarize', source: 'user', version: '9.0.0' });
  });
});

describe('skilldesk skills import: names and bundled paths', () => {
  it('exits 2 for a name with a bidi control or a zero-width character', async () => {
    const home = join(tempDir(), 'home');
    for (const name of ['Summary\u202Etxt', 'Sum\u200Bmarize']) {
      const file = write(tempDir(), 'n.json', smallPackage(name));
      const r = await runCli(['--home', home, 'skills', 'import', file]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${file}: name: must not contain`);
    }
    expect(existsSync(home)).toBe(false);
  });

  it('exits 2 for a Windows-reserved bundled path', async () => {
    const home = join(tempDir(), 'home');
    const p = smallPackage('Paths');
    p.artifacts = [
      ...(p.artifacts as unknown[]),
      { kind: 'resource', name: 'r', content: 'x', metadata: { path: 'docs/CON.md' } },
    ];
    const file = write(tempDir(), 'p.json', p);
    const r = await runCli(['--home', home, 'skills', 'import', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}: artifacts[1].metadata.path: the file path "docs/CON.md"`);
    expect(existsSync(home)).toBe(false);
  });
});
