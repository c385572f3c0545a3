import type { PrefStorage } from '../settings/settings-store.js';

const KEY = 'skilldesk.drafts';
/** The key of the new-chat screen's draft. */
export const NEW_CHAT = '';
const MAX_DRAFTS = 200;

/** Unsent text per chat, kept across reloads (localStorage in the app). */
export interface Drafts {
  get(chatId: string | null): string;
  /** Remember a chat's draft; an empty one is forgotten. */
  set(chatId: string | null, text: string): void;
}

function read(storage: PrefStorage | null): Record<string, string> {
  try {
    const v: unknown = JSON.parse(storage?.getItem(KEY) ?? '{}');
    if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>).filter(
        (e): e is [string, string] => typeof e[1] === 'string',
      ),
    );
  } catch {
    return {};
  }
}

/** Drafts over a storage (none: kept in memory only). */
export function createDrafts(storage: PrefStorage | null): Drafts {
  const drafts = read(storage);
  const save = () => {
    try {
      storage?.setItem(KEY, JSON.stringify(drafts));
    } catch {
      // A full or refused storage keeps the drafts for this page only.
    }
  };
  return {
    get: (chatId) => drafts[chatId ?? NEW_CHAT] ?? '',
    set(chatId, text) {
      const key = chatId ?? NEW_CHAT;
      if ((drafts[key] ?? '') === text) return;
      delete drafts[key];
      if (text !== '') drafts[key] = text;
      // The oldest drafts go first when there are too many.
      const keys = Object.keys(drafts);
      for (const k of keys.slice(0, Math.max(0, keys.length - MAX_DRAFTS))) delete drafts[k];
      save();
    },
  };
}
