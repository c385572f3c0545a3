import { createStore, type StoreApi } from 'zustand/vanilla';
import { AppError, type AppErrorData } from '../../../electron/contract/errors.js';
import type { TraceView } from '../../../electron/contract/traces.js';
import type { Client } from '../../bridge/client.js';

/** The trace drawer: which trace is open and its data. */
export interface TracesState {
  openId: string | null;
  status: 'idle' | 'loading' | 'ready' | 'error';
  trace: TraceView | null;
  error: AppErrorData | null;
}

/** Trace drawer events. */
export type TracesEvent =
  | { type: 'trace/requested'; id: string }
  | { type: 'trace/loaded'; trace: TraceView }
  | { type: 'trace/failed'; id: string; error: AppErrorData }
  | { type: 'trace/closed' };

/** Pure transitions of the drawer; a late reply for another trace is dropped. */
export function tracesReducer(s: TracesState, e: TracesEvent): TracesState {
  switch (e.type) {
    case 'trace/requested':
      return { openId: e.id, status: 'loading', trace: s.trace?.id === e.id ? s.trace : null, error: null };
    case 'trace/loaded':
      return e.trace.id === s.openId ? { ...s, status: 'ready', trace: e.trace, error: null } : s;
    case 'trace/failed':
      return e.id === s.openId ? { ...s, status: 'error', error: e.error } : s;
    case 'trace/closed':
      return { openId: null, status: 'idle', trace: null, error: null };
  }
}

/** The drawer with its actions. */
export interface TracesStore extends TracesState {
  open(id: string): Promise<void>;
  close(): void;
}

/** Create the trace drawer store. */
export function createTracesStore(client: Client): StoreApi<TracesStore> {
  return createStore<TracesStore>()((set) => {
    const dispatch = (e: TracesEvent) => set((s) => tracesReducer(s, e));
    return {
      openId: null,
      status: 'idle',
      trace: null,
      error: null,
      async open(id) {
        dispatch({ type: 'trace/requested', id });
        try {
          const r = await client.invoke('traces/get', { id });
          dispatch({ type: 'trace/loaded', trace: r.trace });
        } catch (e) {
          const error =
            e instanceof AppError ? e.toData() : { code: 'INTERNAL' as const, message: String(e) };
          dispatch({ type: 'trace/failed', id, error });
        }
      },
      close: () => dispatch({ type: 'trace/closed' }),
    };
  });
}
