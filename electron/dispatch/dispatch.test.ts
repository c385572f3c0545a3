import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../contract/errors.js';
import { createLlm, type Llm, type LoopbackProvider, startLoopbackProvider } from '../llm/index.js';

const NO_KEYS_WITH_TEST = { get: () => 'sk-test' };

import { runAssertions } from '../evals/index.js';
import { modelFamily, resolveVariants } from '../kinds/index.js';
import { packageToRows } from '../skills/convert.js';
import { type SkillPackage, validatePackage } from '../skills/package-schema.js';
import type { SkillArtifact } from '../store/skill-repository.js';
import { openStore, type SkillStore } from '../store/stores.js';
import { PromptEngine } from '../templates/index.js';
import { tempDir } from '../test-support/index.js';
import { TraceStore } from '../traces/trace-store.js';
import { ArtifactDispatcher, mergeContext } from './dispatcher.js';
import {
  type DspyRunner,
  dspyModuleHandler,
  promptTemplateHandler,
  textHandler,
  unavailableHandler,
} from './handlers.js';
import { createRunScope } from './run-scope.js';
import { createSkillRuntime } from './runtime.js';
import type { ArtifactHandler, ArtifactHandlers } from './types.js';

/** Every kind's handler: text kinds and prompts real, the rest as given or unavailable here. */
function handlersWith(
  prompt: ArtifactHandler<'prompt_template'>,
  more: Partial<Pick<ArtifactHandlers, 'code_template' | 'dspy_module'>> = {},
): ArtifactHandlers {
  return {
    description: textHandler('description'),
    approach: textHandler('approach'),
    example: textHandler('example'),
    resource: textHandler('resource'),
    prompt_template: prompt,
    code_template: more.code_template ?? unavailableHandler('code_template', 'not in this test'),
    dspy_module: more.dspy_module ?? unavailableHandler('dspy_module', 'not in this test'),
    wasm_component: {
      kind: 'wasm_component',
      execute: async () => ({
        ok: false,
        error: { code: 'HANDLER_NOT_AVAILABLE', message: 'not in this test' },
        partial: {},
      }),
    },
    llm_agent: {
      kind: 'llm_agent',
      execute: async () => ({
        ok: false,
        error: { code: 'HANDLER_NOT_AVAILABLE', message: 'not in this test' },
        partial: {},
      }),
    },
  };
}

function install(store: SkillStore, raw: Record<string, unknown>) {
  const r = validatePackage(raw);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  const rows = packageToRows(r.value as SkillPackage);
  store.repo.createSkill(rows.skill);
  for (const a of rows.artifacts) store.repo.addArtifact(a);
  const skill = store.repo.getSkill(rows.skill.id)!;
  return { skill, ref: { id: skill.id, name: skill.name, scope: store.scope, version: skill.version } };
}

const SKILL = {
  name: 'Greeter',
  description: 'Greets people',
  artifacts: [
    { kind: 'description', name: 'About', ordinal: 0, content: 'Greets by name.' },
    { kind: 'approach', name: 'How', ordinal: 1, content: 'Be brief.' },
    {
      kind: 'prompt_template',
      name: 'Greet',
      ordinal: 2,
      content: 'Say hello to {{ who }}{% if polite %} politely{% endif %}.',
      metadata: {
        assertions: [
          { type: 'length', min: 2, max: 200, severity: 'soft' },
          { type: 'pattern', check: 'regex_match', pattern: 'Hello', severity: 'hard' },
        ],
      },
    },
    {
      kind: 'prompt_template',
      name: 'Greet',
      ordinal: 3,
      model_variant: 'anthropic',
      content: '<who>{{ who }}</who> Greet them.',
    },
    { kind: 'example', name: 'Ex', ordinal: 4, content: 'Hello, Ann!' },
  ],
};

let provider: LoopbackProvider;
let openai: Llm;
let anthropic: Llm;

