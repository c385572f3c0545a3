import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../test-support/index.js';

const skillMd = (body: string) =>
  `---\nname: tone-check\ndescription: Checks the tone of a text.\n---\n# Tone\n${body}\n`;

describe('skilldesk skills import: updates by content', () => {
  it('updates an Agent Skills folder that declares no version each time its content changes, and only then', async () => {
    const home = tempDir();
    const dir = join(tempDir(), 'tone-check');
    mkdirSync(join(dir, 'references'), { recursive: true });
    writeFileSync(join(dir, 'SKILL.md'), skillMd('Be kind.'));
    writeFileSync(join(dir, 'references', 'words.md'), 'gentle\n');
    const imp = (...extra: string[]) => runCli(['--home', home, '--json', 'skills', 'import', dir, ...extra]);

    expect((await imp()).json().imported[0]).toMatchObject({ action: 'created', version: '1.0.0' });
    const same = (await imp()).json().imported[0];
    expect(same).toMatchObject({ action: 'unchanged', version: '1.0.0' });
    expect(same.content_hash).toBe(same.previous_content_hash);

    // Upstream edits the body and a bundled file (a `git pull`): no --force needed.
    writeFileSync(join(dir, 'SKILL.md'), skillMd('Be kind, and be brief.'));
    writeFileSync(join(dir, 'references', 'words.md'), 'gentle\nplain\n');
    const dry = await imp('--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.json().dry_run).toBe(true);
    expect(dry.json().imported[0]).toMatchObject({
      action: 'updated',
      previous_version: '1.0.0',
      version: '1.0.1',
      version_bumped: true,
    });
    const changed = dry
      .json()
      .imported[0].changes.artifacts.map((a: { name: string; change: string }) => [a.name, a.change]);
    expect(changed).toEqual([
      ['SKILL.md', 'changed'],
      ['references/words.md', 'changed'],
    ]);
    // The dry run wrote nothing: the installed skill is still the first one.
    const shown = await runCli(['--home', home, '--json', 'skills', 'show', 'tone-check']);
    expect(JSON.stringify(shown.json())).toContain('Be kind.');
    expect(JSON.stringify(shown.json())).not.toContain('be brief');

    const human = await runCli(['--home', home, 'skills', 'import', dir, '--dry-run']);
    expect(human.stdout).toMatch(
      /tone-check \[account\]: would be updated 1\.0\.0 → 1\.0\.1 \(content changed/,
    );
    expect(human.stdout).toMatch(/\+Be kind, and be brief\./);
    expect(human.stdout).toMatch(/Dry run: nothing was written\./);

    expect((await imp()).json().imported[0]).toMatchObject({ action: 'updated', version: '1.0.1' });
    expect((await imp()).json().imported[0]).toMatchObject({ action: 'unchanged', version: '1.0.1' });
    // A second upstream change lands too (the folder still says nothing about its version).
    writeFileSync(join(dir, 'SKILL.md'), skillMd('Be kind.'));
    expect((await imp()).json().imported[0]).toMatchObject({ action: 'updated', version: '1.0.2' });

    const history = await runCli(['--home', home, '--json', 'skills', 'versions', 'tone-check']);
    if (history.code === 0) {
      expect(JSON.stringify(history.json())).toContain('1.0.1');
    }
  });

  it('takes a higher declared version, and refuses a lower one with a remedy', async () => {
    const home = tempDir();
    const dir = tempDir();
    const file = join(dir, 'p.json');
    const write = (version: string, content: string) =>
      writeFileSync(
        file,
        JSON.stringify({
          name: 'Greeter',
          description: 'Greets.',
          version,
          artifacts: [{ kind: 'approach', name: 'How', content }],
        }),
      );
    write('2.0.0', 'Say hello.');
    await runCli(['--home', home, 'skills', 'import', file]);
    write('2.1.0', 'Say hello warmly.');
    const up = await runCli(['--home', home, '--json', 'skills', 'import', file]);
    expect(up.json().imported[0]).toMatchObject({ action: 'updated', version: '2.1.0' });
    expect(up.json().imported[0].version_bumped).toBeUndefined();
    write('1.0.0', 'Say hi.');
    const down = await runCli(['--home', home, 'skills', 'import', file]);
    expect(down.code).not.toBe(0);
    expect(down.stderr).toMatch(/older than the 2\.1\.0.*raise its version above 2\.1\.0, or pass --force/);
  });

  it('applies --max-files to each skill of a collection, and names the remedy when one is over', async () => {
    const home = tempDir();
    const root = tempDir();
    for (const name of ['one', 'two', 'three']) {
      mkdirSync(join(root, name, 'references'), { recursive: true });
      writeFileSync(
        join(root, name, 'SKILL.md'),
        `---\nname: ${name}\ndescription: Skill ${name}.\n---\nBody.\n`,
      );
      writeFileSync(join(root, name, 'references', 'a.md'), 'a\n');
      writeFileSync(join(root, name, 'references', 'b.md'), 'b\n');
    }
    // Nine files in all, three per skill: the collection imports under a limit of four per skill.
    const ok = await runCli(['--home', home, '--json', 'skills', 'import', root, '--max-files', '4']);
    expect(ok.code).toBe(0);
    expect(ok.json().imported.map((i: { name: string }) => i.name)).toEqual(['one', 'three', 'two']);
    writeFileSync(join(root, 'two', 'references', 'c.md'), 'c\n');
    writeFileSync(join(root, 'two', 'references', 'd.md'), 'd\n');
    const over = await runCli(['--home', tempDir(), 'skills', 'import', root, '--max-files', '4']);
    expect(over.code).not.toBe(0);
    expect(over.stderr).toMatch(
      /two: more than 4 files; pass --max-files N \(or set SKILLDESK_MAX_IMPORT_FILES\)/,
    );
  });
});

describe('skills import of nested collections', () => {
  it('finds skills at any depth, says where, and --depth limits it', async () => {
    const root = tempDir();
    const put = (rel: string, name: string) => {
      mkdirSync(join(root, rel), { recursive: true });
      writeFileSync(
        join(root, rel, 'SKILL.md'),
        `---\nname: ${name}\ndescription: Does ${name}.\n---\nDo ${name}.\n`,
      );
    };
    put('alpha', 'alpha');
    put('collection-a/beta', 'beta');
    put('collection-a/gamma', 'gamma');
    put('vendor/nested/collection-b/delta', 'delta');
    writeFileSync(join(root, 'package.json'), '{"name":"repo"}');
    // A plugin of commands only (Composio's connect-apps-plugin): passed over and said, never a stop.
    mkdirSync(join(root, 'connect-plugin', '.claude-plugin'), { recursive: true });
    mkdirSync(join(root, 'connect-plugin', 'commands'), { recursive: true });
    writeFileSync(join(root, 'connect-plugin', '.claude-plugin', 'plugin.json'), '{"name":"connect"}');
    writeFileSync(join(root, 'connect-plugin', 'commands', 'setup.md'), 'Set up.\n');
    const all = await runCli(['--home', tempDir(), 'skills', 'import', root, '--json']);
    expect(all.code, all.stderr).toBe(0);
    const out = all.json() as {
      imported: Array<{ name: string }>;
      collections: Array<{ path: string; skills: number }>;
      skipped: Array<{ path: string; reason: string }>;
    };
    expect(out.imported.map((i) => i.name).sort()).toEqual(['alpha', 'beta', 'delta', 'gamma']);
    expect(out.collections.map((c) => [c.path, c.skills])).toEqual([
      ['.', 1],
      ['collection-a', 2],
      ['vendor/nested/collection-b', 1],
    ]);
    expect(out.skipped).toEqual([
      expect.objectContaining({ path: 'package.json', reason: 'not_a_package' }),
      expect.objectContaining({
        path: 'connect-plugin',
        reason: 'nothing_to_import',
        message: expect.stringContaining('not installed: commands/setup.md'),
      }),
    ]);
    // On its own, the same plugin is still refused: there is nothing to import.
    const alone = await runCli(['--home', tempDir(), 'skills', 'import', join(root, 'connect-plugin')]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/holds no skills/);

    const limited = await runCli(['--home', tempDir(), 'skills', 'import', root, '--depth', '2']);
    expect(limited.code, limited.stderr).toBe(0);
    expect(limited.stdout).toContain('Found 2 skills in');
    expect(limited.stdout).toMatch(/vendor\/nested\/collection-b\/delta: deeper than --depth 2/);
    expect(limited.stdout).not.toMatch(/^delta /m);
    const none = await runCli([
      '--home',
      tempDir(),
      'skills',
      'import',
      join(root, 'vendor'),
      '--depth',
      '1',
    ]);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/no skills within --depth 1; 1 skill folder is deeper/);
  });
});

describe('export of an Agent Skill after upstream updates', () => {
  it("writes the author's bytes after two updates, the raised version kept by SkillDesk", async () => {
    const home = tempDir();
    const dir = join(tempDir(), 'tone-check');
    mkdirSync(dir);
    const header = `---\nname: tone-check\ndescription: 'Checks: the tone of a text'\nlicense: "MIT"\n---\n`;
    for (const [i, body] of [
      '# Tone\nBe kind.\n',
      '# Tone\nBe kinder.\n',
      '# Tone\nBe kindest.\n',
    ].entries()) {
      writeFileSync(join(dir, 'SKILL.md'), header + body);
      const r = await runCli(['--home', home, 'skills', 'import', dir, '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.json().imported[0]).toMatchObject({ version: `1.0.${i}` });
    }
    const out = join(tempDir(), 'out');
    const x = await runCli([
      '--home',
      home,
      'skills',
      'export',
      'tone-check',
      '--format',
      'agent-skill',
      '-o',
      out,
    ]);
    expect(x.code, x.stderr).toBe(0);
    expect(readdirSync(out)).toEqual(['SKILL.md']);
    expect(readFileSync(join(out, 'SKILL.md'), 'utf8')).toBe(`${header}# Tone\nBe kindest.\n`);
    // Imported again, the export is the installed skill: unchanged, still 1.0.2.
    const again = await runCli(['--home', home, 'skills', 'import', out, '--json']);
    expect(again.json().imported[0]).toMatchObject({ action: 'unchanged', version: '1.0.2' });
  });
});
