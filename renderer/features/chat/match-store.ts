import { createStore, type StoreApi } from 'zustand/vanilla';
import { AppError, type AppErrorData } from '../../../electron/contract/errors.js';
import type { MatchSkillsRes, SkillMatchView } from '../../../electron/contract/skills.js';
import type { Client } from '../../bridge/client.js';

/** The live activation preview under the composer. */
export interface MatchState {
  message: string;
  /** Bumped on every edit; replies for older edits are dropped. */
  seq: number;
  status: 'idle' | 'matching' | 'ready' | 'error';
  matches: SkillMatchView[];
  took_ms: number | null;
  /** The message the shown matches belong to. */
  matchedMessage: string;
  error: AppErrorData | null;
}

/** Everything that changes the preview. */
export type MatchEvent =
  | { type: 'message/changed'; message: string; seq: number }
  | { type: 'match/succeeded'; seq: number; res: MatchSkillsRes; message: string }
  | { type: 'match/failed'; seq: number; error: AppErrorData };

/** The preview before anything is typed. */
export function initialMatchState(): MatchState {
  return {
    message: '',
    seq: 0,
    status: 'idle',
    matches: [],
    took_ms: null,
    matchedMessage: '',
    error: null,
  };
}

/** Pure state transitions of the preview. */
export function matchReducer(s: MatchState, e: MatchEvent): MatchState {
  switch (e.type) {
    case 'message/changed':
      if (e.message.trim() === '') return { ...initialMatchState(), message: e.message, seq: e.seq };
      // Keep showing the previous ranking while the next one is computed (no flicker).
      return { ...s, message: e.message, seq: e.seq, status: 'matching', error: null };
    case 'match/succeeded':
      if (e.seq !== s.seq) return s;
      return {
        ...s,
        status: 'ready',
        matches: e.res.matches,
        took_ms: e.res.took_ms,
        matchedMessage: e.message,
        error: null,
      };
    case 'match/failed':
      if (e.seq !== s.seq) return s;
      return { ...s, status: 'error', error: e.error };
  }
}

/** The preview with its actions. */
export interface MatchStore extends MatchState {
  setMessage(message: string): Promise<void>;
}

/** Create the preview store; matching runs on every edit (it takes well under a millisecond). */
export function createMatchStore(client: Client, opts: { limit?: number } = {}): StoreApi<MatchStore> {
  return createStore<MatchStore>()((set, get) => {
    const dispatch = (e: MatchEvent) => set((s) => matchReducer(s, e));
    return {
      ...initialMatchState(),
      async setMessage(message) {
        const seq = get().seq + 1;
        dispatch({ type: 'message/changed', message, seq });
        if (message.trim() === '') return;
        try {
          const res = await client.invoke('skills/match', { message, limit: opts.limit ?? 6 });
          dispatch({ type: 'match/succeeded', seq, res, message });
        } catch (e) {
          const error =
            e instanceof AppError ? e.toData() : { code: 'INTERNAL' as const, message: String(e) };
          dispatch({ type: 'match/failed', seq, error });
        }
      },
    };
  });
}