beforeAll(async () => {
  provider = await startLoopbackProvider({
    script: [
      {
        text: 'Hello, Ann!',
        usage: { input_tokens: 11, output_tokens: 3 },
        expect: { format: 'openai', last_user_contains: 'Say hello to Ann' },
      },
      {
        text: 'Hello from Claude',
        usage: { input_tokens: 9, output_tokens: 4 },
        expect: { format: 'anthropic', last_user_contains: '<who>Bo</who>' },
      },
      { text: 'Goodbye', expect: { format: 'openai' } },
      { text: 'slow', delay_ms: 5000 },
    ],
  });
  const keys = { get: () => 'sk-test' };
  openai = createLlm({ provider: 'openai', model: 'gpt-4.1-mini', baseUrl: provider.url }, { keys });
  anthropic = createLlm(
    { provider: 'anthropic', model: 'claude-sonnet-4-5', baseUrl: provider.url },
    { keys },
  );
});
afterAll(async () => provider?.close());

function setup() {
  const store = openStore('account', tempDir())!;
  const traces = new TraceStore(store.db);
  const engine = new PromptEngine();
  const prompt = promptTemplateHandler(engine);
  const dispatcher = new ArtifactDispatcher(handlersWith(prompt), traces);
  return { store, traces, dispatcher, prompt };
}

describe('PromptEngine', () => {
  const engine = new PromptEngine();
  it('renders, and is strict about printing undefined variables while optional checks still work', () => {
    expect(engine.renderStr('Hi {{ name }}{% if x %}!{% endif %}', { name: 'Ann' })).toBe('Hi Ann');
    expect(() => engine.renderStr('Hi {{ nope }}', {})).toThrow(/"nope" is not defined at line 1, column 7/);
    expect(() => engine.renderStr('{% if x %}{% endif %}', {}, { undefined: 'strict' })).toThrow(AppError);
    expect(engine.renderStr('[{{ x }}]', {}, { undefined: 'lenient' })).toBe('[]');
  });

  it('reports syntax errors with line and column, and validates without rendering', () => {
    const r = engine.validate('line one\nline {{ two + }}');
    expect(r).toMatchObject({ ok: false, line: 2, column: 15 });
    expect(engine.validate('{% for x in xs %}{{ x }}{% endfor %}')).toEqual({ ok: true });
    try {
      engine.renderStr('a\n\n{% if %}', {});
    } catch (e) {
      expect(e).toMatchObject({ code: 'TEMPLATE_SYNTAX', details: { line: 3 } });
    }
  });

  it('bounds runaway templates', () => {
    expect(() =>
      engine.renderStr(
        '{% for i in range(10000) %}{% for j in range(10000) %}{{ j }}{% endfor %}{% endfor %}',
        {},
      ),
    ).toThrow(/fuel/);
  });
});

describe('model variants', () => {
  const rows = (variants: Array<string | null>) =>
    variants.map(
      (v, i) => ({ name: 'P', kind: 'prompt_template', model_variant: v, ordinal: i }) as SkillArtifact,
    );
  it('picks exact family, then the default, then the first by ordinal', () => {
    expect(resolveVariants(rows(['openai', null, 'anthropic']), 'anthropic')[0]!.model_variant).toBe(
      'anthropic',
    );
    expect(resolveVariants(rows(['openai', null]), 'google')[0]!.model_variant).toBeNull();
    expect(resolveVariants(rows(['openai', 'default']), 'xai')[0]!.model_variant).toBe('default');
    expect(resolveVariants(rows(['openai', 'anthropic']), 'xai')[0]!.model_variant).toBe('openai');
    expect(modelFamily('openai-compatible', 'claude-3-haiku')).toBe('anthropic');
    expect(modelFamily('openai', 'gpt-4.1')).toBe('openai');
  });
});

