import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  consistencyCheckerExample,
  runCli,
  smallPackage,
  snapshotDir,
  tempDir,
  VALID_STATE_BLOB,
} from '../test-support/index.js';

const BIN = resolve(import.meta.dirname, '../../bin/skilldesk.mjs');

// The design prints the example as a built-in (`source: "system"`), which user imports may not claim.
function example(blob = VALID_STATE_BLOB) {
  const p = consistencyCheckerExample();
  (p.artifacts as Array<Record<string, unknown>>)[3]!.state_blob = blob;
  p.source = 'user';
  return p;
}

describe('skilldesk skills', () => {
  it('imports, lists, shows, matches, exports and deletes', async () => {
    const home = tempDir();
    const ws = tempDir();
    const dir = tempDir();
    const g = ['--home', home, '--workspace', ws];
    writeFileSync(join(dir, 'cc.json'), JSON.stringify(example()));
    const imp = await runCli([...g, '--json', 'skills', 'import', join(dir, 'cc.json')]);
    expect(imp.code).toBe(0);
    expect(imp.json().imported[0]).toMatchObject({
      name: 'Consistency Checker',
      scope: 'workspace',
      action: 'created',
    });
    expect(existsSync(join(ws, 'agents.db'))).toBe(true);

    const list = await runCli([...g, 'skills', 'list', '--json']);
    const items = list.json().skills as Array<Record<string, unknown>>;
    // The seeded account copy is hidden by the workspace one.
    expect(items.filter((s) => s.name === 'Consistency Checker')).toEqual([
      expect.objectContaining({ scope: 'workspace', overridden: false, overrides: 'account' }),
      expect.objectContaining({ scope: 'account', overridden: true, overridden_by: 'workspace' }),
    ]);

    const show = await runCli([...g, '--json', 'skills', 'show', 'Consistency Checker']);
    expect(show.json().skill).toMatchObject({ scope: 'workspace', version: '1.0.0' });
    expect(show.json().skill.artifacts).toHaveLength(4);

    const match = await runCli([
      ...g,
      '--json',
      'skills',
      'match',
      'are there any contradictions here?',
      '--limit',
      '3',
    ]);
    const m = match.json();
    expect(m.matches[0]).toEqual({
      name: 'Consistency Checker',
      scope: 'workspace',
      score: expect.any(Number),
      matched_on: expect.arrayContaining(['exact_trigger']),
    });
    expect(m.matches.length).toBeLessThanOrEqual(3);
    expect(typeof m.took_ms).toBe('number');

    const exp = await runCli([...g, 'skills', 'export', 'Consistency Checker']);
    expect(JSON.parse(exp.stdout)).toEqual(example());
    const out = join(dir, 'folder');
    const folder = await runCli([
      ...g,
      'skills',
      'export',
      'Consistency Checker',
      '--format',
      'agent-skill',
      '-o',
      out,
    ]);
    expect(folder.code).toBe(0);
    // The Agent Skills name is the folder's slug; the display name rides in metadata, and every
    // artifact (the prompt template and the DSPy module too) has a file the manifest names.
    const skillMd = readFileSync(join(out, 'SKILL.md'), 'utf8');
    expect(skillMd).toMatch(/^---\nname: consistency-checker\n/);
    expect(skillMd).toMatch(/\n {2}skilldesk:\n {4}name: Consistency Checker\n/);
    expect(folder.stderr).not.toMatch(/no place for/);
    expect(JSON.parse(readFileSync(join(out, 'skilldesk.json'), 'utf8')).skilldesk_manifest).toBe(1);

    const del = await runCli([...g, 'skills', 'delete', 'Consistency Checker', '--scope', 'workspace']);
    expect(del.code).toBe(0);
    expect(del.stdout).toMatch(/account skill of that name .* is active again/);
    const after = await runCli([...g, '--json', 'skills', 'show', 'Consistency Checker']);
    expect(after.json().skill.scope).toBe('account');
  });

  it('exits 2 on bad input and writes nothing', async () => {
    const home = join(tempDir(), 'home');
    const dir = tempDir();
    writeFileSync(join(dir, 'cc.json'), JSON.stringify(consistencyCheckerExample()));
    const r = await runCli(['--home', home, 'skills', 'import', join(dir, 'cc.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(dir, 'cc.json')}: artifacts[3].state_blob`);
    expect(existsSync(home)).toBe(false);

    // An existing store is unchanged, byte for byte, by a failing multi-file import.
    await runCli(['--home', home, 'skills', 'list']);
    const before = snapshotDir(home);
    writeFileSync(join(dir, 'ok.json'), JSON.stringify(smallPackage('Fine')));
    const both = await runCli([
      '--home',
      home,
      'skills',
      'import',
      join(dir, 'ok.json'),
      join(dir, 'cc.json'),
    ]);
    expect(both.code).toBe(2);
    expect(snapshotDir(home)).toEqual(before);
  });

  it('exits 2 on usage errors and 1 when the skill is missing', async () => {
    const home = tempDir();
    expect((await runCli(['--home', home, 'skills', 'frobnicate'])).code).toBe(2);
    expect((await runCli(['--home', home, 'skills', 'delete', 'Summarize'])).code).toBe(2);
    expect((await runCli(['--home', home, 'skills', 'match', 'hi', '--limit', 'zero'])).code).toBe(2);
    expect((await runCli(['--home', home, 'skills', 'import', 'x.json', '--scope', 'workspace'])).code).toBe(
      2,
    );
    expect((await runCli(['--home', home, '--workspace', join(home, 'nope'), 'skills', 'list'])).code).toBe(
      2,
    );
    const missing = await runCli(['--home', home, 'skills', 'show', 'No Such Skill']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no skill named "No Such Skill"/);
    expect((await runCli(['--home', home, '--help'])).code).toBe(0);
    expect((await runCli(['--home', home])).code).toBe(2);
    expect((await runCli(['--home', home, 'skills'])).code).toBe(2);
  });

  it('refuses an older version unless --force', async () => {
    const home = tempDir();
    const dir = tempDir();
    writeFileSync(join(dir, 'v2.json'), JSON.stringify(smallPackage('Versioned', '2.0.0')));
    // An older version with other content (the same content would simply be unchanged).
    writeFileSync(
      join(dir, 'v1.json'),
      JSON.stringify({ ...smallPackage('Versioned', '1.0.0'), description: 'An older description.' }),
    );
    expect((await runCli(['--home', home, 'skills', 'import', join(dir, 'v2.json')])).code).toBe(0);
    const old = await runCli(['--home', home, 'skills', 'import', join(dir, 'v1.json')]);
    expect(old.code).toBe(2);
    expect(old.stderr).toMatch(/older .* --force/);
    expect((await runCli(['--home', home, 'skills', 'import', join(dir, 'v1.json'), '--force'])).code).toBe(
      0,
    );
  });

  it('reports a store that is not SQLite with exit 1, naming the file', async () => {
    const home = tempDir();
    writeFileSync(join(home, 'agents.db'), 'not a database');
    const r = await runCli(['--home', home, 'skills', 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(join(home, 'agents.db'));
    expect(readFileSync(join(home, 'agents.db'), 'utf8')).toBe('not a database');
  });

  it('runs as a real process through the bin', () => {
    const home = tempDir();
    const out = execFileSync(process.execPath, [BIN, '--home', home, '--json', 'skills', 'list'], {
      encoding: 'utf8',
    });
    const names = (JSON.parse(out).skills as Array<{ name: string }>).map((s) => s.name);
    expect(names).toContain('Summarize');
  });

  it('runs the bundle of the sources, fresh, with each module finding files beside its source', async () => {
    execFileSync(process.execPath, [BIN, '--version'], { encoding: 'utf8' });
    const { CLI_BUNDLE, bundleFresh } = await import('../../scripts/cli-bundle.mjs');
    expect(bundleFresh()).toBe(true);
    // The entry and its chunks (code-split: a command loads only what it runs).
    const dir = dirname(CLI_BUNDLE);
    const text = readdirSync(dir)
      .filter((f) => f.endsWith('.mjs'))
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('\n');
    // The sandbox runtime, migrations and models are found from the source files' places.
    expect(text).toContain('new URL("../../electron/sandbox/runtime-paths.ts", import.meta.url)');
    expect(text).toContain('new URL("../../electron/store/db.ts", import.meta.url)');
    expect(text).not.toMatch(/fileURLToPath\(import\.meta\.url\)/);
  });

  it('starts with the command table alone: the core is loaded only by a command that runs it', async () => {
    execFileSync(process.execPath, [BIN, '--version'], { encoding: 'utf8' });
    const { CLI_BUNDLE } = await import('../../scripts/cli-bundle.mjs');
    const dir = dirname(CLI_BUNDLE);
    // The files the entry imports statically, transitively: what every start parses and runs.
    const seen = new Set<string>();
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(join(dir, file), 'utf8');
      for (const m of text.matchAll(/^import\s(?:[^;]*?\sfrom\s*)?"\.\/(chunk-[^"]+)";/gms)) walk(m[1]!);
    };
    walk('skilldesk.mjs');
    const startup = [...seen].map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
    expect(startup).toContain('// electron/cli/skills-commands.ts');
    for (const core of [
      'electron/host.ts',
      'electron/store/db.ts',
      'electron/activation/phase1.ts',
      'electron/sandbox/pool.ts',
      'electron/llm/index.ts',
    ])
      expect(startup, core).not.toContain(`// ${core}\n`);
    // The same commands answer: help lists them, and a command runs its core when asked.
    const help = execFileSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' });
    for (const c of ['skills', 'chat', 'serve', 'mcp']) expect(help).toMatch(new RegExp(`\\n\\s+${c}\\b`));
  });
});
