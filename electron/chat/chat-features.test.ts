// Chat features through the chat handler slice: attachments, a skill invoked by name,
// regenerate and edit-resend (branches kept and switchable), search, export, per-chat totals and a
// chat opened mid-stream.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EventName, EventPayload, Req, Res } from '../contract/channels.js';
import { requestSchemas } from '../contract/channels.js';
import { isAppError } from '../contract/errors.js';
import type { Host } from '../host.js';
import { type LoopbackScriptInput, startLoopbackProvider } from '../llm/index.js';
import { loopbackHost, testHost } from '../test-support/index.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(script: LoopbackScriptInput) {
  const { host, provider } = await loopbackHost(script, { provider: 'openai', model: 'gpt-4.1-mini' });
  const call = async <C extends keyof typeof requestSchemas>(channel: C, req: Req<C>): Promise<Res<C>> =>
    (await host.handlers[channel](requestSchemas[channel].parse(req) as never, {
      transport: 'in-process',
    })) as Res<C>;
  const next = <E extends EventName>(event: E, when: (p: EventPayload<E>) => boolean = () => true) =>
    new Promise<EventPayload<E>>((resolve) => {
      const off = host.events.subscribe(event, (p) => {
        if (!when(p)) return;
        off();
        resolve(p);
      });
    });
  /** Send (or regenerate) and wait for the reply to be stored. */
  const turn = async (start: () => Promise<{ session_id: string }>) => {
    const done = next('chat/turn-finished');
    const r = await start();
    const f = await done;
    return { ...r, finished: f };
  };
  return { provider, host, call, next, turn };
}

type Body = { messages: Array<{ role: string; content: unknown }> };
const userTexts = (body: unknown) =>
  (body as Body).messages.filter((m) => m.role === 'user').map((m) => String(m.content));

