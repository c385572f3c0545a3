// The agent store over a real host (in-process transport) and the loopback provider: a creation
// repaired in rounds, a refinement whose changes are half accepted, evals with one failing.
import { afterEach, describe, expect, it } from 'vitest';
import {
  createLlm,
  type LoopbackProvider,
  NO_KEYS,
  startLoopbackProvider,
} from '../../../../electron/llm/index.js';
import { NO_VENV } from '../../../../electron/sidecar-client/test-lm.js';
import { quietLogger, skipWithout, testHost } from '../../../../electron/test-support/index.js';
import { invokeChannel } from '../../../../electron/transport/dispatch.js';
import { createClient } from '../../../bridge/client.js';
import { createInProcessTransport } from '../../../bridge/in-process-transport.js';
import { agentReducer, createAgentStore, initialAgentState } from './agent-store.js';

const providers: LoopbackProvider[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.close()));
});

async function storeWith(turns: unknown[]) {
  const provider = await startLoopbackProvider({ script: turns as never });
  providers.push(provider);
  const llm = createLlm(
    { provider: 'openai-compatible', baseUrl: provider.url, model: 'loopback-gpt' },
    { keys: NO_KEYS },
  );
  const host = testHost({ llm: () => llm });
  const client = createClient(
    createInProcessTransport(
      (channel, req) => invokeChannel(host.handlers, channel, req, { transport: 'in-process' }, quietLogger),
      host.events,
    ),
  );
  const store = createAgentStore(client);
  const stop = store.getState().watch();
  return { store, client, stop };
}

const answer = (template: string, extra: { version?: string; artifacts?: unknown[] } = {}) =>
  JSON.stringify({
    package: {
      name: 'Timeline Checker',
      description: "Checks a story's timeline for contradictions.",
      version: extra.version ?? '1.0.0',
      source: 'user',
      trigger_phrases: ['check the timeline'],
      artifacts: [
        { kind: 'description', name: 'Overview', ordinal: 0, content: 'Finds impossible dates.' },
        { kind: 'prompt_template', name: 'Check', ordinal: 1, content: template },
        ...(extra.artifacts ?? []),
      ],
    },
    evals: [
      {
        id: 1,
        prompt: 'Ann was born in 1990. In 1985 Ann went to school.',
        assertions: [{ type: 'contains', value: '1985' }],
      },
      { id: 2, prompt: 'Bo left on Monday.', assertions: [{ type: 'contains', value: 'No contradictions' }] },
      { id: 3, prompt: 'check the timeline of chapter 2', should_trigger: true },
    ],
  });

