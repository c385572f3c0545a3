// The Composer agent against the loopback provider with scripted replies: the real provider layer,
// the real package schema, MiniJinja and the shipped "Composer Agent" prompts.
import { afterEach, describe, expect, it } from 'vitest';
import type { EventName } from '../contract/channels.js';
import { createLlm, type LoopbackProvider, NO_KEYS, startLoopbackProvider } from '../llm/index.js';
import type { ScriptTurn } from '../llm/loopback/script.js';
import { EVALS_PATH } from '../skills/index.js';
import { applyChanges, diffDrafts } from './changes.js';
import { answerFromDraft, draftFromAnswer } from './draft.js';
import { createComposerHandlers } from './handlers.js';
import { validateDraft } from './validate.js';

const providers: LoopbackProvider[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.close()));
});

/** A package the model might write for the timeline request; `template` is its prompt. */
function timelineAnswer(template: string, extra: { artifacts?: unknown[]; version?: string } = {}) {
  return {
    package: {
      name: 'Timeline Checker',
      description: "Checks a story's timeline for contradictions between dated events.",
      version: extra.version ?? '1.0.0',
      source: 'user',
      tags: ['writing', 'timeline'],
      intent_patterns: ['check the timeline of my story', 'find timeline contradictions'],
      trigger_phrases: ['check the timeline'],
      requires: ['llm'],
      artifacts: [
        {
          kind: 'description',
          name: 'Overview',
          ordinal: 0,
          content: 'Finds events that cannot both be true.',
        },
        { kind: 'prompt_template', name: 'Check', ordinal: 1, content: template },
        ...(extra.artifacts ?? []),
      ],
    },
    evals: {
      threshold: 0.8,
      evals: [
        {
          id: 1,
          prompt: 'Ann was born in 1990. In 1985 Ann went to school.',
          expected_output: 'Says Ann went to school before she was born.',
          assertions: [{ type: 'contains', value: '1985' }],
        },
        {
          id: 2,
          prompt: 'Bo left on Monday and arrived on Tuesday.',
          assertions: ['Finds no contradiction'],
        },
        { id: 3, prompt: 'check the timeline of chapter 2', should_trigger: true },
      ],
    },
  };
}

const GOOD = 'List the contradictions in the timeline of this story:\n{{ input }}';
const BAD = 'List the contradictions in the timeline of {{ story }}';

async function setup(turns: ScriptTurn[] | Array<Record<string, unknown>>) {
  const provider = await startLoopbackProvider({ script: turns as never });
  providers.push(provider);
  const llm = createLlm(
    { provider: 'openai-compatible', baseUrl: provider.url, model: 'loopback-gpt' },
    { keys: NO_KEYS },
  );
  const emitted: Array<{ event: EventName; payload: unknown }> = [];
  const handlers = createComposerHandlers({
    catalog: () => null,
    llm: () => llm,
    events: { emit: (event, payload) => emitted.push({ event, payload }) },
    now: () => performance.now(),
  });
  return { provider, handlers, emitted };
}

const ctx = { transport: 'in-process' as const };

