import { afterEach, describe, expect, it } from 'vitest';
import { createSkillRuntime, type SkillRuntime } from '../dispatch/index.js';
import {
  createLlm,
  type LoopbackProvider,
  type LoopbackScriptInput,
  startLoopbackProvider,
} from '../llm/index.js';
import { importPackages, openCatalog, type SkillCatalog } from '../skills/index.js';
import { tempDir } from '../test-support/index.js';
import { TraceStore } from '../traces/index.js';
import { ChatStore } from './chat-store.js';
import { type ChatEvent, runTurn } from './engine.js';
import { indexLine } from './prompt.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(format: 'openai' | 'anthropic', script: LoopbackScriptInput) {
  const provider: LoopbackProvider = await startLoopbackProvider({ script });
  cleanups.push(() => provider.close());
  const home = tempDir();
  const workspace = tempDir();
  const catalog: SkillCatalog = openCatalog({ home, workspace, env: {} }, { createWorkspace: true });
  cleanups.push(() => catalog.close());
  const db = catalog.workspace!.db;
  const llm = createLlm(
    {
      provider: format,
      model: format === 'openai' ? 'gpt-4.1-mini' : 'claude-sonnet-4-5',
      baseUrl: provider.url,
    },
    { keys: { get: () => 'sk-test' } },
  );
  const runtime: SkillRuntime = createSkillRuntime({ traces: new TraceStore(db), home, sidecar: false });
  cleanups.push(() => runtime.dispose());
  const chats = new ChatStore(db);
  const deps = { catalog, chats, dispatcher: runtime.dispatcher, runners: runtime, llm, workspace };
  return { provider, deps, chats, db, workspace };
}

const systemOf = (body: unknown, format: 'openai' | 'anthropic'): string => {
  const b = body as { system?: unknown; messages: Array<{ role: string; content: unknown }> };
  if (format === 'anthropic') return typeof b.system === 'string' ? b.system : JSON.stringify(b.system);
  return String(b.messages.find((m) => m.role === 'system')?.content ?? '');
};

describe.each(['openai', 'anthropic'] as const)('a chat turn over the %s wire format', (format) => {
  it('activates skills in two phases, runs a prompt_template and a code_template skill, and stores both turns with traces', async () => {
    const { provider, deps, chats, db } = await setup(format, [
      // An earlier turn, so memory has something to recall.
      { text: 'Noted: the launch codename is BLUEBIRD.' },
      { tool_calls: [{ name: 'search_skills', arguments: { query: 'csv statistics' } }] },
      {
        tool_calls: [{ name: 'read_skill', arguments: { name: 'CSV Statistics' } }],
        expect: { tool_result_contains: 'CSV Statistics' },
      },
      {
        tool_calls: [
          {
            name: 'apply_skill',
            arguments: {
              name: 'CSV Statistics',
              ctx: { csv_text: 'x,y\n1,2\n3,4\n', session_id: 'spoofed' },
            },
          },
          {
            name: 'apply_skill',
            arguments: { name: 'Summarize', ctx: { text: 'BLUEBIRD numbers are in.' } },
          },
        ],
        expect: { tool_result_contains: 'Compute' },
      },
      // The Summarize prompt_template's own model call.
      { text: 'Gist: numbers are in.', expect: { last_user_contains: 'BLUEBIRD numbers are in.' } },
      {
        text: 'The mean of x is 2 and of y is 3. Gist: numbers are in.',
        usage: { input_tokens: 900, output_tokens: 30 },
      },
    ]);
    const first = await runTurn(deps, {
      message: 'Remember the launch codename BLUEBIRD for the csv report',
    });
    const events: ChatEvent[] = [];
    const r = await runTurn(
      deps,
      {
        message: 'Compute statistics for this csv for the BLUEBIRD launch and summarize',
        settings: { memory: { min_score: 0 } },
      },
      (e) => events.push(e),
    );
    expect(r.status).toBe('complete');
    expect(r.session_id).not.toBe(first.session_id);
    expect(r.text).toContain('The mean of x is 2');
    expect(r.skills_used.sort()).toEqual(['CSV Statistics', 'Summarize']);

    const second = provider.requests.filter((q) => q.turn !== null && q.turn >= 1);
    // Phase 1: index lines for matched skills and the recalled memory reached the model.
    const system = systemOf(second[0]!.body, format);
    expect(system).toContain('- CSV Statistics: Computes exact descriptive statistics');
    expect(system).toContain('## Memory');
    expect(system).toContain('BLUEBIRD');
    // …but not the new message itself.
    expect(system).not.toContain('Compute statistics for this csv');
    const tools = JSON.stringify((second[0]!.body as { tools: unknown }).tools);
    for (const t of ['list_skills', 'search_skills', 'read_skill', 'apply_skill']) expect(tools).toContain(t);

    // Tool results reached the model: the code_template's submitted statistics.
    const last = JSON.stringify(provider.requests.at(-1)!.body);
    expect(last).toContain('\\"mean\\":2');
    expect(last).toContain('Gist: numbers are in.');

    // Events: tool calls with skills and trace ids, text deltas, usage at the end.
    const finished = events.filter((e) => e.type === 'tool-call-finished');
    expect(finished.map((e) => e.name)).toEqual([
      'search_skills',
      'read_skill',
      'apply_skill',
      'apply_skill',
    ]);
    expect(finished[2]).toMatchObject({ ok: true, skill: 'CSV Statistics', artifacts: ['Compute'] });
    expect(events.some((e) => e.type === 'text-delta')).toBe(true);
    expect(r.input_tokens).toBeGreaterThanOrEqual(900);

    // The store holds both turns and the traces.
    const messages = chats.listMessages(r.session_id);
    expect(messages.map((m) => [m.role, m.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'complete'],
    ]);
    expect(messages[1]!.tool_calls!.map((c) => c.name)).toEqual([
      'search_skills',
      'read_skill',
      'apply_skill',
      'apply_skill',
    ]);
    expect(messages[1]!.trace_ids).toEqual(r.trace_ids);
    const traces = new TraceStore(db).list({ session_id: r.session_id });
    expect(traces.map((t) => t.artifact_kind).sort()).toEqual(['code_template', 'prompt_template']);
    expect(traces.every((t) => t.error === null)).toBe(true);
    // The harness session id won over the model's "spoofed" one.
    expect(traces[0]!.session_id).toBe(r.session_id);
  }, 120_000);
});

