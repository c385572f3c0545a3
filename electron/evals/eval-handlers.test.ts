// Skill evals through the host with the loopback provider: output evals are chat turns on the
// eval's prompt with the skill read up front (and, as the baseline, with the skill hidden), one failing; trigger evals report the phase-1 rank and
// whether the model chose the skill; every run is remembered per model with tokens, cost and time.
import { describe, expect, it } from 'vitest';
import { loadSeedPackages } from '../skills/index.js';
import { loopbackHost, tempDir } from '../test-support/index.js';
import { EVAL_JUDGE_SKILL, loadEvalPrompts } from './eval-handlers.js';

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
  const { host, provider, ctx } = await loopbackHost(turns as never);
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
      // Eval 2: the chat turn with the skill, then the judge of the statement.
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

describe('skills/eval on a draft', () => {
  const draft = {
    name: 'Draft Helper',
    description: 'Writes limericks about cats in a merry tone.',
    version: '0.1.0',
    source: 'user',
    trigger_phrases: ['write a limerick'],
    artifacts: [
      { kind: 'approach', name: 'SKILL.md', content: 'DRAFT-INSTRUCTIONS: five lines, AABBA.' },
      {
        kind: 'resource',
        name: 'evals/evals.json',
        metadata: { path: 'evals/evals.json' },
        content: JSON.stringify({
          evals: [
            { id: 'lim', prompt: 'please write a limerick about my cat', should_trigger: true },
            {
              id: 'out',
              prompt: 'A limerick about a cat, please.',
              expected_output: 'A five-line limerick',
              assertions: [{ type: 'contains', value: 'cat' }, 'It has five lines'],
              my_note: 'kept',
            },
          ],
        }),
      },
    ],
  };

  it('evaluates a never-saved draft with the model and writes nothing to the store', async () => {
    const { host, provider, ctx } = await hostWith([
      // The trigger eval: phase 1 ranks the draft (only the draft's copy of the catalog has it).
      { text: 'Draft Helper', expect: { last_user_contains: '- Draft Helper:' } },
      // The output eval's turn, then the judge of the statement.
      { text: 'There once was a cat\nwho sat\non a mat\nand grew fat\nthat is that.' },
      { text: 'PASS\nFive lines.', expect: { last_user_contains: 'Statement: It has five lines' } },
    ]);
    const before = await host.handlers['skills/list']({}, ctx);
    const r = await host.handlers['skills/eval']({ name: 'Draft Helper', draft, run_id: 'd1' }, ctx);
    expect(provider.requests.every((q) => q.expectation_error === undefined)).toBe(true);
    expect(r).toMatchObject({ ran: 'draft', total: 2, passed: 2, recorded: null, previous: null });
    const out = r.results.find((x) => x.id === 'out')!;
    expect(out.runs?.[0]?.reply).toContain('There once was a cat');
    expect(out.runs?.[0]?.expectations.map((x) => [x.text, x.passed])).toEqual([
      ['contains "cat"', true],
      ['It has five lines', true],
    ]);
    // The turn read the draft's own instructions, which no store holds.
    expect(JSON.stringify(provider.requests[1]!.body)).toContain('DRAFT-INSTRUCTIONS');
    // Nothing was written: no skill, no version, no remembered run.
    expect(await host.handlers['skills/list']({}, ctx)).toEqual(before);
    await expect(
      (async () => host.handlers['skills/eval-history']({ name: 'Draft Helper' }, ctx))(),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it("evaluates a saved skill's edited draft, compares with the last saved run and records nothing", async () => {
    const { host, ctx } = await hostWith([
      { text: 'Timeline Checker' },
      { text: 'Ann went to school in 1985, before she was born in 1990.' },
      { text: 'PASS\nYes.' },
      { text: 'No contradictions found.' },
      // The draft's run: its single output eval now fails its contains check.
      { text: 'All good.' },
    ]);
    const saved = await host.handlers['skills/eval']({ name: 'Timeline Checker' }, ctx);
    expect(saved.previous).toBeNull();
    const edited = {
      ...pkg,
      artifacts: pkg.artifacts.map((a) =>
        a.name === 'evals/evals.json' ? { ...a, content: JSON.stringify({ evals: [evals.evals[2]] }) } : a,
      ),
    };
    const r = await host.handlers['skills/eval']({ name: 'Timeline Checker', draft: edited }, ctx);
    expect(r).toMatchObject({ ran: 'draft', total: 1, passed: 0, recorded: null });
    expect(r.previous).toMatchObject({ id: saved.recorded, pass_rate: saved.pass_rate });
    expect(r.previous!.results.find((x) => x.id === '3')).toMatchObject({ passed: true });
    const h = await host.handlers['skills/eval-history']({ name: 'Timeline Checker' }, ctx);
    expect(h.runs).toHaveLength(1);
  });

  it("measures phase 1 of a draft's trigger evals with the draft's description, remembering nothing", async () => {
    const { host, ctx } = await hostWith([]);
    const triggers = (d: string) => ({
      ...pkg,
      description: d,
      trigger_phrases: [],
      artifacts: [
        ...pkg.artifacts.filter((a) => a.name !== 'evals/evals.json'),
        {
          kind: 'resource',
          name: 'evals/trigger-evals.json',
          metadata: { path: 'evals/trigger-evals.json' },
          content: JSON.stringify([{ query: 'find contradictions in dated events', should_trigger: true }]),
        },
      ],
    });
    const good = await host.handlers['skills/trigger-eval'](
      { draft: triggers("Checks a story's timeline for contradictions between dated events.") },
      ctx,
    );
    expect(good.skills[0]).toMatchObject({ name: 'Timeline Checker', total: 1 });
    expect(good.skills[0]!.phase1.recall).toBe(1);
    const bad = await host.handlers['skills/trigger-eval'](
      { names: ['Timeline Checker'], draft: triggers('Translates recipes into French.') },
      ctx,
    );
    expect(bad.skills[0]!.phase1.recall).toBe(0);
    // The saved skill still has no trigger-evals file, and nothing was remembered.
    const saved = await host.handlers['skills/trigger-eval']({ names: ['Timeline Checker'] }, ctx);
    expect(saved.skills[0]!.results.map((r) => r.source)).toEqual(['evals/evals.json', 'evals/evals.json']);
    expect(saved.skills[0]!.previous).toBeNull();
  });

  it('refuses a draft whose name is not the one asked for, before anything runs', async () => {
    const { host, provider, ctx } = await hostWith([]);
    await expect(host.handlers['skills/eval']({ name: 'Other Name', draft }, ctx)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    expect(provider.requests).toHaveLength(0);
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

    const { host, provider, ctx } = await loopbackHost(
      [
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
      { deps: { workspace: tempDir() } },
    );
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

describe('output evals run the model, with and without the skill', () => {
  const skill = {
    name: 'Haiku Coach',
    description: 'Coaches haiku writing: three lines, 5-7-5 syllables, a season word.',
    version: '1.0.0',
    source: 'user',
    artifacts: [
      {
        kind: 'approach',
        name: 'SKILL.md',
        content: 'Always include the season word KIGO-WINTER in the haiku.',
      },
      {
        kind: 'resource',
        name: 'evals/evals.json',
        metadata: { path: 'evals/evals.json' },
        content: JSON.stringify({
          evals: [
            {
              id: 7,
              prompt: 'Write a haiku about snow.',
              files: ['evals/files/notes.txt'],
              assertions: [{ type: 'contains', value: 'KIGO-WINTER' }],
            },
          ],
        }),
      },
      {
        kind: 'resource',
        name: 'evals/files/notes.txt',
        metadata: { path: 'evals/files/notes.txt' },
        content: 'ATTACHED-NOTE: the reader likes pine trees.',
      },
    ],
  };

  it('hides the skill from the baseline turn even when the model asks for it, and repeats runs', async () => {
    const { host, provider, ctx } = await loopbackHost([
      // Run 1 with the skill: its instructions and the eval's file are in the request.
      {
        text: 'Pines under KIGO-WINTER snow',
        expect: { tool_result_contains: 'KIGO-WINTER', last_user_contains: 'ATTACHED-NOTE' },
      },
      // Run 1 without it: the model looks for it and is told there is none.
      { tool_calls: [{ name: 'read_skill', arguments: { name: 'haiku coach' } }] },
      {
        tool_calls: [{ name: 'search_skills', arguments: { query: 'haiku coach season word' } }],
        expect: { tool_result_contains: 'no skill named' },
      },
      { text: 'White snow on the pines' },
      // Run 2 of each.
      { text: 'KIGO-WINTER hush' },
      { text: 'Snow falls' },
    ] as never);
    await host.handlers['skills/import-package']({ package: skill }, ctx);
    const r = await host.handlers['skills/eval'](
      { name: 'Haiku Coach', baseline: true, runs: 2, record: false },
      ctx,
    );
    expect(provider.requests.map((q) => q.expectation_error)).toEqual(Array(6).fill(undefined));
    // The search the baseline's model made did not find the hidden skill.
    const searched = JSON.stringify(provider.requests[3]!.body);
    expect(searched).not.toContain('Coaches haiku');
    expect(searched).not.toContain('KIGO-WINTER');
    expect(r).toMatchObject({
      passed: 1,
      total: 1,
      runs_per_configuration: 2,
      baseline: { total: 2, passed: 0, pass_rate: 0 },
    });
    const runs = r.results[0]!.runs!;
    expect(runs.map((x) => [x.configuration, x.run_number, x.passed])).toEqual([
      ['with_skill', 1, true],
      ['without_skill', 1, false],
      ['with_skill', 2, true],
      ['without_skill', 2, false],
    ]);
    expect(runs[1]!.tool_calls.map((c) => [c.name, c.ok])).toEqual([
      ['read_skill', false],
      ['search_skills', true],
    ]);
    expect(runs[0]!.tool_calls).toEqual([]);
  });

  it('refuses an eval naming a file the skill does not bundle', async () => {
    const { host, provider, ctx } = await loopbackHost([{ text: 'never' }] as never);
    const broken = { ...skill, artifacts: skill.artifacts.filter((a) => a.name !== 'evals/files/notes.txt') };
    await host.handlers['skills/import-package']({ package: broken }, ctx);
    await expect(host.handlers['skills/eval']({ name: 'Haiku Coach' }, ctx)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('names the file evals/files/notes.txt'),
    });
    expect(provider.requests).toEqual([]);
  });
});
