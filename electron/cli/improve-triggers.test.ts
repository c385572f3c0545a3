import { describe, expect, it } from 'vitest';
import type { ImproveTriggersRes } from '../contract/skills.js';
import { NARROW_PDF, runCli, scriptedProvider, tempDir, triggerEvalSkill } from '../test-support/index.js';

const TRIGGERS = NARROW_PDF.triggers;
const NARROW = NARROW_PDF.description;
const PROPOSAL = NARROW_PDF.better;

async function home(): Promise<string> {
  const h = tempDir();
  for (const dir of [
    triggerEvalSkill(NARROW_PDF.name, NARROW, TRIGGERS),
    ...NARROW_PDF.others.map(([n, d]) => triggerEvalSkill(n, d)),
  ]) {
    const r = await runCli(['--home', h, 'skills', 'import', '--no-embed', dir]);
    expect(r.code, r.stderr).toBe(0);
  }
  return h;
}

const model = (url: string) => [
  '--provider',
  'openai-compatible',
  '--base-url',
  url,
  '--model',
  'loopback-gpt',
];

describe('skilldesk skills improve-triggers', () => {
  it('proposes from the evals phase 1 misses, checks the held-out third, and saves only with --apply', async () => {
    const h = await home();
    const p = await scriptedProvider([
      {
        text: `Here it is:\n\`\`\`json\n${JSON.stringify(PROPOSAL)}\n\`\`\``,
        expect: { last_user_contains: 'merge these two scanned contracts into one' },
      },
    ]);
    const r = await runCli([
      '--home',
      h,
      '--json',
      'skills',
      'improve-triggers',
      'pdf-tools',
      '--rounds',
      '1',
      ...model(p.url),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as ImproveTriggersRes;
    expect(out).toMatchObject({
      name: 'pdf-tools',
      scope: 'account',
      train: 6,
      held_out: 3,
      verdict: 'better',
    });
    expect(out.before.train.false_negatives).toBeGreaterThan(0);
    expect(out.best!.description).toBe(PROPOSAL.description);
    expect(out.best!.train.recall).toBe(1);
    expect(out.best!.held_out.recall!).toBeGreaterThan(out.before.held_out.recall ?? 0);
    // The model saw the train part only.
    const sent = JSON.stringify(p.requests);
    expect(sent).toContain('merge these two scanned contracts into one');
    for (const held of [TRIGGERS[2]!, TRIGGERS[5]!, TRIGGERS[8]!]) expect(sent).not.toContain(held.query);
    // Nothing was saved.
    const shown = JSON.parse((await runCli(['--home', h, '--json', 'skills', 'show', 'pdf-tools'])).stdout);
    expect(shown.skill.description).toBe(NARROW);

    // --apply saves the proposal as the next version, through the save's own checks.
    const q = await scriptedProvider([{ text: JSON.stringify(PROPOSAL) }]);
    const applied = await runCli([
      '--home',
      h,
      'skills',
      'improve-triggers',
      'pdf-tools',
      '--rounds',
      '1',
      '--apply',
      ...model(q.url),
    ]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/Saved as 1\.0\.1\./);
    const after = JSON.parse((await runCli(['--home', h, '--json', 'skills', 'show', 'pdf-tools'])).stdout);
    expect(after.skill).toMatchObject({
      version: '1.0.1',
      description: PROPOSAL.description,
      trigger_phrases: PROPOSAL.trigger_phrases,
    });
  });

  it('does not call a proposal better when the held-out third disagrees or does not move', async () => {
    const h = await home();
    // Trigger phrases cut from the train misses fix them and nothing else.
    const verbatim = ['two scanned contracts', 'pages of my invoices'];
    const p = await scriptedProvider([
      { text: JSON.stringify({ description: NARROW, trigger_phrases: verbatim }) },
      { text: JSON.stringify({ description: NARROW, trigger_phrases: [...verbatim, 'capital of france'] }) },
    ]);
    const args = [
      '--home',
      h,
      '--json',
      'skills',
      'improve-triggers',
      'pdf-tools',
      '--rounds',
      '1',
      '--apply',
    ];
    const fitted = await runCli([...args, ...model(p.url)]);
    expect(fitted.code).toBe(1);
    const a = JSON.parse(fitted.stdout) as ImproveTriggersRes & { saved: unknown };
    expect(a.verdict).toBe('not_confirmed');
    expect(a.best!.train.recall).toBe(1);
    expect(a.best!.held_out).toEqual(a.before.held_out);
    expect(a.saved).toBeNull();
    const worse = await runCli([...args, ...model(p.url)]);
    expect(worse.code).toBe(1);
    const b = JSON.parse(worse.stdout) as ImproveTriggersRes;
    expect(b.verdict).toBe('held_out_worse');
    expect(b.best!.held_out.false_positives).toBe(1);
    const shown = JSON.parse((await runCli(['--home', h, '--json', 'skills', 'show', 'pdf-tools'])).stdout);
    expect(shown.skill.version).toBe('1.0.0');
  });

  it('refuses a skill with too few trigger evals to hold any out, naming the file', async () => {
    const h = tempDir();
    const dir = triggerEvalSkill('tiny', 'Fill PDF forms.', TRIGGERS.slice(0, 3));
    expect((await runCli(['--home', h, 'skills', 'import', '--no-embed', dir])).code).toBe(0);
    const r = await runCli([
      '--home',
      h,
      'skills',
      'improve-triggers',
      'tiny',
      ...model('http://127.0.0.1:9'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('needs at least 6');
    expect(r.stderr).toContain('evals/trigger-evals.json');
  });
});