describe('ArtifactDispatcher', () => {
  it('runs a skill: injects text kinds, renders and calls the model, checks assertions, writes one trace per artifact', async () => {
    const { store, traces, dispatcher } = setup();
    const { skill, ref } = install(store, SKILL);
    const results = await dispatcher.runSkill(createRunScope({ session_id: 's1', llm: openai }), {
      skill: ref,
      artifacts: skill.artifacts,
      variables: { who: 'Ann' },
    });
    expect(results.map((r) => [r.artifact.kind, r.ok])).toEqual([
      ['description', true],
      ['approach', true],
      ['prompt_template', true],
      ['example', true],
    ]);
    const p = results[2]!;
    expect(p.artifact.model_variant).toBeNull();
    expect(p.output).toMatchObject({
      text: 'Hello, Ann!',
      input_tokens: 11,
      output_tokens: 3,
      model_id: 'openai:gpt-4.1-mini',
    });
    expect(p.assertions.map((a) => a.passed)).toEqual([true, true]);
    const rows = traces.list({ session_id: 's1' });
    expect(rows).toHaveLength(4);
    const row = traces.get(p.trace_id)!;
    expect(row).toMatchObject({
      session_id: 's1',
      skill_id: skill.id,
      artifact_kind: 'prompt_template',
      rendered_input: 'Say hello to Ann.',
      raw_output: 'Hello, Ann!',
      error: null,
      input_tokens: 11,
      output_tokens: 3,
      model_id: 'openai:gpt-4.1-mini',
      assertions_run: 2,
      assertions_passed: 2,
    });
    expect(row.completed_at).not.toBeNull();
    expect(row.estimated_cost).toBeGreaterThan(0);
  });

  it('selects the model family variant (Anthropic wire format)', async () => {
    const { store, dispatcher } = setup();
    const { skill, ref } = install(store, SKILL);
    const results = await dispatcher.runSkill(createRunScope({ session_id: 's2', llm: anthropic }), {
      skill: ref,
      artifacts: skill.artifacts,
      variables: { who: 'Bo' },
      artifact: 'Greet',
    });
    expect(results).toHaveLength(1);
    expect(results[0]!.artifact.model_variant).toBe('anthropic');
    expect(results[0]!.output?.text).toBe('Hello from Claude');
  });

  it('aborts on a failed hard assertion and records it', async () => {
    const { store, traces, dispatcher } = setup();
    const { skill, ref } = install(store, SKILL);
    const results = await dispatcher.runSkill(createRunScope({ session_id: 's3', llm: openai }), {
      skill: ref,
      artifacts: skill.artifacts,
      variables: { who: 'X' },
    });
    const p = results.at(-1)!;
    expect(p.artifact.name).toBe('Greet');
    expect(p).toMatchObject({ ok: false, aborted: true, error: { code: 'ASSERTION_FAILED' } });
    expect(results.find((r) => r.artifact.kind === 'example')).toBeUndefined();
    expect(traces.get(p.trace_id)).toMatchObject({
      assertions_run: 2,
      assertions_passed: 1,
      raw_output: 'Goodbye',
    });
  });

  it('without a model, records a failed trace with the rendered input and a clear error', async () => {
    const { store, traces, dispatcher } = setup();
    const { skill, ref } = install(store, SKILL);
    const [r] = await dispatcher.runSkill(createRunScope({ session_id: 's4', llm: null }), {
      skill: ref,
      artifacts: skill.artifacts,
      variables: { who: 'Z' },
      artifact: 'Greet',
    });
    expect(r!.error).toMatchObject({ code: 'LLM_NOT_CONFIGURED' });
    expect(traces.get(r!.trace_id)).toMatchObject({
      rendered_input: 'Say hello to Z.',
      error_code: 'LLM_NOT_CONFIGURED',
    });
  });

  it('records a cancelled execution', async () => {
    const { store, traces, dispatcher } = setup();
    const { skill, ref } = install(store, SKILL);
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 100);
    const [r] = await dispatcher.runSkill(
      createRunScope({ session_id: 's5', llm: openai, signal: abort.signal }),
      { skill: ref, artifacts: skill.artifacts, variables: { who: 'C' }, artifact: 'Greet' },
    );
    expect(r!.error?.code).toBe('CANCELLED');
    const row = traces.get(r!.trace_id)!;
    expect(row).toMatchObject({ error_code: 'CANCELLED' });
    expect(row.completed_at).not.toBeNull();
  });

  it('reports kinds without a handler as a clear, recorded error', async () => {
    const { store, traces, dispatcher } = setup();
    const { skill, ref } = install(store, {
      name: 'Code',
      description: 'd',
      artifacts: [{ kind: 'code_template', name: 'C', content: 'print(1)' }],
    });
    const [r] = await dispatcher.runSkill(createRunScope({ session_id: 's6', llm: null }), {
      skill: ref,
      artifacts: skill.artifacts,
    });
    expect(r!.error?.code).toBe('HANDLER_NOT_AVAILABLE');
    expect(traces.get(r!.trace_id)).toMatchObject({ error_code: 'HANDLER_NOT_AVAILABLE' });
  });

  it('falls back from dspy_module to its prompt template when the sidecar is unavailable, and says so', async () => {
    const store = openStore('account', tempDir())!;
    const traces = new TraceStore(store.db);
    const prompt = promptTemplateHandler(new PromptEngine());
    const down: DspyRunner = {
      execute: async () => ({
        ok: false,
        error: { code: 'SIDECAR_UNAVAILABLE', message: 'Python is not installed' },
      }),
    };
    const d = new ArtifactDispatcher(
      handlersWith(prompt, { dspy_module: dspyModuleHandler(down, prompt) }),
      traces,
    );
    const { skill, ref } = install(store, {
      name: 'Checker',
      description: 'd',
      artifacts: [
        { kind: 'prompt_template', name: 'Check', content: 'Check {{ claims }}' },
        {
          kind: 'dspy_module',
          name: 'DSPy',
          content: '{"template_id": "predict", "signature": "claims -> verdict"}',
          metadata: { fallback_artifact: 'Check' },
        },
      ],
    });
    const fake: Llm = {
      provider: 'openai',
      model: 'm',
      generate: async () => ({
        text: 'fine',
        tool_calls: [],
        usage: { input_tokens: 1, output_tokens: 1 },
        estimated_cost: null,
        finish_reason: 'stop',
        provider: 'openai',
        model: 'm',
      }),
      stream: async function* () {},
    };
    const results = await d.runSkill(createRunScope({ session_id: 's7', llm: fake }), {
      skill: ref,
      artifacts: skill.artifacts,
      variables: { claims: 'a, b' },
    });
    // The fallback prompt runs only as the fallback.
    expect(results).toHaveLength(1);
    expect(results[0]!.output).toMatchObject({
      text: 'fine',
      fallback: { artifact: 'Check', reason: 'Python is not installed' },
    });
    expect(traces.get(results[0]!.trace_id)!.rendered_input).toMatch(
      /^\[fallback: ran prompt_template "Check"/,
    );
  });

  it('runs a code_template in the sandbox and passes its submitted data to later artifacts', async () => {
    const home = tempDir();
    const store = openStore('account', home)!;
    const traces = new TraceStore(store.db);
    const runtime = createSkillRuntime({ traces, home, sidecar: false });
    try {
      const { skill, ref } = install(store, {
        name: 'Pipeline',
        description: 'd',
        artifacts: [
          {
            kind: 'code_template',
            name: 'Count',
            ordinal: 0,
            content: "import skilldesk\nskilldesk.submit({'n': len({{ words }}), 'who': 'model'})",
          },
          { kind: 'description', name: 'After', ordinal: 1, content: 'done' },
        ],
      });
      const results = await runtime.dispatcher.runSkill(
        createRunScope({ session_id: 's8', harness: { who: 'harness' }, llm: null }),
        { skill: ref, artifacts: skill.artifacts, variables: { words: ['a', "b'); import os; ('"] } },
      );
      expect(results[0]).toMatchObject({ ok: true, output: { data: { n: 2, who: 'model' } } });
      expect(traces.get(results[0]!.trace_id)!.raw_output).toBe('{"n":2,"who":"model"}');
      expect(results[1]!.ok).toBe(true);

      const raising = install(store, {
        name: 'Raiser',
        description: 'd',
        artifacts: [
          { kind: 'code_template', name: 'Boom', content: "print('before')\nraise ValueError('boom')" },
        ],
      });
      const [failed] = await runtime.dispatcher.runSkill(createRunScope({ session_id: 's9', llm: null }), {
        skill: raising.ref,
        artifacts: raising.skill.artifacts,
      });
      expect(failed).toMatchObject({
        ok: false,
        error: { message: expect.stringMatching(/ValueError: boom/) },
      });
      expect(failed!.error!.details).toMatchObject({ traceback: expect.stringMatching(/ValueError/) });
      expect(traces.get(failed!.trace_id)).toMatchObject({ raw_output: 'before\n' });
    } finally {
      await runtime.dispose();
    }
  }, 120_000);
});

