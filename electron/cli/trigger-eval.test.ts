import { describe, expect, it } from 'vitest';
import type { TriggerEvalRes } from '../contract/skills.js';
import { runCli, scriptedProvider, tempDir, triggerEvalSkill } from '../test-support/index.js';

/** An Agent Skills folder; `triggers` become evals/trigger-evals.json. */

const PDF_TRIGGERS = [
  { query: 'fill in the fields of this PDF form for me', should_trigger: true },
  { query: 'merge these two PDF files into one document', should_trigger: true },
  { query: 'extract the tables from the attached PDF report', should_trigger: true },
  { query: 'write me a haiku about the sea', should_trigger: false },
  { query: 'what is the capital of France', should_trigger: false },
];

async function home(): Promise<string> {
  const h = tempDir();
  for (const dir of [
    triggerEvalSkill(
      'pdf-forms',
      'Fill PDF forms, merge and split PDF files, extract text and tables from PDF documents.',
      PDF_TRIGGERS,
    ),
    triggerEvalSkill('sea-poems', 'Write short poems and haiku about the sea, waves and sailing.'),
    triggerEvalSkill(
      'spreadsheet-math',
      'Compute totals, averages and pivots in Excel spreadsheets and CSV files.',
    ),
  ]) {
    const r = await runCli(['--home', h, 'skills', 'import', dir]);
    expect(r.code, r.stderr).toBe(0);
  }
  return h;
}

describe('skilldesk skills trigger-eval', () => {
  it('measures phase 1 without a model, the same way every time, and compares with the last run', async () => {
    const h = await home();
    const first = await runCli(['--home', h, '--json', 'skills', 'trigger-eval']);
    expect(first.code, first.stderr).toBe(0);
    const r = JSON.parse(first.stdout) as TriggerEvalRes;
    expect(r.model).toBeNull();
    expect(r.estimate).toBeNull();
    // Only the skill with trigger evals is measured when none is named.
    expect(r.skills.map((s) => s.name)).toEqual(['pdf-forms']);
    const s = r.skills[0]!;
    expect(s).toMatchObject({ total: 5, positives: 3, negatives: 2, turn: null, previous: null });
    expect(s.phase1.recall).toBe(1);
    expect(s.phase1.precision).toBe(1);
    const haiku = s.results.find((q) => q.query.includes('haiku'))!;
    expect(haiku).toMatchObject({ should_trigger: false, phase1: false, passed: true });

    const again = await runCli(['--home', h, '--json', 'skills', 'trigger-eval', 'pdf-forms']);
    const r2 = JSON.parse(again.stdout) as TriggerEvalRes;
    expect(r2.skills[0]!.results).toEqual(s.results);
    expect(r2.skills[0]!.previous?.phase1).toEqual(s.phase1);

    const human = await runCli(['--home', h, 'skills', 'trigger-eval', 'pdf-forms', '--no-record']);
    expect(human.stdout).toContain('phase 1: recall 100%, precision 100%');
  });

  it('names a skill without trigger evals and exits 1 below a required rate', async () => {
    const h = await home();
    const r = await runCli([
      '--home',
      h,
      '--json',
      'skills',
      'trigger-eval',
      'sea-poems',
      '--min-recall',
      '0.5',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as TriggerEvalRes;
    expect(out.skills).toEqual([]);
    expect(out.skipped[0]).toMatchObject({ name: 'sea-poems' });
    expect(out.skipped[0]!.reason).toContain('evals/trigger-evals.json');

    // A should-trigger query no phase 1 could match: recall 3/4 < 0.9.
    const dir = triggerEvalSkill(
      'pdf-forms',
      'Fill PDF forms, merge and split PDF files, extract text and tables from PDF documents.',
      [...PDF_TRIGGERS, { query: 'qwzx plorb vint', should_trigger: true }],
    );
    const h2 = tempDir();
    expect((await runCli(['--home', h2, 'skills', 'import', dir])).code).toBe(0);
    const low = await runCli(['--home', h2, 'skills', 'trigger-eval', '--min-recall', '0.9']);
    expect(low.code).toBe(1);
    expect(low.stdout).toContain('recall 75%');
    expect(low.stdout).toContain('qwzx plorb vint');
  });

  it('refuses a malformed trigger-evals.json naming the entry', async () => {
    const h = tempDir();
    const dir = triggerEvalSkill('bad-evals', 'Fill PDF forms.', [
      { query: 'fill this', should_trigger: 'yes' },
    ]);
    expect((await runCli(['--home', h, 'skills', 'import', dir])).code).toBe(0);
    const r = await runCli(['--home', h, 'skills', 'trigger-eval', 'bad-evals']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('evals/trigger-evals.json of "bad-evals": 0.should_trigger');
  });

  it('with a model, asks it only about the queries phase 1 listed, and reports the turn', async () => {
    const h = await home();
    // Three should-trigger queries reach the router; the model picks the skill twice.
    const p = await scriptedProvider([{ text: 'pdf-forms' }, { text: 'none' }, { text: 'pdf-forms' }]);
    const r = await runCli([
      '--home',
      h,
      '--json',
      'skills',
      'trigger-eval',
      'pdf-forms',
      '--with-model',
      '--provider',
      'openai-compatible',
      '--base-url',
      p.url,
      '--model',
      'loopback-gpt',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as TriggerEvalRes;
    expect(out.model).toBe('openai-compatible:loopback-gpt');
    expect(out.estimate).toMatchObject({ calls: 3, cost: null });
    expect(p.requests).toHaveLength(3);
    const s = out.skills[0]!;
    expect(s.phase1.recall).toBe(1);
    expect(s.turn).toMatchObject({ true_positives: 2, false_negatives: 1, recall: 0.667, precision: 1 });
  });

  it('refuses to ask a priced model above the cost cap, sending nothing', async () => {
    const h = await home();
    const p = await scriptedProvider([]);
    const r = await runCli(
      [
        '--home',
        h,
        'skills',
        'trigger-eval',
        'pdf-forms',
        '--with-model',
        '--max-cost',
        '0',
        '--provider',
        'openai',
        '--base-url',
        p.url,
        '--model',
        'gpt-4o',
      ],
      { OPENAI_API_KEY: 'sk-test' },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/would cost about \$0\.\d+, above the cap of \$0\.00/);
    expect(p.requests).toHaveLength(0);
  });
});
