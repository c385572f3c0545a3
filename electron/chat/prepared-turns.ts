import { changeStamp } from '../store/index.js';
import type { ChatStore } from './chat-store.js';

/**
 * Turn prompts prepared from a draft while it is typed (`chat/prepare`), so that sending it only
 * stores the message and reads the conversation. A prepared prompt is used only while nothing it
 * was computed from can have changed: the same chat, text and settings, and no write to the
 * chat's store or to any skill store since (each store's {@link changeStamp}). Otherwise the turn
 * computes its prompt as if nothing had been prepared.
 */
const MAX_ENTRIES = 4;

interface Entry<T> {
  key: string;
  stamp: string;
  value: T;
}

// Keyed by the chats' connection: the app makes a ChatStore per request over one connection.
const byChats = new WeakMap<ChatStore['db'], Entry<unknown>[]>();

/** The stamp of every store a prompt reads (the chat's and each skill store's). */
export function promptStamp(chats: ChatStore, stores: ReadonlyArray<{ db: ChatStore['db'] }>): string {
  const dbs = [chats.db, ...stores.map((s) => s.db)];
  return dbs
    .filter((db, i) => dbs.indexOf(db) === i)
    .map(changeStamp)
    .join('|');
}

/** Keep `value` for `key` as of `stamp` (the newest few are kept). */
export function keepPrepared<T>(chats: ChatStore, key: string, stamp: string, value: T): void {
  const list = (byChats.get(chats.db) ?? []).filter((e) => e.key !== key);
  list.push({ key, stamp, value });
  while (list.length > MAX_ENTRIES) list.shift();
  byChats.set(chats.db, list);
}

/**
 * The value kept for `key`, if the stores are still as they were when it was computed. The stamp
 * is read only when something was kept for the key: a turn with no prepared prompt reads nothing.
 */
export function takePrepared<T>(chats: ChatStore, key: string, stamp: () => string): T | undefined {
  const list = byChats.get(chats.db);
  const i = list?.findIndex((e) => e.key === key) ?? -1;
  if (!list || i < 0) return undefined;
  const [entry] = list.splice(i, 1);
  return entry!.stamp === stamp() ? (entry!.value as T) : undefined;
}
