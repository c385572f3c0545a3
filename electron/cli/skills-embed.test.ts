// Vectors that exist: `skills import` computes the imported skills' e5 vectors (skippable with
// --no-embed), `skills embed` computes what is missing, and `skills match` never waits for them —
// it answers by words and says how many skills still lack a vector.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { E5_ADDON_FILE, E5_MODEL_FILE } from '../activation/index.js';
import type { EmbedSkillsRes, MatchSkillsRes } from '../contract/skills.js';
import { runCli, skillFolders, tempDir } from '../test-support/index.js';

const installed = existsSync(E5_MODEL_FILE) && existsSync(E5_ADDON_FILE);
if (!installed && process.env.CI)
  throw new Error(`e5 model or engine missing (${E5_MODEL_FILE}); run node scripts/setup-e5.mjs`);
const d = installed ? describe : describe.skip;

const folders = () =>
  skillFolders([
    ['pdf-forms', 'Fill PDF forms and merge PDF files.'],
    ['sea-poems', 'Write short poems and haiku about the sea.'],
    ['budget-sheets', 'Total and average the numbers in a spreadsheet.'],
  ]);

d('skill vectors in the CLI', () => {
  it('import computes them, so the first match already ranks by meaning', async () => {
    const home = tempDir();
    const imp = await runCli(['--home', home, 'skills', 'import', ...folders()]);
    expect(imp.code, imp.stderr).toBe(0);
    // The imported skills and the built-in ones the store was seeded with.
    expect(imp.stderr).toMatch(/embedded \d+ skill\(s\) for matching by meaning/);
    const m = await runCli([
      '--home',
      home,
      '--json',
      'skills',
      'match',
      'add up the figures in my workbook',
    ]);
    const r = JSON.parse(m.stdout) as MatchSkillsRes;
    expect(r.e5?.used).toBe(true);
    expect(r.e5?.embedded).toBe(r.e5?.total);
    expect(r.matches[0]?.name).toBe('budget-sheets');
  });

  it('with --no-embed, a match answers without waiting and says what is pending; skills embed fills it', async () => {
    const home = tempDir();
    const imp = await runCli(['--home', home, 'skills', 'import', '--no-embed', ...folders()]);
    expect(imp.code, imp.stderr).toBe(0);
    expect(imp.stderr).not.toMatch(/embedded/);
    // The import still saved the phase-1 index, so the next process loads it instead of building it.
    const db = new Database(join(home, 'agents.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT count(*) FROM skill_index_cache').pluck().get()).toBe(1);
    } finally {
      db.close();
    }

    const m = await runCli(['--home', home, '--json', 'skills', 'match', 'fill in this pdf form']);
    const r = JSON.parse(m.stdout) as MatchSkillsRes;
    // The built-in skills come with shipped vectors (seed-skills/vectors); the imported ones wait.
    const seeded = r.e5!.embedded;
    const total = r.e5!.total;
    const pending = total - seeded;
    expect(pending).toBeGreaterThanOrEqual(3);
    expect(r.matches[0]?.name).toBe('pdf-forms');
    // Everything the call waited for is counted.
    expect(r.took_ms).toBeGreaterThanOrEqual(r.index_ms ?? 0);
    const human = await runCli(['--home', home, 'skills', 'match', 'fill in this pdf form']);
    expect(human.stdout).toContain(`e5: ${pending} of ${total} skills have no vector yet`);

    const e = await runCli(['--home', home, '--json', 'skills', 'embed']);
    expect(e.code, e.stderr).toBe(0);
    expect(JSON.parse(e.stdout) as EmbedSkillsRes).toMatchObject({
      embedded: total,
      total,
      newly_embedded: pending,
    });
    const again = await runCli(['--home', home, '--json', 'skills', 'embed']);
    expect(JSON.parse(again.stdout) as EmbedSkillsRes).toMatchObject({ embedded: total, newly_embedded: 0 });
    const after = JSON.parse(
      (await runCli(['--home', home, '--json', 'skills', 'match', 'fill in this pdf form'])).stdout,
    ) as MatchSkillsRes;
    expect(after.e5).toMatchObject({ used: true, embedded: total });
  });
});