describe('chat turns', () => {
  it('never recalls the new message into its own memory', async () => {
    const { provider, deps } = await setup('openai', [{ text: 'one' }, { text: 'two' }]);
    await runTurn(deps, { message: 'zanzibar zanzibar zanzibar' });
    // A new chat: the earlier session's turn is memory (the same session's would be history).
    await runTurn(deps, { message: 'zanzibar again', settings: { memory: { min_score: 0 } } });
    const sys1 = systemOf(provider.requests[0]!.body, 'openai');
    expect(sys1).not.toContain('## Memory');
    const sys2 = systemOf(provider.requests[1]!.body, 'openai');
    expect(sys2).toContain('zanzibar zanzibar zanzibar');
    expect(sys2).not.toContain('zanzibar again');
  });

  it('scopes memory to the session when asked', async () => {
    const { provider, deps } = await setup('openai', [{ text: 'a' }, { text: 'b' }]);
    await runTurn(deps, { message: 'quokka facts please' });
    await runTurn(deps, { message: 'more quokka', settings: { memory: { scope: 'session', min_score: 0 } } });
    expect(systemOf(provider.requests[1]!.body, 'openai')).not.toContain('## Memory');
  });

  it('answers an unknown skill name with an error result the model can react to', async () => {
    const { provider, deps } = await setup('openai', [
      { tool_calls: [{ name: 'apply_skill', arguments: { name: 'Nonexistent Skill' } }] },
      { text: 'Sorry, that skill does not exist.', expect: { tool_result_contains: 'no skill named' } },
    ]);
    const r = await runTurn(deps, { message: 'use the nonexistent skill' });
    expect(r.status).toBe('complete');
    expect(provider.requests[1]!.expectation_error).toBeUndefined();
  });

  it('stops after max_tool_rounds and still replies', async () => {
    const loop = { tool_calls: [{ name: 'list_skills', arguments: {} }] };
    const { provider, deps } = await setup('openai', [loop, loop, { text: 'done' }]);
    const r = await runTurn(deps, { message: 'loop', settings: { max_tool_rounds: 2 } });
    expect(r.text).toBe('done');
    expect((provider.requests[2]!.body as { tools?: unknown }).tools).toBeUndefined();
  });

  it('persists a cancelled turn as partial', async () => {
    const { deps, chats } = await setup('openai', [{ text: ['Hello ', 'there ', 'friend'], hang_after: 2 }]);
    const abort = new AbortController();
    const r = await runTurn(deps, { message: 'hi', signal: abort.signal }, (e) => {
      if (e.type === 'text-delta' && e.text.includes('there')) abort.abort();
    });
    expect(r.status).toBe('partial');
    expect(r.error?.code).toBe('CANCELLED');
    const msgs = chats.listMessages(r.session_id);
    expect(msgs[1]).toMatchObject({ role: 'assistant', status: 'partial', content: 'Hello there ' });
  });

  it('without a model, still matches skills and replies with what to configure', async () => {
    const { deps, chats } = await setup('openai', []);
    const r = await runTurn({ ...deps, llm: null }, { message: 'tl;dr of this long text please' });
    expect(r.status).toBe('complete');
    expect(r.text).toMatch(/No model is configured.*Summarize.*Settings → Providers.*--provider/s);
    expect(chats.listMessages(r.session_id)[1]!.content).toBe(r.text);
  });

  it('injects always-on skills into every turn, the workspace copy overriding the account one', async () => {
    const { provider, deps } = await setup('openai', [{ text: 'ok' }]);
    const pkg = (instructions: string) => ({
      name: 'House Style',
      description: 'How we write',
      version: '1.0.0',
      always_on: true,
      artifacts: [{ kind: 'approach' as const, name: 'Rules', ordinal: 0, content: instructions }],
    });
    importPackages(deps.catalog.account, [{ file: 'a.json', pkg: pkg('Account rules: be formal.') }]);
    importPackages(deps.catalog.workspace!, [{ file: 'w.json', pkg: pkg('Workspace rules: be brief.') }]);
    await runTurn(deps, { message: 'hello there' });
    const system = systemOf(provider.requests[0]!.body, 'openai');
    expect(system).toContain('## Always-on skill: House Style\nWorkspace rules: be brief.');
    expect(system).not.toContain('Account rules');
  });

  it('formats index lines with when and modalities', () => {
    expect(
      indexLine({
        name: 'Tone',
        description: 'Apply our voice',
        when: 'replying',
        trigger_phrases: ['marketing'],
        modalities: ['text', 'image'],
      }),
    ).toBe('- Tone: Apply our voice (when: replying, marketing) [text, image]');
  });
});
