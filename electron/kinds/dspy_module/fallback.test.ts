// A dspy_module whose program fails at run time hands over to its prompt template: with the real
// sidecar, a loopback model whose replies DSPy's adapters cannot parse makes the program fail
// (AdapterParseError, reported as SIDECAR_FAILED); the fallback then runs, and the result, the
// trace and the chat's activity line say so.
import { describe, expect, it } from 'vitest';
import { describeRun } from '../../contract/builtin-tools.js';
import { NO_VENV } from '../../sidecar-client/test-lm.js';
import { loopbackHost, skipWithout } from '../../test-support/index.js';
import { fallbackReason } from './index.js';

const pkg = {
  name: 'Claim Checker',
  description: 'Finds contradictions between claims.',
  version: '1.0.0',
  source: 'user',
  artifacts: [
    {
      kind: 'dspy_module',
      name: 'DSPy Check',
      content: JSON.stringify({ template_id: 'predict', signature: 'claims -> contradictions' }),
      metadata: { fallback_artifact: 'Check Prompt' },
    },
    {
      kind: 'prompt_template',
      name: 'Check Prompt',
      content: 'Contradictions in: {{ claims }}',
    },
  ],
};

describe('fallbackReason', () => {
  it('hands over on any failure but a cancel, and says which', () => {
    expect(fallbackReason({ code: 'CANCELLED', message: 'cancelled' })).toBeNull();
    expect(fallbackReason({ code: 'SIDECAR_UNAVAILABLE', message: 'no python' })).toBe('no python');
    expect(fallbackReason({ code: 'SIDECAR_FAILED', message: 'AdapterParseError: x' })).toBe(
      'the DSPy program failed (SIDECAR_FAILED: AdapterParseError: x)',
    );
    expect(fallbackReason({ code: 'SIDECAR_TIMEOUT', message: 'y'.repeat(1000) })!.length).toBeLessThan(400);
  });

  it('the activity line of a run that fell back says so', () => {
    const line = describeRun('Claim Checker', {
      status: 'done',
      args: { name: 'Claim Checker' },
      result: {
        skill: 'Claim Checker',
        outputs: [{ artifact: 'DSPy Check', fallback: { artifact: 'Check Prompt' } }],
      },
      artifacts: ['DSPy Check'],
    });
    expect(line).toBe('Ran Claim Checker · DSPy Check · fell back to Check Prompt');
  });
});

describe.skipIf(skipWithout(NO_VENV, 'dspy_module fallback with the real sidecar'))(
  'dspy_module fallback with the real sidecar (needs sidecar/.venv)',
  () => {
    async function hostWith(turns: unknown[]) {
      const { host, provider, ctx } = await loopbackHost(turns as never);
      await host.handlers['skills/import-package']({ package: pkg }, ctx);
      return { host, provider, ctx };
    }

    it('runs the prompt template when DSPy cannot parse the reply, and the trace says why', async () => {
      const { host, provider, ctx } = await hostWith([
        // DSPy's chat adapter fails on this, then its JSON adapter retry fails too.
        { text: 'not in the format' },
        { text: 'not in the format' },
        {
          text: 'Claim 1 contradicts claim 2.',
          expect: { last_user_contains: 'Contradictions in: A; not A' },
        },
      ]);
      const r = await host.handlers['skills/run'](
        { name: 'Claim Checker', context: { claims: 'A; not A' } },
        ctx,
      );
      expect(provider.requests.map((q) => q.expectation_error)).toEqual([undefined, undefined, undefined]);
      expect(r.ok).toBe(true);
      expect(r.results).toHaveLength(1);
      const [one] = r.results;
      expect(one).toMatchObject({
        artifact: 'DSPy Check',
        kind: 'dspy_module',
        ok: true,
        text: 'Claim 1 contradicts claim 2.',
        fallback: { artifact: 'Check Prompt', reason: expect.stringContaining('the DSPy program failed') },
      });
      expect(one!.fallback!.reason).toMatch(/SIDECAR_FAILED/);
      const { trace } = await host.handlers['traces/get']({ id: one!.trace_id }, ctx);
      expect(trace.rendered_input).toMatch(
        /^\[fallback: ran prompt_template "Check Prompt" because the DSPy program failed/,
      );
      expect(trace.error).toBeNull();
    }, 120_000);
  },
);