describe('chat features', () => {
  it('sends text attachments to the model and to a skill invoked by name, and keeps them beside the message', async () => {
    const csv = 'city,temp\nOslo,4\nLima,19\nCairo,27\n';
    const { provider, call, turn } = await setup([
      { text: 'Mean temperature is 16.67.', expect: { last_user_contains: 'Oslo,4' } },
    ]);
    const r = await turn(() =>
      call('chat/send-message', {
        message: 'Stats for this file please',
        attachments: [{ name: 'temps.csv', media_type: 'text/csv', text: csv }],
        skill: { name: 'CSV Statistics', variables: { csv_text: csv } },
      }),
    );
    expect(r.finished.status).toBe('complete');
    // The skill ran before the model answered; the model saw its result.
    const body = provider.requests.at(-1)!.body as Body;
    const tool = body.messages.find((m) => m.role === 'tool');
    expect(String(tool?.content)).toContain('"rows":3');
    expect(userTexts(body).at(-1)).toContain('<attachment name="temps.csv">');
    const s = await call('chat/get-session', { session_id: r.session_id });
    const [user, reply] = s.messages;
    // The chat shows the typed text; the file is listed beside it, not pasted into it.
    expect(user).toMatchObject({
      content: 'Stats for this file please',
      attachments: [{ name: 'temps.csv', size: csv.length }],
    });
    expect(reply!.tool_calls[0]).toMatchObject({ name: 'apply_skill', ok: true, skill: 'CSV Statistics' });
    expect(reply!.tool_calls[0]!.result).toMatchObject({
      outputs: [{ ok: true, data: { rows: 3, columns: { temp: { min: 4, max: 27, median: 19 } } } }],
    });
    // The sandbox starts cold here (Pyodide loads): slow on a busy machine.
  }, 120_000);

  it('refuses an oversize or image attachment with a clear error and stores nothing', () => {
    const big = 'x'.repeat(512 * 1024 + 1);
    const tooBig = requestSchemas['chat/send-message'].safeParse({
      message: 'hi',
      attachments: [{ name: 'big.txt', media_type: 'text/plain', text: big }],
    });
    expect(tooBig.success).toBe(false);
    expect(tooBig.error!.issues[0]!.message).toMatch(/larger than 512 KiB/);
    const image = requestSchemas['chat/send-message'].safeParse({
      message: 'hi',
      attachments: [{ name: 'a.png', media_type: 'image/png', text: '' }],
    });
    expect(image.error!.issues[0]!.message).toMatch(/images go as `data`/);
  });

  it('regenerates and edits into new branches, keeps the old ones reachable and sends only the branch as history', async () => {
    const { provider, call, turn } = await setup([
      { text: 'Paris.', usage: { input_tokens: 10, output_tokens: 2 } },
      { text: 'It is Paris, France.', usage: { input_tokens: 11, output_tokens: 5 } },
      { text: 'Rome.', usage: { input_tokens: 12, output_tokens: 2 } },
      { text: 'About 2.1 million.', expect: { last_user_contains: 'people live there' } },
    ]);
    const a = await turn(() => call('chat/send-message', { message: 'Capital of France?' }));
    const sid = a.session_id;
    // Regenerate: the question stays, a second reply is its sibling.
    const b = await turn(() =>
      call('chat/regenerate', { session_id: sid, message_id: a.finished.message_id }),
    );
    expect(b.finished.text).toBe('It is Paris, France.');
    expect(userTexts(provider.requests[1]!.body)).toEqual(['Capital of France?']);
    let s = await call('chat/get-session', { session_id: sid });
    expect(s.messages.map((m) => m.content)).toEqual(['Capital of France?', 'It is Paris, France.']);
    expect(s.messages[1]!.sibling_ids).toEqual([a.finished.message_id, b.finished.message_id]);
    // Edit and resend: a new question beside the first; the model never sees the old branch.
    const questionId = s.messages[0]!.id;
    const c = await turn(() =>
      call('chat/send-message', { session_id: sid, edit_of: questionId, message: 'Capital of Italy?' }),
    );
    expect(c.finished.text).toBe('Rome.');
    expect(userTexts(provider.requests[2]!.body)).toEqual(['Capital of Italy?']);
    s = await call('chat/get-session', { session_id: sid });
    expect(s.messages.map((m) => m.content)).toEqual(['Capital of Italy?', 'Rome.']);
    expect(s.messages[0]!.sibling_ids).toEqual([questionId, s.messages[0]!.id]);
    // Switch back to the first question: its newest reply is shown.
    s = await call('chat/switch-branch', { session_id: sid, message_id: questionId });
    expect(s.messages.map((m) => m.content)).toEqual(['Capital of France?', 'It is Paris, France.']);
    // A follow-up continues the branch shown, with that branch as history.
    await turn(() => call('chat/send-message', { session_id: sid, message: 'How many people live there?' }));
    expect(userTexts(provider.requests[3]!.body)).toEqual([
      'Capital of France?',
      'How many people live there?',
    ]);
    expect((provider.requests[3]!.body as Body).messages.map((m) => m.content)).toContain(
      'It is Paris, France.',
    );
    // Totals count every reply of every branch.
    s = await call('chat/get-session', { session_id: sid });
    const last = s.messages.at(-1)!;
    expect(s.usage.input_tokens).toBe(10 + 11 + 12 + last.input_tokens!);
    expect(s.usage.output_tokens).toBe(2 + 5 + 2 + last.output_tokens!);
  });

  it('refuses to regenerate a user message or edit a reply, naming why', async () => {
    const { call, turn } = await setup([{ text: 'Hi.' }]);
    const a = await turn(() => call('chat/send-message', { message: 'Hello' }));
    const s = await call('chat/get-session', { session_id: a.session_id });
    const err = await call('chat/regenerate', {
      session_id: a.session_id,
      message_id: s.messages[0]!.id,
    }).catch((e: unknown) => e);
    expect(isAppError(err) && err.code).toBe('INVALID_INPUT');
    const err2 = await call('chat/send-message', {
      session_id: a.session_id,
      edit_of: a.finished.message_id,
      message: 'x',
    }).catch((e: unknown) => e);
    expect(isAppError(err2) && err2.message).toMatch(/only your own messages/);
    const err3 = await call('chat/regenerate', { session_id: a.session_id, message_id: 'nope' }).catch(
      (e: unknown) => e,
    );
    expect(isAppError(err3) && err3.code).toBe('NOT_FOUND');
  });

  it('finds a message in another chat and exports a chat as Markdown and JSON', async () => {
    const { call, turn } = await setup([{ text: 'Use a **zucchini** fritter.' }, { text: 'Sure.' }]);
    const a = await turn(() => call('chat/send-message', { message: 'Vegetarian dinner idea?' }));
    await turn(() => call('chat/send-message', { message: 'Something else entirely' }));
    const { hits } = await call('chat/search', { query: 'zucchini' });
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({
      session_id: a.session_id,
      role: 'assistant',
      session_title: 'Vegetarian dinner idea?',
    });
    expect(hits[0]!.snippet).toContain('[zucchini]');
    expect((await call('chat/search', { query: 'zucch*' })).hits).toHaveLength(1);
    // Operators and quotes are plain text, never an FTS syntax error.
    expect((await call('chat/search', { query: '"AND OR (' })).hits).toEqual([]);
    const md = await call('chat/export-session', { session_id: a.session_id, format: 'md' });
    expect(md.filename).toBe('vegetarian-dinner-idea.md');
    expect(md.content).toContain('# Vegetarian dinner idea?');
    expect(md.content).toContain('## You\n\nVegetarian dinner idea?');
    expect(md.content).toContain('## Assistant\n\nUse a **zucchini** fritter.');
    const json = JSON.parse(
      (await call('chat/export-session', { session_id: a.session_id, format: 'json' })).content,
    );
    expect(json.skilldesk_chat_export).toBe(1);
    expect(json.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
    expect(json.branch).toEqual(json.messages.map((m: { id: string }) => m.id));
  });

  it('gives a chat opened mid-stream the reply so far', async () => {
    const { host, call, next } = await setup([
      { text: ['Counting ', 'one, ', 'two, ', 'three'], hang_after: 2 },
    ]);
    let seen = '';
    cleanups.push(host.events.subscribe('chat/delta-received', (d) => (seen += d.text)));
    const r = await call('chat/send-message', { message: 'Count to three' });
    await vi.waitFor(() => expect(seen).toBe('Counting one, '));
    const s = await call('chat/get-session', { session_id: r.session_id });
    expect(s.session.running).toBe(true);
    expect(s.in_flight).toEqual({ text: 'Counting one, ', tool_calls: [] });
    const done = next('chat/turn-finished');
    await call('chat/cancel', { session_id: r.session_id });
    expect((await done).status).toBe('partial');
    expect((await call('chat/get-session', { session_id: r.session_id })).in_flight).toBeNull();
  });
});

describe('model per chat', () => {
  it('lists a provider’s models from its /models and answers a chat with the model chosen for it', async () => {
    const provider = await startLoopbackProvider({
      script: {
        turns: [
          { text: 'From the default.', expect: { model: 'gpt-4.1-mini' } },
          { text: 'From this chat’s own model.', expect: { model: 'gpt-4o' } },
        ],
        models: ['gpt-4.1-mini', 'gpt-4o'],
        api_key: 'sk-test',
      },
    });
    cleanups.push(() => provider.close());
    const host: Host = testHost();
    const call = async <C extends keyof typeof requestSchemas>(channel: C, req: Req<C>): Promise<Res<C>> =>
      (await host.handlers[channel](requestSchemas[channel].parse(req) as never, {
        transport: 'in-process',
      })) as Res<C>;
    const finished = () =>
      new Promise<EventPayload<'chat/turn-finished'>>((resolve) => {
        const off = host.events.subscribe('chat/turn-finished', (p) => {
          off();
          resolve(p);
        });
      });
    await call('settings/set-provider', { provider: 'openai', base_url: provider.url });
    await call('settings/set-key', { provider: 'openai', key: 'sk-test' });
    const models = await call('settings/list-models', { provider: 'openai' });
    expect(models).toEqual({
      provider: 'openai',
      models: ['gpt-4.1-mini', 'gpt-4o'],
      source: 'provider',
      fetched_at: expect.any(String),
      warning: null,
    });
    // A provider without a key: SkillDesk's own list, and why.
    const known = await call('settings/list-models', { provider: 'anthropic' });
    expect(known.source).toBe('known');
    expect(known.models).toContain('claude-sonnet-4-6');
    expect(known.warning).toMatch(/No API key for Anthropic/);

    let done = finished();
    const first = await call('chat/send-message', { message: 'Hello' });
    expect((await done).model_id).toBe('openai:gpt-4.1-mini');
    const set = await call('chat/set-model', {
      session_id: first.session_id,
      model: { provider: 'openai', model: 'gpt-4o' },
    });
    expect(set.session.model).toEqual({ provider: 'openai', model: 'gpt-4o' });
    done = finished();
    await call('chat/send-message', { session_id: first.session_id, message: 'Again' });
    const f = await done;
    expect(f.model_id).toBe('openai:gpt-4o');
    expect(f.text).toBe('From this chat’s own model.');
  });
});
