// Automatic chat titles against the loopback provider: one small call after the first reply, by the
// chat's own model; never over a title the user set; none after later exchanges; off by setting.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventPayload } from '../contract/channels.js';
import { type LoopbackScriptInput, startLoopbackProvider } from '../llm/index.js';
import { quietLogger, tempDir, testHost } from '../test-support/index.js';
import { invokeChannel } from '../transport/dispatch.js';
import { AUTO_TITLE_MAX_TOKENS, cleanTitle } from './auto-title.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(
  script: LoopbackScriptInput,
  env: NodeJS.ProcessEnv = { SKILLDESK_CHAT_TITLES: 'auto' },
) {
  const provider = await startLoopbackProvider({ script });
  cleanups.push(() => provider.close());
  const home = tempDir();
  writeFileSync(
    join(home, 'settings.json'),
    JSON.stringify({
      version: 2,
      providers: [
        {
          id: 'local',
          kind: 'openai-compatible',
          label: 'Local',
          model: 'loopback-gpt',
          base_url: provider.url,
        },
      ],
      default_provider: 'local',
    }),
  );
  const host = testHost({ home, env });
  const ok = async <T>(channel: string, req: unknown): Promise<T> => {
    const r = await invokeChannel(host.handlers, channel, req, { transport: 'in-process' }, quietLogger);
    if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
    return r.value as T;
  };
  const next = (
    event: 'chat/turn-finished' | 'chat/sessions-changed',
    when: (p: never) => boolean = () => true,
  ) =>
    new Promise<unknown>((resolve) => {
      const off = host.events.subscribe(event, (p) => {
        if (!when(p as never)) return;
        off();
        resolve(p);
      });
    });
  const renamed = () =>
    next('chat/sessions-changed', (p: EventPayload<'chat/sessions-changed'>) => p.reason === 'renamed');
  const titleOf = async (id: string) =>
    (await ok<{ session: { title: string } }>('chat/get-session', { session_id: id })).session.title;
  const send = async (message: string, session_id?: string) => {
    const done = next('chat/turn-finished');
    const r = await ok<{ session_id: string }>('chat/send-message', {
      message,
      ...(session_id ? { session_id } : {}),
    });
    await done;
    return r.session_id;
  };
  return { provider, ok, renamed, titleOf, send };
}

describe('automatic chat titles', () => {
  it('names a new chat from its first exchange with a small call to the chat’s model, once', async () => {
    const { provider, renamed, titleOf, send } = await setup([
      { text: 'Emperor penguins live in Antarctica.' },
      { text: '"Where Penguins Live."', expect: { last_user_contains: 'Emperor penguins live' } },
      { text: 'They huddle for warmth.' },
    ]);
    const title = renamed();
    const id = await send('where do penguins live? answer briefly please');
    await title;
    expect(await titleOf(id)).toBe('Where Penguins Live');
    const call = provider.requests.at(-1)!.body as { max_tokens?: number; model?: string };
    expect(call.max_tokens).toBe(AUTO_TITLE_MAX_TOKENS);
    await send('and how do they keep warm?', id);
    expect(provider.remaining()).toBe(0);
    expect(provider.requests).toHaveLength(3);
    expect(await titleOf(id)).toBe('Where Penguins Live');
  });

  it('never replaces a title the user set while the model was writing one', async () => {
    const { ok, provider, titleOf, send } = await setup([
      { text: 'Sure: 42.' },
      { text: 'Answer to everything', delay_ms: 800 },
    ]);
    const id = await send('what is 6 times 7');
    // The title call is on its way (the server answers it after 800 ms) when the user renames.
    await expect.poll(() => provider.requests.length).toBe(2);
    await ok('chat/rename-session', { session_id: id, title: 'My own title' });
    await expect.poll(() => provider.requests[1]?.client_closed).toBe(true);
    await new Promise((r) => setTimeout(r, 1000));
    expect(await titleOf(id)).toBe('My own title');
  });

  it('is off with chat_titles "off" in settings.json or SKILLDESK_CHAT_TITLES=off', async () => {
    const { provider, titleOf, send } = await setup([{ text: 'Hello!' }], { SKILLDESK_CHAT_TITLES: 'off' });
    const id = await send('hello there');
    await new Promise((r) => setTimeout(r, 300));
    expect(provider.requests).toHaveLength(1);
    expect(await titleOf(id)).toBe('hello there');
  });

  it('cleans what a model answers into a short title', () => {
    expect(cleanTitle('Title: "Penguin habitats".')).toBe('Penguin habitats');
    expect(cleanTitle('\n\n**CSV statistics**\nmore text')).toBe('CSV statistics');
    expect(cleanTitle('   ')).toBeNull();
    const long = cleanTitle('word '.repeat(40))!;
    expect(long.length).toBeLessThanOrEqual(61);
    expect(long.endsWith('…')).toBe(true);
  });
});