describe('handlers return outcomes as data', () => {
  it('keys handlers by kind, so leaving one out fails tsc', () => {
    const prompt = promptTemplateHandler(new PromptEngine());
    const { dspy_module: _omitted, ...incomplete } = handlersWith(prompt);
    const traces = new TraceStore(openStore('account', tempDir())!.db);
    // @ts-expect-error dspy_module has no handler
    expect(new ArtifactDispatcher(incomplete, traces)).toBeInstanceOf(ArtifactDispatcher);
    // @ts-expect-error a handler filed under another kind
    const swapped: ArtifactHandlers = { ...handlersWith(prompt), approach: textHandler('example') };
    expect(swapped.approach.kind).toBe('example');
  });

  it('a template error is a failed result, not an exception', async () => {
    const handler = promptTemplateHandler(new PromptEngine());
    const r = await handler.execute(
      { name: 'P', kind: 'prompt_template', content: 'Hi {{ who }}', metadata: null } as SkillArtifact,
      {
        scope: createRunScope({ session_id: 's', llm: null }),
        skill: {} as never,
        artifacts: [],
        variables: {},
      },
    );
    expect(r).toMatchObject({ ok: false, error: { code: 'TEMPLATE_RENDER' }, partial: {} });
  });

  it('a model refusal comes back as LLM_REFUSED with what the model said, and is traced', async () => {
    const refusing = await startLoopbackProvider({
      script: [{ text: 'I cannot help with that.', finish_reason: 'content_filter' }],
    });
    try {
      const { store, traces, dispatcher } = setup();
      const { skill, ref } = install(store, SKILL);
      const llm = createLlm(
        { provider: 'openai', model: 'gpt-4.1-mini', baseUrl: refusing.url },
        { keys: NO_KEYS_WITH_TEST },
      );
      const [r] = await dispatcher.runSkill(createRunScope({ session_id: 'refused', llm }), {
        skill: ref,
        artifacts: skill.artifacts,
        variables: { who: 'Ann' },
        artifact: 'Greet',
      });
      expect(r).toMatchObject({ ok: false, output: null, error: { code: 'LLM_REFUSED' } });
      expect(traces.get(r!.trace_id)).toMatchObject({
        error_code: 'LLM_REFUSED',
        rendered_input: 'Say hello to Ann.',
        raw_output: 'I cannot help with that.',
      });
    } finally {
      await refusing.close();
    }
  });

  it('a handler that throws is a bug: recorded as INTERNAL, never a rejected dispatch', async () => {
    const store = openStore('account', tempDir())!;
    const traces = new TraceStore(store.db);
    const broken: ArtifactHandler<'prompt_template'> = {
      kind: 'prompt_template',
      execute: async () => {
        throw new TypeError('oops');
      },
    };
    const d = new ArtifactDispatcher(handlersWith(broken), traces);
    const { skill, ref } = install(store, SKILL);
    const [r] = await d.runSkill(createRunScope({ session_id: 'bug', llm: null }), {
      skill: ref,
      artifacts: skill.artifacts,
      variables: { who: 'A' },
      artifact: 'Greet',
    });
    expect(r!.error).toEqual({ code: 'INTERNAL', message: 'oops' });
    expect(traces.get(r!.trace_id)).toMatchObject({ error_code: 'INTERNAL' });
  });

  it('a program that fails at run time falls back; a cancelled one does not', async () => {
    const store = openStore('account', tempDir())!;
    const traces = new TraceStore(store.db);
    const prompt = promptTemplateHandler(new PromptEngine());
    const failing: DspyRunner = {
      execute: async () => ({
        ok: false,
        error: { code: 'SIDECAR_FAILED', message: 'AdapterParseError: bad reply' },
      }),
    };
    const d = new ArtifactDispatcher(
      handlersWith(prompt, { dspy_module: dspyModuleHandler(failing, prompt) }),
      traces,
    );
    const { skill, ref } = install(store, {
      name: 'Checker',
      description: 'd',
      artifacts: [
        { kind: 'prompt_template', name: 'Check', content: 'Check {{ claims }}' },
        {
          kind: 'dspy_module',
          name: 'DSPy',
          content: '{"template_id": "predict", "signature": "claims -> verdict"}',
          metadata: { fallback_artifact: 'Check' },
        },
      ],
    });
    const [r] = await d.runSkill(createRunScope({ session_id: 'sf', llm: null }), {
      skill: ref,
      artifacts: skill.artifacts,
      variables: { claims: 'a, b' },
    });
    // With no model the fallback prompt renders, then fails for want of a model: the hand-over is what counts.
    expect(r!.error?.code).toBe('LLM_NOT_CONFIGURED');
    expect(traces.get(r!.trace_id)!.rendered_input).toMatch(
      /^\[fallback: ran prompt_template "Check" because the DSPy program failed \(SIDECAR_FAILED: AdapterParseError: bad reply\)\]\nCheck a, b/,
    );
    // Cancelled while the program ran: nothing more runs.
    const cancelling: DspyRunner = {
      execute: async () => ({ ok: false, error: { code: 'CANCELLED', message: 'cancelled' } }),
    };
    const d2 = new ArtifactDispatcher(
      handlersWith(prompt, { dspy_module: dspyModuleHandler(cancelling, prompt) }),
      traces,
    );
    const [c] = await d2.runSkill(createRunScope({ session_id: 'sf', llm: null }), {
      skill: ref,
      artifacts: skill.artifacts,
      variables: { claims: 'a, b' },
    });
    expect(c!.error?.code).toBe('CANCELLED');
    expect(traces.get(c!.trace_id)!.rendered_input).toMatch(/^\{"template_id":"predict"/);
  });
});

describe('context merging', () => {
  it('lets harness keys win over the model and drops prototype keys', () => {
    const merged = mergeContext(
      JSON.parse('{"session_id": "spoof", "x": 1, "__proto__": {"polluted": true}}'),
      { session_id: 'real' },
    );
    expect(merged).toEqual({ session_id: 'real', x: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('assertions', () => {
  it('structural: JSON Schema with ajv', async () => {
    const schema = { type: 'object', required: ['items'], properties: { items: { type: 'array' } } };
    const a = [
      { type: 'structural' as const, check: 'json_schema' as const, schema, severity: 'hard' as const },
    ];
    expect((await runAssertions(a, { text: '{"items": []}', data: undefined }, {}))[0]!.passed).toBe(true);
    const bad = await runAssertions(a, { text: '{"items": 3}', data: undefined }, {});
    expect(bad[0]).toMatchObject({ passed: false, explanation: '/items must be array' });
    expect((await runAssertions(a, { text: 'not json', data: undefined }, {}))[0]!.explanation).toMatch(
      /not JSON/,
    );
    expect((await runAssertions(a, { text: null, data: { items: [1] } }, {}))[0]!.passed).toBe(true);
  });

  it('length counts characters', async () => {
    const a = [
      { type: 'length' as const, check: 'char_range' as const, min: 3, max: 5, severity: 'soft' as const },
    ];
    expect((await runAssertions(a, { text: 'abcd', data: undefined }, {}))[0]!.passed).toBe(true);
    expect((await runAssertions(a, { text: 'ab', data: undefined }, {}))[0]!.passed).toBe(false);
    expect((await runAssertions(a, { text: '😀😀😀', data: undefined }, {}))[0]!.passed).toBe(true);
  });

  it('pattern: match and no-match, with catastrophic regexes cut off', async () => {
    const p = (pattern: string, check: 'regex_match' | 'regex_no_match') => [
      { type: 'pattern' as const, check, pattern, severity: 'hard' as const },
    ];
    expect(
      (await runAssertions(p('^ok', 'regex_match'), { text: 'ok then', data: undefined }, {}))[0]!.passed,
    ).toBe(true);
    expect(
      (await runAssertions(p('```', 'regex_no_match'), { text: '```js', data: undefined }, {}))[0]!.passed,
    ).toBe(false);
    const evil = await runAssertions(
      p('^(a+)+$', 'regex_match'),
      { text: `${'a'.repeat(40)}!`, data: undefined },
      {},
    );
    expect(evil[0]).toMatchObject({ passed: false, explanation: expect.stringMatching(/catastrophic/) });
  });

  it('semantic: asks the model, and is skipped without one', async () => {
    const a = [
      {
        type: 'semantic' as const,
        check: 'llm_eval' as const,
        prompt: 'Is it friendly?',
        expected: 'yes',
        severity: 'soft' as const,
      },
    ];
    expect((await runAssertions(a, { text: 'Hi!', data: undefined }, { llm: null }))[0]).toMatchObject({
      skipped: true,
    });
    const judge = await startLoopbackProvider({
      script: [
        { text: 'Yes.', expect: { last_user_contains: 'Is it friendly?', system_contains: 'yes or no' } },
        { text: 'no' },
      ],
    });
    try {
      const llm = createLlm(
        { provider: 'openai', model: 'gpt-4.1-mini', baseUrl: judge.url },
        { keys: NO_KEYS_WITH_TEST },
      );
      expect((await runAssertions(a, { text: 'Hi!', data: undefined }, { llm }))[0]!.passed).toBe(true);
      const failed = await runAssertions(a, { text: 'Go away', data: undefined }, { llm });
      expect(failed[0]).toMatchObject({ passed: false, explanation: expect.stringMatching(/answered "no"/) });
      expect(judge.requests[0]!.body).toMatchObject({
        messages: expect.arrayContaining([expect.objectContaining({ role: 'user' })]),
      });
    } finally {
      await judge.close();
    }
  });
});

describe('PromptEngine.variables', () => {
  it('lists the variables a template reads, branches and filters included, not its own names', () => {
    const engine = new PromptEngine();
    expect(engine.variables('Hi {{ user.name }} and {{ x | upper }}')).toEqual(['user', 'x']);
    expect(engine.variables('{% if formal %}Dear {{ title }}{% else %}Hi {{ first }}{% endif %}')).toEqual([
      'formal',
      'title',
      'first',
    ]);
    expect(engine.variables('{% for k, v in pairs %}{{ k }}={{ v }}{{ loop.index }}{% endfor %}')).toEqual([
      'pairs',
    ]);
    expect(engine.variables('{% set n = 3 %}{{ n }} {{ "lit" }}')).toEqual([]);
  });
});
