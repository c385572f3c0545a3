// A save or an import that lowers a skill's phase-1 trigger recall or precision is held back with
// the figures and the queries it now gets wrong; an unchanged or better one goes through.
import { execFileSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ImportPackageRes } from '../contract/skills.js';
import type { UpdateResult } from '../contract/sources.js';
import { runCli, tempDir, testHost, triggerEvalSkill } from '../test-support/index.js';
import { createInProcessClient } from '../transport/in-process-client.js';

const PDF = 'Fill PDF forms, merge and split PDF files, extract text and tables from PDF documents.';
/** The same skill with "merge" and "split" dropped from its description. */
const NARROWER = 'Fill PDF forms and extract text and tables from PDF documents.';
const TRIGGERS = [
  { query: 'fill in the fields of this PDF form for me', should_trigger: true },
  { query: 'merge and split my files', should_trigger: true },
  { query: 'extract the tables from the attached PDF report', should_trigger: true },
  { query: 'write me a haiku about the sea', should_trigger: false },
];

/** A home holding pdf-tools (with trigger evals) among a few other skills. */
async function home(): Promise<string> {
  const h = tempDir();
  for (const dir of [
    triggerEvalSkill('pdf-tools', PDF, TRIGGERS),
    triggerEvalSkill('sea-poems', 'Write short poems and haiku about the sea, waves and sailing.'),
    triggerEvalSkill(
      'spreadsheet-math',
      'Compute totals, averages and pivots in Excel spreadsheets and CSV files.',
    ),
  ]) {
    const r = await runCli(['--home', h, 'skills', 'import', '--no-embed', dir]);
    expect(r.code, r.stderr).toBe(0);
  }
  return h;
}

