// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import type { EventPayload } from '../../../electron/contract/channels.js';
import { inProcessClient } from '../../test-support.js';
import { type ChatState, chatReducer, createChatStore, initialChatState } from './chat-store.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const started = (
  over: Partial<EventPayload<'chat/turn-started'>> = {},
): EventPayload<'chat/turn-started'> => ({
  session_id: 's1',
  user_message_id: 'u1',
  message: 'Hello there',
  new_session: true,
  client_turn_id: 'c1',
  matches: [],
  memory: 0,
  created_at: '2025-01-01T00:00:00.000Z',
  parent_id: null,
  regenerated: false,
  attachments: [],
  ...over,
});

const finished = (
  over: Partial<EventPayload<'chat/turn-finished'>> = {},
): EventPayload<'chat/turn-finished'> => ({
  session_id: 's1',
  message_id: 'a1',
  text: 'Hi!',
  status: 'complete',
  model_id: 'openai:gpt-4.1-mini',
  input_tokens: 10,
  output_tokens: 2,
  estimated_cost: 0.0001,
  trace_ids: [],
  skills_used: [],
  error: null,
  created_at: '2025-01-01T00:00:01.000Z',
  ...over,
});

function run(s: ChatState, ...actions: Parameters<typeof chatReducer>[1][]): ChatState {
  return actions.reduce(chatReducer, s);
}

describe('chat reducer', () => {
  it('adopts a new session from its turn-started and streams deltas into the reply', () => {
    let s = run(initialChatState(), {
      type: 'send/requested',
      client_turn_id: 'c1',
      session_id: null,
      message: 'Hello there',
    });
    expect(s.pending).toMatchObject({ client_turn_id: 'c1' });
    s = run(
      s,
      { type: 'turn/started', e: started() },
      { type: 'turn/delta', e: { session_id: 's1', text: 'Hi' } },
      { type: 'turn/delta', e: { session_id: 's1', text: '!' } },
    );
    expect(s.activeId).toBe('s1');
    expect(s.pending).toBeNull();
    expect(s.streaming).toEqual({ s1: true });
    expect(s.sessions.items[0]).toMatchObject({ id: 's1', title: 'Hello there', running: true });
    const msgs = s.threads.s1!.messages;
    expect(msgs.map((m) => [m.role, m.content, m.status])).toEqual([
      ['user', 'Hello there', 'complete'],
      ['assistant', 'Hi!', 'streaming'],
    ]);
    s = run(
      s,
      { type: 'turn/finished', e: finished() },
      { type: 'send/accepted', client_turn_id: 'c1', session_id: 's1' },
    );
    expect(s.streaming).toEqual({});
    expect(s.threads.s1!.messages[1]).toMatchObject({
      id: 'a1',
      status: 'complete',
      content: 'Hi!',
      input_tokens: 10,
      estimated_cost: 0.0001,
    });
  });

  it('tracks tool calls from start to finish, with their traces', () => {
    const s = run(
      initialChatState(),
      { type: 'send/requested', client_turn_id: 'c1', session_id: null, message: 'x' },
      { type: 'turn/started', e: started() },
      {
        type: 'turn/tool-started',
        e: { session_id: 's1', id: 't1', name: 'apply_skill', args: { name: 'Summarize' } },
      },
    );
    expect(s.threads.s1!.messages[1]!.tool_calls).toEqual([
      { id: 't1', name: 'apply_skill', args: { name: 'Summarize' }, status: 'running' },
    ]);
    const done = run(s, {
      type: 'turn/tool-finished',
      e: {
        session_id: 's1',
        id: 't1',
        name: 'apply_skill',
        ok: true,
        skill: 'Summarize',
        artifacts: ['Summary Prompt'],
        trace_ids: ['tr1'],
      },
    });
    expect(done.threads.s1!.messages[1]!.tool_calls[0]).toMatchObject({
      status: 'ok',
      skill: 'Summarize',
      trace_ids: ['tr1'],
    });
  });

  it('keeps a cancelled reply as partial and marks unfinished tool calls failed', () => {
    const s = run(
      initialChatState(),
      { type: 'send/requested', client_turn_id: 'c1', session_id: null, message: 'x' },
      { type: 'turn/started', e: started() },
      { type: 'turn/delta', e: { session_id: 's1', text: 'one two ' } },
      { type: 'turn/tool-started', e: { session_id: 's1', id: 't1', name: 'apply_skill', args: {} } },
      {
        type: 'turn/finished',
        e: finished({
          text: 'one two ',
          status: 'partial',
          error: { code: 'CANCELLED', message: 'cancelled' },
        }),
      },
    );
    expect(s.threads.s1!.messages[1]).toMatchObject({
      status: 'partial',
      content: 'one two ',
      error: { code: 'CANCELLED' },
    });
    expect(s.threads.s1!.messages[1]!.tool_calls[0]!.status).toBe('failed');
  });

  it('reports a refused send and a failed reply', () => {
    let s = run(
      initialChatState(),
      { type: 'send/requested', client_turn_id: 'c1', session_id: null, message: 'x' },
      { type: 'send/failed', client_turn_id: 'c1', error: { code: 'INVALID_INPUT', message: 'bad' } },
    );
    expect(s.pending).toBeNull();
    expect(s.sendError).toEqual({ code: 'INVALID_INPUT', message: 'bad' });
    s = run(
      s,
      { type: 'send/requested', client_turn_id: 'c2', session_id: null, message: 'y' },
      { type: 'turn/started', e: started({ client_turn_id: 'c2' }) },
      {
        type: 'turn/finished',
        e: finished({ text: '', status: 'error', error: { code: 'LLM_MISSING_KEY', message: 'No API key' } }),
      },
    );
    expect(s.sendError).toBeNull();
    expect(s.threads.s1!.messages[1]).toMatchObject({ status: 'error', error: { code: 'LLM_MISSING_KEY' } });
  });

  it('ignores events of sessions not loaded here, and drops a deleted session', () => {
    let s = run(initialChatState(), { type: 'turn/started', e: started({ client_turn_id: 'other-window' }) });
    expect(s.activeId).toBeNull();
    expect(s.threads).toEqual({});
    expect(run(s, { type: 'turn/delta', e: { session_id: 's1', text: 'x' } })).toBe(s);
    s = run(s, { type: 'session/opened', id: 's1' }, { type: 'session/deleted', id: 's1' });
    expect(s.activeId).toBeNull();
    expect(s.sessions.items).toEqual([]);
  });
});

