import type { StoreApi } from 'zustand/vanilla';
import type { AppState } from '../../app-store.js';
import type { PrefStorage } from '../settings/settings-store.js';
import type { ChatStore } from './chat-store.js';

/** Where the chat open when the app was last used is remembered (localStorage in the app). */
export const LAST_CHAT_KEY = 'skilldesk.lastChat';

// Session ids are UUIDs; anything else in the address is not a chat of ours.
const CHAT_HASH = /^#chat\/([A-Za-z0-9_-]{1,128})$/;

/** The chat an address fragment names (`#chat/<id>`), or null. */
export function chatIdFromHash(hash: string): string | null {
  return CHAT_HASH.exec(hash)?.[1] ?? null;
}

/** The address fragment of a chat; the new-chat screen has none. */
export function chatHash(id: string | null): string {
  return id ? `#chat/${id}` : '';
}

/** What {@link bindChatRoute} needs of the page. */
export interface RouteWindow {
  location: { hash: string; pathname: string; search: string };
  history: {
    pushState(data: unknown, unused: string, url: string): void;
    replaceState(data: unknown, unused: string, url: string): void;
  };
  addEventListener(type: 'hashchange', cb: () => void): void;
  removeEventListener(type: 'hashchange', cb: () => void): void;
}

function remember(storage: PrefStorage | null, id: string | null): void {
  try {
    storage?.setItem(LAST_CHAT_KEY, id ?? '');
  } catch {
    // A refused storage only means the next start opens a new chat.
  }
}

/**
 * Keep the open chat in the address (so a reload, a bookmark or Back returns to it) and in storage
 * (so the next start, desktop included, reopens it). On start the address wins over the memory; a
 * remembered chat that is gone (deleted, another workspace) quietly gives way to a new chat, while
 * one named in the address shows why it cannot be opened. Returns the function that stops.
 */
export function bindChatRoute(
  stores: { chat: StoreApi<ChatStore>; app: StoreApi<AppState> },
  win: RouteWindow,
  storage: PrefStorage | null,
): () => void {
  const chat = stores.chat;
  const base = () => win.location.pathname + win.location.search;

  const open = async (id: string, fromMemory: boolean) => {
    stores.app.getState().navigate('chat');
    await chat.getState().openSession(id);
    const s = chat.getState();
    const thread = s.threads[id];
    if (fromMemory && s.activeId === id && thread?.status === 'error' && thread.error?.code === 'NOT_FOUND') {
      s.newChat();
    }
  };

  const fromHash = chatIdFromHash(win.location.hash);
  let remembered: string | null = null;
  try {
    remembered = storage?.getItem(LAST_CHAT_KEY) ?? null;
  } catch {
    remembered = null;
  }
  const first = fromHash ?? (remembered && chatIdFromHash(chatHash(remembered)) ? remembered : null);
  if (first) void open(first, fromHash === null);

  let shown = chat.getState().activeId;
  const offStore = chat.subscribe((s) => {
    if (s.activeId === shown) return;
    const before = shown;
    shown = s.activeId;
    remember(storage, shown);
    const hash = chatHash(shown);
    if (win.location.hash === hash) return;
    // A new chat that just got its id replaces the empty screen instead of stacking behind it, so
    // Back does not land on a blank chat.
    try {
      if (before === null) win.history.replaceState(null, '', base() + hash);
      else win.history.pushState(null, '', base() + hash);
    } catch {
      // A page that may not rewrite its address (a file:// page in some shells) still reopens the
      // chat from memory.
    }
  });

  // Back, Forward or an edited address.
  const onHash = () => {
    const id = chatIdFromHash(win.location.hash);
    if (id === chat.getState().activeId) return;
    if (id) void open(id, false);
    else if (win.location.hash === '') {
      stores.app.getState().navigate('chat');
      chat.getState().newChat();
    }
  };
  win.addEventListener('hashchange', onHash);
  return () => {
    offStore();
    win.removeEventListener('hashchange', onHash);
  };
}
