// Skill evals through the host with the loopback provider: output evals run the skill
// through the real provider layer, one of them failing; trigger evals report the phase-1 rank and
// whether the model chose the skill; every run is remembered per model with tokens, cost and time.
import { afterEach, describe, expect, it } from 'vitest';
import { createLlm, type LoopbackProvider, NO_KEYS, startLoopbackProvider } from '../llm/index.js';
import { loadSeedPackages } from '../skills/index.js';
import { tempDir, testHost } from '../test-support/index.js';
import { EVAL_JUDGE_SKILL, loadEvalPrompts } from './eval-handlers.js';

const providers: LoopbackProvider[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.close()));
});

const evals = {
  threshold: 0.8,
  evals: [
    { id: 1, prompt: 'please check the timeline of chapter 2', should_trigger: true },
    {
      id: 2,
      prompt: 'Ann was born in 1990. In 1985 Ann went to school.',
      assertions: [{ type: 'contains', value: '1985' }, 'Names the contradiction'],
    },
    {
      id: 3,
      prompt: 'Bo left on Monday and arrived on Tuesday.',
      assertions: [{ type: 'contains', value: 'No contradictions found' }],
    },
    { id: 4, prompt: 'translate this letter into French', should_trigger: false },
  ],
};

const pkg = {
  name: 'Timeline Checker',
  description: "Checks a story's timeline for contradictions between dated events.",
  version: '1.0.0',
  source: 'user',
  trigger_phrases: ['check the timeline'],
  artifacts: [
    { kind: 'prompt_template', name: 'Check', content: 'List timeline contradictions in: {{ input }}' },
    {
      kind: 'resource',
      name: 'evals/evals.json',
      content: JSON.stringify(evals),
      metadata: { path: 'evals/evals.json' },
    },
  ],
};

async function hostWith(turns: unknown[]) {
  const provider = await startLoopbackProvider({ script: turns as never });
  providers.push(provider);
  const llm = createLlm(
    { provider: 'openai-compatible', baseUrl: provider.url, model: 'loopback-gpt' },
    { keys: NO_KEYS },
  );
  const host = testHost({ llm: () => llm });
  const ctx = { transport: 'in-process' as const };
  await host.handlers['skills/import-package']({ package: pkg }, ctx);
  return { host, provider, ctx };
}

describe('skills/eval with a model', () => {
  it('runs output and trigger evals, one failing, and remembers the pass rate per model', async () => {
    const { host, provider, ctx } = await hostWith([
      // Eval 1: phase 1 ranks the skill; the model is asked which skill it would apply.
      {
        text: 'Timeline Checker',
        usage: { input_tokens: 50, output_tokens: 3 },
        expect: { last_user_contains: '- Timeline Checker:' },
      },
      // Eval 2: the skill's prompt, then the judge of the statement.
      {
        text: 'Ann went to school in 1985, before she was born in 1990.',
        usage: { input_tokens: 40, output_tokens: 20 },
      },
      {
        text: 'PASS\nIt names the school year before the birth.',
        expect: { last_user_contains: 'Statement: Names the contradiction' },
      },
      // Eval 3: the reply lacks "none".
      { text: 'Bo arrives after leaving; that is fine.' },
    ]);
    const progress: unknown[] = [];
    host.events.subscribe('skills/eval-progressed', (p) => progress.push(p));
    const r = await host.handlers['skills/eval']({ name: 'timeline checker', run_id: 'e1' }, ctx);
    expect(provider.requests.every((q) => q.expectation_error === undefined)).toBe(true);
    expect(r).toMatchObject({
      total: 4,
      passed: 3,
      pass_rate: 0.75,
      ok: false,
      model: 'openai-compatible:loopback-gpt',
    });
    const byId = Object.fromEntries(r.results.map((x) => [x.id, x]));
    expect(byId['1']).toMatchObject({
      kind: 'trigger',
      rank: 1,
      model_chose: true,
      model_choice: 'Timeline Checker',
      passed: true,
      input_tokens: 50,
    });
    expect(byId['2']).toMatchObject({ passed: true });
    expect(byId['2']!.checks.map((c) => c.passed)).toEqual([true, true]);
    expect(byId['3']).toMatchObject({
      passed: false,
      reason: expect.stringContaining('No contradictions found'),
    });
    expect(byId['4']).toMatchObject({ kind: 'trigger', rank: null, model_chose: null, passed: true });
    expect(r.input_tokens).toBeGreaterThanOrEqual(90);
    expect(r.recorded).toBeTypeOf('number');
    expect(progress).toHaveLength(4);
    expect(progress[3]).toMatchObject({ run_id: 'e1', done: 4, total: 4 });

    const h = await host.handlers['skills/eval-history']({ name: 'Timeline Checker' }, ctx);
    expect(h.per_model).toMatchObject([
      {
        model: 'openai-compatible:loopback-gpt',
        pass_rate: 0.75,
        total: 4,
        version: '1.0.0',
        origin: 'eval',
      },
    ]);
    expect(h.runs[0]!.input_tokens).toBe(r.input_tokens);
  });

  it('fails a trigger eval the model does not choose, saying which it chose', async () => {
    const { host, ctx } = await hostWith([{ text: 'NONE' }]);
    const r = await host.handlers['skills/eval'](
      { name: 'Timeline Checker', only: 'trigger', record: false },
      ctx,
    );
    expect(r.results[0]).toMatchObject({
      rank: 1,
      model_chose: false,
      passed: false,
      reason: 'ranked 1, but the model chose no skill',
    });
    expect(r.recorded).toBeNull();
    expect((await host.handlers['skills/eval-history']({ name: 'Timeline Checker' }, ctx)).runs).toEqual([]);
  });

  it('stops when cancelled', async () => {
    const { host, ctx } = await hostWith([{ text: 'x', hang: true }]);
    const running = host.handlers['skills/eval']({ name: 'Timeline Checker', run_id: 'slow' }, ctx);
    await expect
      .poll(() => host.handlers['skills/cancel-eval']({ run_id: 'slow' }, ctx))
      .toEqual({ cancelled: true });
    await expect(running).rejects.toMatchObject({ code: 'CANCELLED' });
  });
});

