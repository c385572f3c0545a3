// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { createStores } from '../../stores.js';
import { inProcessClient } from '../../test-support.js';
import { bindChatRoute, chatHash, chatIdFromHash, LAST_CHAT_KEY } from './chat-route.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
  window.history.replaceState(null, '', '/');
});

function memoryStorage(init: Record<string, string> = {}) {
  const m = new Map(Object.entries(init));
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v) };
}

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** One app instance over `client`, bound to this page's address and `storage`. */
function start(
  client: ReturnType<typeof inProcessClient>['client'],
  storage: ReturnType<typeof memoryStorage>,
) {
  const stores = createStores(client, { storage });
  cleanups.push(() => stores.chat.getState().dispose());
  cleanups.push(bindChatRoute(stores, window, storage));
  return stores;
}

describe('chat route', () => {
  it('reads and writes #chat/<id> and nothing else', () => {
    expect(chatIdFromHash('#chat/3f2a-b_C')).toBe('3f2a-b_C');
    expect(chatIdFromHash('#composer')).toBeNull();
    expect(chatIdFromHash('#chat/')).toBeNull();
    expect(chatIdFromHash('#chat/a/b')).toBeNull();
    expect(chatHash('abc')).toBe('#chat/abc');
    expect(chatHash(null)).toBe('');
  });

  it('puts a new chat in the address and memory, and a reload reopens it from the address', async () => {
    const { client, host } = inProcessClient();
    cleanups.push(() => host.dispose());
    const storage = memoryStorage();
    const first = start(client, storage);
    expect(await first.chat.getState().send('hello there')).toBe(true);
    const id = first.chat.getState().activeId!;
    expect(window.location.hash).toBe(`#chat/${id}`);
    expect(storage.getItem(LAST_CHAT_KEY)).toBe(id);
    // The new chat replaced the empty screen: Back does not land on a blank chat.
    expect(window.history.length).toBe(1);

    // "Reload": a fresh app over the same address and storage.
    const again = start(client, memoryStorage());
    await until(() => again.chat.getState().threads[id]?.status === 'ready');
    expect(again.chat.getState().activeId).toBe(id);
    expect(again.chat.getState().threads[id]!.messages).toHaveLength(2);
  });

  it('reopens the remembered chat when the address has none (the desktop), and forgets one that is gone', async () => {
    const { client, host } = inProcessClient();
    cleanups.push(() => host.dispose());
    const seed = start(client, memoryStorage());
    await seed.chat.getState().send('remember me');
    const id = seed.chat.getState().activeId!;
    window.history.replaceState(null, '', '/');

    const desktop = start(client, memoryStorage({ [LAST_CHAT_KEY]: id }));
    await until(() => desktop.chat.getState().threads[id]?.status === 'ready');
    expect(desktop.chat.getState().activeId).toBe(id);
    expect(window.location.hash).toBe('');
    window.history.replaceState(null, '', '/');

    const gone = memoryStorage({ [LAST_CHAT_KEY]: '00000000-0000-0000-0000-000000000000' });
    const after = start(client, gone);
    await until(
      () => after.chat.getState().threads['00000000-0000-0000-0000-000000000000']?.status === 'error',
    );
    expect(after.chat.getState().activeId).toBeNull();
    expect(gone.getItem(LAST_CHAT_KEY)).toBe('');
  });

  it('follows Back and an edited address between chats, and a new chat clears the address', async () => {
    const { client, host } = inProcessClient();
    cleanups.push(() => host.dispose());
    const stores = start(client, memoryStorage());
    await stores.chat.getState().send('one');
    const one = stores.chat.getState().activeId!;
    stores.chat.getState().newChat();
    expect(window.location.hash).toBe('');
    await stores.chat.getState().send('two');
    const two = stores.chat.getState().activeId!;
    expect(window.location.hash).toBe(`#chat/${two}`);

    stores.app.getState().navigate('settings');
    window.location.hash = `#chat/${one}`;
    await until(() => stores.chat.getState().activeId === one);
    expect(stores.app.getState().view).toBe('chat');
    window.history.back();
    await until(() => stores.chat.getState().activeId === two);
  });
});