describe('agent store', () => {
  it('shows the rounds of a creation repaired once', async () => {
    const { store, stop } = await storeWith([
      { text: answer('Check {{ story }}') },
      { text: answer('Check: {{ input }}') },
    ]);
    await store.getState().startCreate("a skill that checks a story's timeline");
    const s = store.getState().create;
    expect(s.busy).toBe(false);
    expect(s.result?.ok).toBe(true);
    expect(s.rounds.map((r) => [r.round, r.ok, r.max_rounds])).toEqual([
      [0, false, 3],
      [1, true, 3],
    ]);
    stop();
  });

  it('offers a refinement as per-artifact changes and applies the half accepted', async () => {
    const { store, stop } = await storeWith([
      {
        text: answer('Check: {{ input }}\nReply as JSON.', {
          version: '1.1.0',
          artifacts: [
            {
              kind: 'dspy_module',
              name: 'Optimized',
              ordinal: 2,
              content: '{"template_id": "chain_of_thought", "signature": "input -> output"}',
              metadata: { fallback_artifact: 'Check' },
            },
          ],
        }),
      },
    ]);
    const base = JSON.parse(answer('Check: {{ input }}'));
    // A draft as the editor holds it (evals included as the Agent Skills file).
    const editorDraft = {
      ...base.package,
      artifacts: [
        ...base.package.artifacts,
        {
          kind: 'resource',
          name: 'evals/evals.json',
          content: JSON.stringify({ evals: base.evals }),
          metadata: { path: 'evals/evals.json' },
        },
      ],
    };
    await store.getState().startRefine(editorDraft, 'add a dspy_module and reply as JSON');
    const r = store.getState().refine;
    expect(r.result?.changes.map((c) => c.key)).toEqual(['fields', 'artifact:Check', 'artifact:Optimized']);
    expect(Object.values(r.accepted)).toEqual([true, true, true]);
    store.getState().dispatch({ type: 'change/toggled', key: 'artifact:Check', accepted: false });
    store.getState().dispatch({ type: 'change/toggled', key: 'fields', accepted: false });
    const merged = (await store.getState().applyAccepted())!;
    expect(merged.version).toBe('1.0.0');
    const arts = merged.artifacts as Array<{ name: string; content: string }>;
    expect(arts.map((a) => a.name)).toEqual(['Overview', 'Check', 'Optimized', 'evals/evals.json']);
    expect(arts[1]!.content).toBe('Check: {{ input }}');
    expect(store.getState().refine.result).toBeNull();
    stop();
  });

  it('runs evals with progress, one failing, and shows the pass rate per model', async () => {
    const { store, client, stop } = await storeWith([
      { text: 'Ann went to school in 1985, before her birth.' },
      { text: 'Bo left.' },
      { text: 'Timeline Checker' },
    ]);
    const pkg = JSON.parse(answer('Check: {{ input }}'));
    await client.invoke('skills/save-package', {
      package: {
        ...pkg.package,
        artifacts: [
          ...pkg.package.artifacts,
          {
            kind: 'resource',
            name: 'evals/evals.json',
            content: JSON.stringify({ evals: pkg.evals }),
            metadata: { path: 'evals/evals.json' },
          },
        ],
      },
      scope: 'account',
    });
    const seen: Array<number | undefined> = [];
    const unsub = store.subscribe((s) => seen.push(s.evals.progress?.done));
    await store.getState().openEvals({ name: 'Timeline Checker', scope: 'account' });
    await store.getState().runEvals();
    unsub();
    const e = store.getState().evals;
    expect(e.result).toMatchObject({ total: 3, passed: 2 });
    expect(e.result?.results.find((x) => x.id === '2')?.passed).toBe(false);
    expect(seen).toContain(1);
    expect(e.history?.per_model).toMatchObject([
      { model: 'openai-compatible:loopback-gpt', passed: 2, total: 3 },
    ]);
    stop();
  });

  it('ignores events of a run that is no longer current', () => {
    let s = agentReducer(initialAgentState(), { type: 'run/started', which: 'create', runId: 'a' });
    s = agentReducer(s, { type: 'run/started', which: 'create', runId: 'b' });
    s = agentReducer(s, {
      type: 'run/failed',
      which: 'create',
      runId: 'a',
      error: { code: 'CANCELLED', message: 'x' },
    });
    expect(s.create).toMatchObject({ busy: true, runId: 'b', error: null });
    s = agentReducer(s, { type: 'evals/progressed', runId: 'zz', done: 1, total: 2 });
    expect(s.evals.progress).toBeNull();
  });
});

const dspyReply = (answer: string) =>
  `[[ ## reasoning ## ]]\nCompared.\n\n[[ ## contradictions ## ]]\n${answer}\n\n[[ ## completed ## ]]`;

describe.skipIf(skipWithout(NO_VENV, 'agent store: optimize with evals'))(
  'agent store: optimize (needs sidecar/.venv)',
  () => {
    it('optimizes on the evals and shows the validation pass rate before and after', async () => {
      const { store, client, stop } = await storeWith([
        { text: dspyReply('nothing') },
        { text: dspyReply('age: 30 vs 41') },
      ]);
      const evals = [1, 2, 3].map((id) => ({
        id,
        prompt: `claims ${id}`,
        context: { claims: `claims ${id}` },
        expected_output: id === 3 ? 'age: 30 vs 41' : `answer ${id}`,
        assertions: [{ type: 'contains', value: id === 3 ? 'age: 30 vs 41' : `answer ${id}` }],
      }));
      await client.invoke('skills/save-package', {
        package: {
          name: 'Claim Checker',
          description: 'Finds claims that contradict each other.',
          artifacts: [
            { kind: 'prompt_template', name: 'Check', content: 'Contradictions in: {{ claims }}' },
            {
              kind: 'dspy_module',
              name: 'DSPy Check',
              content: '{"template_id": "chain_of_thought", "signature": "claims -> contradictions"}',
              metadata: { fallback_artifact: 'Check' },
            },
            {
              kind: 'resource',
              name: 'evals/evals.json',
              content: JSON.stringify({ evals }),
              metadata: { path: 'evals/evals.json' },
            },
          ],
        },
        scope: 'account',
      });
      await store.getState().openEvals({ name: 'Claim Checker', scope: 'account' });
      // Labeled few-shot makes no model calls while compiling: the script holds only the two eval runs.
      const ok = await store
        .getState()
        .optimize('DSPy Check', { optimizer: 'labeled_few_shot', evaluate: false });
      expect(store.getState().evals.optimize.error).toBeNull();
      expect(ok).toBe(true);
      const o = store.getState().evals.optimize;
      expect(o.busy).toBe(false);
      expect(o.result?.evals).toMatchObject({
        before: { pass_rate: 0 },
        after: { pass_rate: 1 },
        version: '1.0.1',
      });
      expect(store.getState().evals.history?.runs.map((r) => r.origin)).toEqual([
        'optimize_after',
        'optimize_before',
      ]);
      stop();
    }, 180_000);
  },
);