describe('composer/create', () => {
  it('repairs a first package that fails its dry run, reporting each round', async () => {
    const { provider, handlers, emitted } = await setup([
      { text: JSON.stringify(timelineAnswer(BAD)), usage: { input_tokens: 900, output_tokens: 400 } },
      {
        text: `Here it is:\n\`\`\`json\n${JSON.stringify(timelineAnswer(GOOD))}\n\`\`\``,
        expect: { last_user_contains: 'story' },
      },
    ]);
    const r = await handlers['composer/create'](
      { description: "a skill that checks a story's timeline for contradictions", run_id: 'c1' },
      ctx,
    );
    expect(r.ok).toBe(true);
    expect(r.rounds.map((x) => x.ok)).toEqual([false, true]);
    const first = r.rounds[0]!;
    expect(first.input_tokens).toBe(900);
    expect(first.issues.every((i) => i.stage === 'dry_run')).toBe(true);
    expect(first.issues.map((i) => i.path)).toEqual(['Check (eval 1)', 'Check (eval 2)']);
    expect(first.issues[0]!.message).toContain('story');
    // The repair request carried the errors and the whole conversation so far.
    const repair = provider.requests[1]!.body as { messages: Array<{ role: string; content: string }> };
    expect(repair.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(repair.messages[3]!.content).toContain('[dry_run] Check (eval 1)');
    expect(repair.messages[0]!.content).toContain('"package"');
    expect(repair.messages[1]!.content).toContain("checks a story's timeline");
    // The draft carries the evals as the Agent Skills file.
    const evalsFile = (r.draft.artifacts as Array<{ name: string; content: string }>).find(
      (a) => a.name === EVALS_PATH,
    )!;
    expect(JSON.parse(evalsFile.content).evals).toHaveLength(3);
    expect(await validateDraft(r.draft)).toEqual([]);
    const rounds = emitted.filter((e) => e.event === 'composer/round-finished').map((e) => e.payload);
    expect(rounds).toMatchObject([
      { run_id: 'c1', round: 0, ok: false, max_rounds: 3 },
      { run_id: 'c1', round: 1, ok: true },
    ]);
  });

  it('sends a reply that is not JSON, or breaks the schema, back with the errors', async () => {
    const broken = timelineAnswer(GOOD) as { package: Record<string, unknown> };
    broken.package.source = 'system';
    broken.package.colour = 'red';
    const { handlers } = await setup([
      { text: 'Sure! I will write that skill for you.' },
      { text: JSON.stringify(broken), expect: { last_user_contains: 'not a JSON object' } },
      { text: JSON.stringify(timelineAnswer(GOOD)), expect: { last_user_contains: 'colour' } },
    ]);
    const r = await handlers['composer/create']({ description: 'timeline checker' }, ctx);
    expect(r.ok).toBe(true);
    expect(r.rounds.map((x) => x.issues.map((i) => i.stage))).toEqual([['json'], ['schema'], []]);
  });

  it('gives up after max_rounds repairs and returns the last draft with its problems', async () => {
    const { provider, handlers } = await setup([
      { text: JSON.stringify(timelineAnswer(BAD)) },
      { text: JSON.stringify(timelineAnswer('{% if %}')) },
      { text: 'never asked' },
    ]);
    const r = await handlers['composer/create']({ description: 'timeline checker', max_rounds: 1 }, ctx);
    expect(r.ok).toBe(false);
    expect(r.rounds).toHaveLength(2);
    expect(r.rounds[1]!.issues[0]).toMatchObject({ stage: 'template', path: 'Check' });
    expect(provider.remaining()).toBe(1);
    expect(JSON.stringify(r.draft)).toContain('{% if %}');
  });

  it('refuses to start without a model, and can be cancelled', async () => {
    const none = createComposerHandlers({
      catalog: () => null,
      llm: () => null,
      events: { emit: () => {} },
      now: () => 0,
    });
    await expect(none['composer/create']({ description: 'x' }, ctx)).rejects.toMatchObject({
      code: 'LLM_NOT_CONFIGURED',
    });
    const { handlers } = await setup([{ text: '{}', hang: true }]);
    const running = handlers['composer/create']({ description: 'x', run_id: 'slow' }, ctx);
    await expect.poll(() => handlers['composer/cancel']({ run_id: 'slow' }).cancelled).toBe(true);
    await expect(running).rejects.toMatchObject({ code: 'CANCELLED' });
  });
});

describe('composer/refine', () => {
  it('shows a refinement as per-artifact changes; accepting half keeps the rest as it was', async () => {
    const base = draftFromAnswer(timelineAnswer(GOOD)).draft!;
    base.id = 'timeline-1';
    // A hand edit made in the Composer between two agent turns: the agent must see it.
    const overview = (base.artifacts as Array<{ name: string; content: string }>)[0]!;
    overview.content = 'HAND EDIT: finds dated events that cannot both be true.';
    const proposal = timelineAnswer(`${GOOD}\nReply as JSON: {"contradictions": [...]}`, {
      version: '1.1.0',
      artifacts: [
        {
          kind: 'dspy_module',
          name: 'Optimized Check',
          ordinal: 2,
          content: '{"template_id": "chain_of_thought", "signature": "input -> contradictions"}',
          metadata: { fallback_artifact: 'Check' },
        },
      ],
    });
    (proposal.package.artifacts[0] as { content: string }).content = overview.content;
    const { provider, handlers } = await setup([
      { text: JSON.stringify(proposal), expect: { last_user_contains: 'HAND EDIT' } },
    ]);
    const r = await handlers['composer/refine'](
      { draft: base, feedback: 'add a dspy_module and output JSON with a contradictions array' },
      ctx,
    );
    expect(r.ok).toBe(true);
    expect(r.draft.id).toBe('timeline-1');
    expect(provider.requests[0]!.expectation_error).toBeUndefined();
    expect(r.changes.map((c) => [c.key, c.change])).toEqual([
      ['fields', 'changed'],
      ['artifact:Check', 'changed'],
      ['artifact:Optimized Check', 'added'],
    ]);
    expect(r.changes[1]!.patch).toContain('+Reply as JSON');
    expect(r.changes[0]!.patch).toContain('+  "version": "1.1.0"');

    // Accept the new module and the field change; reject the template change. The module's
    // fallback names "Check", which still exists, so the merge validates.
    const merged = await handlers['composer/apply-changes']({
      base,
      proposed: r.draft,
      accept: ['fields', 'artifact:Optimized Check'],
    });
    expect(merged.issues).toEqual([]);
    const arts = merged.draft.artifacts as Array<{ name: string; content: string }>;
    expect(arts.map((a) => a.name)).toEqual(['Overview', 'Check', 'Optimized Check', EVALS_PATH]);
    expect(arts[1]!.content).toBe(GOOD);
    expect(arts[0]!.content).toContain('HAND EDIT');
    expect(merged.draft.version).toBe('1.1.0');
    expect(merged.draft.id).toBe('timeline-1');
    expect(diffDrafts(merged.draft, r.draft).map((c) => c.key)).toEqual(['artifact:Check']);
  });
});

describe('drafts', () => {
  it('round-trips between the model form and the package form', () => {
    const d = draftFromAnswer(timelineAnswer(GOOD)).draft!;
    const back = answerFromDraft(d);
    expect(back.evals).toEqual(timelineAnswer(GOOD).evals);
    expect((back.package.artifacts as unknown[]).length).toBe(2);
    expect(draftFromAnswer({ package: {}, evals: [], extra: 1 }).issues[0]!.stage).toBe('json');
  });

  it('a rejected removal keeps the artifact', () => {
    const base = draftFromAnswer(timelineAnswer(GOOD)).draft!;
    const proposed = { ...base, artifacts: (base.artifacts as unknown[]).slice(1) };
    expect(diffDrafts(base, proposed)).toMatchObject([{ key: 'artifact:Overview', change: 'removed' }]);
    expect(applyChanges(base, proposed, [])).toMatchObject({ artifacts: base.artifacts });
    expect((applyChanges(base, proposed, ['artifact:Overview']).artifacts as unknown[]).length).toBe(2);
  });

  it('needs three evals, one of them an output eval', async () => {
    const a = timelineAnswer(GOOD);
    a.evals.evals = [a.evals.evals[2]!] as typeof a.evals.evals;
    const issues = await validateDraft(draftFromAnswer(a).draft!);
    expect(issues.map((i) => i.message)).toEqual([
      'give at least 3 evals (there are 1)',
      'give at least one output eval (one without should_trigger) to test the skill on',
    ]);
  });
});