describe('the eval prompts are the "Eval Judge" skill', () => {
  it("ships them as prompt templates and uses a workspace's customized copy over the shipped one", async () => {
    const shipped = loadSeedPackages().find((p) => p.name === EVAL_JUDGE_SKILL)!;
    expect(shipped.artifacts.filter((a) => a.kind === 'prompt_template').map((a) => a.name)).toEqual([
      'Judge System',
      'Judge',
      'Route System',
      'Route',
    ]);
    expect(loadEvalPrompts(null).source).toBe('shipped');

    const provider = await startLoopbackProvider({
      script: [
        {
          text: 'PICK: Timeline Checker',
          expect: { system_contains: 'CUSTOM ROUTER', last_user_contains: 'MSG<please check the timeline' },
        },
        { text: 'Ann went to school in 1985, before she was born in 1990.' },
        {
          text: 'PASS\nIt does.',
          expect: { system_contains: 'CUSTOM JUDGE', last_user_contains: 'CLAIM<Names the contradiction>' },
        },
        { text: 'No contradictions found.' },
      ] as never,
    });
    providers.push(provider);
    const llm = createLlm(
      { provider: 'openai-compatible', baseUrl: provider.url, model: 'loopback-gpt' },
      { keys: NO_KEYS },
    );
    const host = testHost({ llm: () => llm, workspace: tempDir() });
    const ctx = { transport: 'in-process' as const };
    await host.handlers['skills/import-package']({ package: pkg, scope: 'workspace' }, ctx);
    // The fork changes the router (system and message) and the judge; the seed stays as shipped.
    const fork = {
      ...shipped,
      id: undefined,
      source: 'user',
      artifacts: shipped.artifacts.map((a) =>
        a.name === 'Route System'
          ? { ...a, content: 'CUSTOM ROUTER. Answer "PICK: <name>".' }
          : a.name === 'Route'
            ? {
                ...a,
                content:
                  '{% for s in skills %}- {{ s.name }}: {{ s.description }}\n{% endfor %}MSG<{{ message }}>',
              }
            : a.name === 'Judge System'
              ? { ...a, content: 'CUSTOM JUDGE.' }
              : a.name === 'Judge'
                ? { ...a, content: 'OUT<{{ output }}> CLAIM<{{ statement }}>' }
                : a,
      ),
    };
    await host.handlers['skills/import-package']({ package: fork, scope: 'workspace' }, ctx);
    const r = await host.handlers['skills/eval'](
      { name: 'Timeline Checker', scope: 'workspace', record: false },
      ctx,
    );
    expect(provider.requests.map((q) => q.expectation_error)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    const byId = Object.fromEntries(r.results.map((x) => [x.id, x]));
    // The custom routing prompt asked for "PICK: name": the reply is not a bare name, so no choice.
    expect(byId['1']).toMatchObject({ kind: 'trigger', rank: 1, model_choice: null, passed: false });
    expect(byId['2']!.checks.map((c) => c.passed)).toEqual([true, true]);
  });
});