describe('chat reducer: branches, mid-stream and totals', () => {
  const view = (id: string, role: 'user' | 'assistant', content: string, parent_id: string | null) => ({
    id,
    role,
    content,
    status: 'complete' as const,
    tool_calls: [],
    trace_ids: [],
    model_id: role === 'assistant' ? 'openai:gpt-4.1-mini' : null,
    input_tokens: role === 'assistant' ? 10 : null,
    output_tokens: role === 'assistant' ? 2 : null,
    estimated_cost: null,
    error: null,
    created_at: '2025-01-01T00:00:00.000Z',
    parent_id,
    sibling_ids: [id],
    attachments: [],
  });
  const loaded = (running = false, in_flight: EventPayload<'chat/turn-started'> | null = null) =>
    run(
      initialChatState(),
      { type: 'session/opened', id: 's1' },
      {
        type: 'thread/loaded',
        id: 's1',
        messages: [view('u1', 'user', 'Q1', null), view('a1', 'assistant', 'A1', 'u1')],
        running,
        usage: { input_tokens: 10, output_tokens: 2, estimated_cost: null },
        in_flight: in_flight ? { text: 'so far', tool_calls: [] } : null,
      },
    );

  it('an edit cuts the thread at the edited message’s parent; a regeneration keeps the question', () => {
    let s = run(loaded(), {
      type: 'turn/started',
      e: started({ user_message_id: 'u2', message: 'Q1 edited', new_session: false, parent_id: null }),
    });
    expect(s.threads.s1!.messages.map((m) => [m.id, m.content])).toEqual([
      ['u2', 'Q1 edited'],
      ['streaming:s1', ''],
    ]);
    s = run(loaded(), {
      type: 'turn/started',
      e: started({
        user_message_id: 'u1',
        message: 'Q1',
        new_session: false,
        parent_id: null,
        regenerated: true,
      }),
    });
    expect(s.threads.s1!.messages.map((m) => m.id)).toEqual(['u1', 'streaming:s1']);
  });

  it('a chat opened mid-stream starts its reply from the text so far, and totals add each reply', () => {
    let s = loaded(true, started());
    const last = s.threads.s1!.messages.at(-1)!;
    expect([last.status, last.content]).toEqual(['streaming', 'so far']);
    s = run(s, { type: 'turn/delta', e: { session_id: 's1', text: ' and more' } });
    expect(s.threads.s1!.messages.at(-1)!.content).toBe('so far and more');
    s = run(s, {
      type: 'turn/finished',
      e: finished({ input_tokens: 5, output_tokens: 3, estimated_cost: 0.5 }),
    });
    expect(s.threads.s1!.usage).toEqual({ input_tokens: 15, output_tokens: 5, estimated_cost: 0.5 });
  });
});

describe('chat store over the host', () => {
  it('sends without a model, streams the reply, lists, reloads and deletes the session', async () => {
    const { client, host } = inProcessClient();
    cleanups.push(() => host.dispose());
    const store = createChatStore(client);
    cleanups.push(() => store.getState().dispose());
    expect(await store.getState().send('give me a summary of this')).toBe(true);
    const s = store.getState();
    const id = s.activeId!;
    expect(id).toBeTruthy();
    expect(s.threads[id]!.messages.map((m) => [m.role, m.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'complete'],
    ]);
    expect(s.threads[id]!.messages[1]!.content).toMatch(/No model is configured.*Summarize/);
    await store.getState().loadSessions();
    expect(store.getState().sessions.items.map((i) => i.id)).toEqual([id]);

    const fresh = createChatStore(client);
    cleanups.push(() => fresh.getState().dispose());
    await fresh.getState().openSession(id);
    expect(fresh.getState().threads[id]!.messages).toHaveLength(2);

    await store.getState().deleteSession(id);
    expect(store.getState().activeId).toBeNull();
    expect(fresh.getState().threads[id]).toBeUndefined();
  });

  it('gives a new chat the model picked before its first message', async () => {
    const { client, host } = inProcessClient();
    cleanups.push(() => host.dispose());
    const store = createChatStore(client);
    cleanups.push(() => store.getState().dispose());
    const model = { provider: 'openai' as const, model: 'gpt-4.1' };
    expect(await store.getState().setModel(model)).toBe(true);
    expect(store.getState().newChatModel).toEqual(model);
    expect(await store.getState().send('hello')).toBe(true);
    const id = store.getState().activeId!;
    expect(store.getState().newChatModel).toBeNull();
    const r = await client.invoke('chat/get-session', { session_id: id });
    expect(r.session.model).toEqual(model);
    // Another new chat starts from Settings' model again.
    store.getState().newChat();
    expect(store.getState().newChatModel).toBeNull();
  });
});