describe('trigger regressions', () => {
  it('holds a Composer save that drops a trigger phrase, with the figures, until it is confirmed', async () => {
    const core = createInProcessClient(testHost({ home: await home() }));
    const exported = await core.invoke('skills/export-package', { name: 'pdf-tools', scope: 'account' });
    const pkg = JSON.parse(exported.text) as Record<string, unknown>;

    const held = await core.invoke('skills/save-package', {
      package: { ...pkg, description: NARROWER },
      scope: 'account',
    });
    expect(held.saved).toBeNull();
    expect(held.trigger_regression).toHaveLength(1);
    const r = held.trigger_regression![0]!;
    expect(r).toMatchObject({ name: 'pdf-tools', scope: 'account', recall_before: 1, precision_before: 1 });
    expect(r.recall_after).toBeCloseTo(0.667, 3);
    expect(r.failing).toEqual([{ query: 'merge and split my files', should_trigger: true, newly: true }]);
    // Nothing was written.
    const still = await core.invoke('skills/get', { name: 'pdf-tools', scope: 'account' });
    expect(still.skill.description).toBe(PDF);

    // "Save anyway".
    const forced = await core.invoke('skills/save-package', {
      package: { ...pkg, description: NARROWER },
      scope: 'account',
      accept_trigger_regression: true,
    });
    expect(forced.saved).toMatchObject({ name: 'pdf-tools', action: 'updated' });
    expect(forced.trigger_regression).toBeUndefined();
    const now = await core.invoke('skills/get', { name: 'pdf-tools', scope: 'account' });
    expect(now.skill.description).toBe(NARROWER);

    // Putting the phrase back raises recall: not flagged.
    const better = await core.invoke('skills/save-package', {
      package: { ...pkg, description: PDF },
      scope: 'account',
    });
    expect(better.saved).toMatchObject({ action: 'updated' });
    expect(better.trigger_regression).toBeUndefined();
  });

  it('lets an unchanged save and an unrelated edit through', async () => {
    const core = createInProcessClient(testHost({ home: await home() }));
    const exported = await core.invoke('skills/export-package', { name: 'pdf-tools', scope: 'account' });
    const pkg = JSON.parse(exported.text) as Record<string, unknown>;
    const same = await core.invoke('skills/save-package', { package: pkg, scope: 'account' });
    expect(same.saved).toMatchObject({ action: 'unchanged' });
    expect(same.trigger_regression).toBeUndefined();
    const edited = await core.invoke('skills/save-package', {
      package: { ...pkg, tags: ['documents'] },
      scope: 'account',
    });
    expect(edited.saved).toMatchObject({ action: 'updated' });
    expect(edited.trigger_regression).toBeUndefined();
  });

  it('skills import prints the regression and exits 1 unless --force', async () => {
    const h = await home();
    const narrower = triggerEvalSkill('pdf-tools', NARROWER, TRIGGERS);
    const held = await runCli(['--home', h, '--json', 'skills', 'import', '--no-embed', narrower]);
    expect(held.code).toBe(1);
    expect(held.stderr).toContain('pdf-tools (account, ');
    expect(held.stderr).toContain('trigger recall 100% → 67%, precision 100% → 100%');
    expect(held.stderr).toContain('should fire, does not (new): "merge and split my files"');
    expect(held.stderr).toContain('Pass --force to import anyway.');
    const out = JSON.parse(held.stdout) as ImportPackageRes;
    expect(out.imported).toEqual([]);
    expect(out.trigger_regression?.[0]).toMatchObject({ name: 'pdf-tools', recall_before: 1 });
    const list = await runCli(['--home', h, '--json', 'skills', 'show', 'pdf-tools']);
    expect(list.stdout).toContain(PDF);

    const forced = await runCli([
      '--home',
      h,
      '--json',
      'skills',
      'import',
      '--no-embed',
      '--force',
      narrower,
    ]);
    expect(forced.code, forced.stderr).toBe(0);
    expect((JSON.parse(forced.stdout) as ImportPackageRes).imported[0]).toMatchObject({ action: 'updated' });

    // An improvement (the phrase back) imports without --force.
    const better = await runCli([
      '--home',
      h,
      'skills',
      'import',
      '--no-embed',
      triggerEvalSkill('pdf-tools', PDF, TRIGGERS),
    ]);
    expect(better.code, better.stderr).toBe(0);
    expect(better.stderr).not.toContain('trigger recall');
  });

  it('a source update that lowers trigger recall holds that skill for review and installs the rest', async () => {
    const git = (cwd: string, ...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd });
    const repo = tempDir();
    git(repo, 'init', '-q', '-b', 'main');
    cpSync(triggerEvalSkill('pdf-tools', PDF, TRIGGERS), join(repo, 'pdf-tools'), { recursive: true });
    cpSync(triggerEvalSkill('sea-poems', 'Write short poems about the sea.'), join(repo, 'sea-poems'), {
      recursive: true,
    });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'first');
    const h2 = tempDir();
    for (const dir of [
      triggerEvalSkill(
        'spreadsheet-math',
        'Compute totals, averages and pivots in Excel spreadsheets and CSV files.',
      ),
    ])
      expect((await runCli(['--home', h2, 'skills', 'import', '--no-embed', dir])).code).toBe(0);
    expect((await runCli(['--home', h2, 'sources', 'add', repo, '--name', 'team'])).code).toBe(0);
    expect((await runCli(['--home', h2, 'sources', 'update', 'team', '--all'])).code).toBe(0);

    cpSync(triggerEvalSkill('pdf-tools', NARROWER, TRIGGERS), join(repo, 'pdf-tools'), { recursive: true });
    cpSync(
      triggerEvalSkill('sea-poems', 'Write short poems and haiku about the sea.'),
      join(repo, 'sea-poems'),
      {
        recursive: true,
      },
    );
    git(repo, 'commit', '-q', '-am', 'narrower');
    expect((await runCli(['--home', h2, 'sources', 'check', 'team'])).code).toBe(0);
    const up = await runCli(['--home', h2, '--json', 'sources', 'update', 'team', '--all']);
    expect(up.code, up.stderr).toBe(5);
    const r = JSON.parse(up.stdout) as UpdateResult;
    expect(r.installed.map((i) => i.name)).toEqual(['sea-poems']);
    expect(r.held_for_review).toHaveLength(1);
    expect(r.held_for_review[0]).toMatchObject({ name: 'pdf-tools', recall_before: 1, precision_before: 1 });
    expect(r.held_for_review[0]!.failing.map((f) => f.query)).toEqual(['merge and split my files']);
    const human = await runCli(['--home', h2, 'sources', 'update', 'team', '--all']);
    expect(human.stdout).toContain('held for review: pdf-tools');
    expect(human.stdout).toContain('--accept-regression');
    const shown = await runCli(['--home', h2, '--json', 'skills', 'show', 'pdf-tools']);
    expect(shown.stdout).toContain(PDF);

    const accepted = await runCli([
      '--home',
      h2,
      '--json',
      'sources',
      'update',
      'team',
      '--all',
      '--accept-regression',
    ]);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect((JSON.parse(accepted.stdout) as UpdateResult).installed.map((i) => i.name)).toEqual(['pdf-tools']);
  });
});
