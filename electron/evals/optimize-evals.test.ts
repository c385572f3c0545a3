// `skills/optimize` with `evals`: the skill's output evals are the DSPy train and
// validation split; the validation evals run before and after through the real sidecar and the
// loopback provider; the optimized module is saved as a new version and both pass rates are kept.
import { describe, expect, it } from 'vitest';
import { NO_VENV } from '../sidecar-client/test-lm.js';
import { loopbackHost, skipWithout } from '../test-support/index.js';
import { evalsSplit, nextPatchVersion, signatureFields } from './optimize-evals.js';

const reply = (answer: string) =>
  `[[ ## reasoning ## ]]\nCompared the claims.\n\n[[ ## contradictions ## ]]\n${answer}\n\n[[ ## completed ## ]]`;

const evalsFile = {
  evals: [
    {
      id: 1,
      prompt: 'Mara was born in Elst. Mara was born in Vost.',
      context: { claims: 'Mara was born in Elst. Mara was born in Vost.' },
      expected_output: 'birthplace: Elst vs Vost',
    },
    {
      id: 2,
      prompt: 'The bridge opened in 1901. The bridge opened in 1910.',
      context: { claims: 'The bridge opened in 1901. The bridge opened in 1910.' },
      expected_output: 'opening year: 1901 vs 1910',
    },
    {
      id: 3,
      prompt: 'Tom is 30. Tom is 41.',
      context: { claims: 'Tom is 30. Tom is 41.' },
      expected_output: 'age: 30 vs 41',
      assertions: [{ type: 'contains', value: 'age: 30 vs 41' }],
    },
    { id: 4, prompt: 'are there contradictions in my notes', should_trigger: true },
  ],
};

const pkg = {
  name: 'Claim Checker',
  description: 'Finds claims that contradict each other.',
  version: '1.0.0',
  source: 'user',
  artifacts: [
    { kind: 'prompt_template', name: 'Check', content: 'Contradictions in: {{ claims }}' },
    {
      kind: 'dspy_module',
      name: 'DSPy Check',
      content: JSON.stringify({ template_id: 'chain_of_thought', signature: 'claims -> contradictions' }),
      metadata: { fallback_artifact: 'Check' },
    },
    {
      kind: 'resource',
      name: 'evals/evals.json',
      content: JSON.stringify(evalsFile),
      metadata: { path: 'evals/evals.json' },
    },
  ],
};

describe('the evals split', () => {
  it('takes every third output eval with an expected output for validation', () => {
    const s = evalsSplit(evalsFile as never, 'claims -> contradictions');
    expect(s.validation_ids).toEqual(['3']);
    expect(s.train).toEqual([
      { claims: evalsFile.evals[0]!.prompt, contradictions: 'birthplace: Elst vs Vost' },
      { claims: evalsFile.evals[1]!.prompt, contradictions: 'opening year: 1901 vs 1910' },
    ]);
    expect(() => evalsSplit({ evals: [evalsFile.evals[3]!] } as never, 'a -> b')).toThrow(/at least 2/);
    expect(signatureFields('claims: list[str], context -> answer: str')).toEqual({
      input: 'claims',
      output: 'answer',
    });
    expect(nextPatchVersion('1.2.9-beta')).toBe('1.2.10');
  });
});

describe.skipIf(skipWithout(NO_VENV, 'skills/optimize with evals'))(
  'skills/optimize with evals (needs sidecar/.venv)',
  () => {
    it('optimizes on the train split, shows the validation pass rate before and after, saves a new version', async () => {
      const { host, provider, ctx } = await loopbackHost([
        { text: reply('none found') },
        { text: reply('age: 30 vs 41') },
      ]);
      await host.handlers['skills/import-package']({ package: pkg }, ctx);

      const { optimized } = await host.handlers['skills/optimize'](
        {
          name: 'Claim Checker',
          artifact: 'DSPy Check',
          evals: true,
          optimizer: 'labeled_few_shot',
          evaluate: false,
        },
        ctx,
      );
      expect(optimized.examples).toBe(2);
      expect(optimized.evals).toEqual({
        train: 2,
        validation: 1,
        before: { passed: 0, total: 1, pass_rate: 0 },
        after: { passed: 1, total: 1, pass_rate: 1 },
        version: '1.0.1',
        previous_version: '1.0.0',
      });
      // The run after optimizing sent the training evals as demos; the one before did not.
      const sent = provider.requests.map((r) => JSON.stringify(r.body));
      expect(sent).toHaveLength(2);
      expect(sent[0]).not.toContain('opening year: 1901 vs 1910');
      expect(sent[1]).toContain('opening year: 1901 vs 1910');

      const versions = await host.handlers['skills/versions']({ name: 'Claim Checker' }, ctx);
      expect(versions.current?.version).toBe('1.0.1');
      expect(versions.versions.map((v) => [v.version, v.origin])).toContainEqual(['1.0.0', 'save']);
      const history = await host.handlers['skills/eval-history']({ name: 'Claim Checker' }, ctx);
      expect(history.runs.map((r) => [r.origin, r.version, r.pass_rate])).toEqual([
        ['optimize_after', '1.0.1', 1],
        ['optimize_before', '1.0.0', 0],
      ]);
    }, 180_000);
  },
);
