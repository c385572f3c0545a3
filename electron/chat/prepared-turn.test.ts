import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EventPayload, Result } from '../contract/channels.js';
import { createSkillRuntime } from '../dispatch/index.js';
import { createHost } from '../host.js';
import { createLlm, startLoopbackProvider } from '../llm/index.js';
import { importPackages, openCatalog, type SkillPackage } from '../skills/index.js';
import { chatMessage, quietLogger, smallPackage, tempDir } from '../test-support/index.js';
import { TraceStore } from '../traces/index.js';
import { invokeChannel } from '../transport/dispatch.js';
import { ChatStore } from './chat-store.js';
import { type ChatEvent, prepareTurn, runTurn } from './engine.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A workspace skill with a description and its name, lower-cased, as its trigger phrase. */
function addSkill(catalog: ReturnType<typeof openCatalog>, name: string, description: string) {
  importPackages(catalog.workspace!, [
    {
      file: `${name}.json`,
      pkg: smallPackage(name, '1.0.0', {
        description,
        trigger_phrases: [name.toLowerCase()],
      }) as SkillPackage,
    },
  ]);
}

async function setup() {
  const provider = await startLoopbackProvider({ script: Array.from({ length: 8 }, () => ({ text: 'ok' })) });
  cleanups.push(() => provider.close());
  const home = tempDir();
  const workspace = tempDir();
  const catalog = openCatalog({ home, workspace, env: {} }, { createWorkspace: true });
  cleanups.push(() => catalog.close());
  const db = catalog.workspace!.db;
  const llm = createLlm(
    { provider: 'openai', model: 'gpt-4.1-mini', baseUrl: provider.url },
    { keys: { get: () => 'sk-test' } },
  );
  const runtime = createSkillRuntime({ traces: new TraceStore(db), home, sidecar: false });
  cleanups.push(() => runtime.dispose());
  // As the app does: a ChatStore per request over the one connection.
  const chats = () => new ChatStore(db);
  const deps = () => ({
    catalog,
    chats: chats(),
    dispatcher: runtime.dispatcher,
    runners: runtime,
    llm,
    workspace,
  });
  addSkill(catalog, 'Walrus Census', 'Counts walruses on the ice floes and reports the census');
  const other = chats().createSession('earlier').id;
  const store = chats();
  store.addMessage(userMessage(other, 'The walrus census on Svalbard found 2,400 walruses.'));
  return { provider, deps, chats, catalog, other };
}

const userMessage = (session_id: string, content: string) => chatMessage(session_id, 'user', content);

async function send(
  deps: ReturnType<Awaited<ReturnType<typeof setup>>['deps']>,
  message: string,
  session_id?: string,
) {
  const events: ChatEvent[] = [];
  await runTurn(deps, { message, ...(session_id ? { session_id } : {}) }, (e) => events.push(e));
  return events.find((e) => e.type === 'turn-started') as Extract<ChatEvent, { type: 'turn-started' }>;
}

describe('a turn prepared from its draft', () => {
  it('is sent as prepared: no second match or recall, and the same prompt reaches the model', async () => {
    const { provider, deps } = await setup();
    const draft = 'run the walrus census again for the walruses';
    const prepared = await prepareTurn(deps(), { message: draft });
    expect(prepared.matches.map((m) => m.name)).toContain('Walrus Census');
    expect(prepared.memory).toBe(1);
    const recall = vi.spyOn(ChatStore.prototype, 'recall');
    const started = await send(deps(), draft);
    expect(recall).not.toHaveBeenCalled();
    expect(started.matches).toEqual(prepared.matches);
    expect(started.memory).toBe(1);
    const system = (provider.requests[0]!.body as { messages: Array<{ role: string; content: string }> })
      .messages[0]!;
    expect(system.role).toBe('system');
    expect(system.content).toBe(prepared.system);
  });

  it('is not used once a message was stored after it: the send recalls it', async () => {
    const { deps, chats, other } = await setup();
    const draft = 'what did the walrus census on Svalbard count';
    await prepareTurn(deps(), { message: draft });
    chats().addMessage(userMessage(other, 'Correction: the Svalbard walrus census counted 2,650.'));
    const recall = vi.spyOn(ChatStore.prototype, 'recall');
    const started = await send(deps(), draft);
    expect(recall).toHaveBeenCalledTimes(1);
    expect(started.memory).toBe(2);
  });

  it('is not used once a skill was added after it: the send matches it', async () => {
    const { deps, catalog } = await setup();
    const draft = 'plan the narwhal survey';
    const prepared = await prepareTurn(deps(), { message: draft });
    expect(prepared.matches.map((m) => m.name)).not.toContain('Narwhal Survey');
    addSkill(catalog, 'Narwhal Survey', 'Plans a narwhal survey');
    const started = await send(deps(), draft);
    expect(started.matches.map((m) => m.name)).toContain('Narwhal Survey');
  });

  it('belongs to its chat and its text: another chat or an edited draft is computed afresh', async () => {
    const { deps, chats } = await setup();
    const session = chats().createSession('mine').id;
    await prepareTurn(deps(), { message: 'walrus census please' });
    const recall = vi.spyOn(ChatStore.prototype, 'recall');
    await send(deps(), 'walrus census please', session);
    expect(recall).toHaveBeenCalledTimes(1);
    await prepareTurn(deps(), { message: 'walrus census', session_id: session });
    recall.mockClear();
    await send(deps(), 'walrus census, please', session);
    expect(recall).toHaveBeenCalledTimes(1);
  });
});

describe('chat/prepare in the app', () => {
  it('prepares the draft the composer shows, and the send of that draft uses it, in a new chat and a later turn', async () => {
    const provider = await startLoopbackProvider({ script: [{ text: 'first' }, { text: 'second' }] });
    cleanups.push(() => provider.close());
    const host = createHost({ home: tempDir(), env: {}, mode: 'test', logger: quietLogger });
    cleanups.push(() => host.dispose());
    const ok = async <T = Record<string, unknown>>(channel: string, req: unknown): Promise<T> => {
      const r = (await invokeChannel(
        host.handlers,
        channel,
        req,
        { transport: 'in-process' },
        quietLogger,
      )) as Result<T>;
      if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
      return r.value;
    };
    await ok('settings/set-provider', { provider: 'openai', base_url: provider.url });
    await ok('settings/set-key', { provider: 'openai', key: 'sk-test' });
    await ok('skills/import-package', {
      package: smallPackage('Walrus Census', '1.0.0', { trigger_phrases: ['walrus census'] }),
      scope: 'account',
    });
    const finished = () =>
      new Promise<EventPayload<'chat/turn-finished'>>((resolve) => {
        const off = host.events.subscribe('chat/turn-finished', (p) => {
          off();
          resolve(p);
        });
      });
    const recall = vi.spyOn(ChatStore.prototype, 'recall');
    // As the composer does: the live match on each edit, then the prepare after a pause.
    const typed = async (message: string, session_id?: string) => {
      await ok('skills/match', { message, limit: 6 });
      const p = await ok<{ matches: number; memory: number }>('chat/prepare', {
        message,
        ...(session_id ? { session_id } : {}),
      });
      recall.mockClear();
      return p;
    };
    expect((await typed('start the walrus census')).matches).toBeGreaterThan(0);
    let done = finished();
    const first = await ok<{ session_id: string }>('chat/send-message', {
      message: 'start the walrus census',
    });
    await done;
    expect(recall).not.toHaveBeenCalled();
    await typed('and the walrus census totals?', first.session_id);
    done = finished();
    await ok('chat/send-message', { message: 'and the walrus census totals?', session_id: first.session_id });
    await done;
    expect(recall).not.toHaveBeenCalled();
    const system = (provider.requests[1]!.body as { messages: Array<{ role: string; content: string }> })
      .messages[0]!.content;
    expect(system).toContain('Walrus Census');
    await expect(ok('chat/prepare', { message: 'x', session_id: 'nope' })).rejects.toThrow(/NOT_FOUND/);
    await expect(ok('chat/prepare', { message: '   ' })).rejects.toThrow(/INVALID_INPUT/);
  });
});
