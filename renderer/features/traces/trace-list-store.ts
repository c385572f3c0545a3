import { createStore, type StoreApi } from 'zustand/vanilla';
import { AppError, type AppErrorData } from '../../../electron/contract/errors.js';
import type {
  ListTracesRes,
  TraceFacets,
  TraceFilter,
  TraceTotals,
  TraceView,
} from '../../../electron/contract/traces.js';
import type { Client } from '../../bridge/client.js';
import { downloadText } from '../../ui/download.js';

/** How many rows the view shows; totals always cover every match. */
export const TRACE_PAGE = 500;

/** The Traces view: filters, the matching rows, their totals and the selected trace. */
export interface TraceListState {
  filter: TraceFilter;
  status: 'idle' | 'loading' | 'ready' | 'error';
  traces: TraceView[];
  totals: TraceTotals | null;
  facets: TraceFacets;
  selectedId: string | null;
  error: AppErrorData | null;
  /** Bumped per request so a late reply for an older filter is dropped. */
  seq: number;
  exporting: boolean;
  /** What the last export wrote, said once to the user. */
  exported: { count: number; file: string } | null;
}

/** Traces view events. */
export type TraceListEvent =
  | { type: 'filter/changed'; filter: TraceFilter }
  | { type: 'list/requested'; seq: number }
  | { type: 'list/loaded'; seq: number; res: ListTracesRes }
  | { type: 'list/failed'; seq: number; error: AppErrorData }
  | { type: 'trace/selected'; id: string | null }
  | { type: 'export/started' }
  | { type: 'export/finished'; count: number; file: string }
  | { type: 'export/failed'; error: AppErrorData };

const noFacets: TraceFacets = { session_ids: [], skills: [], artifact_kinds: [] };

/** The state before the first load. */
export const initialTraceList: TraceListState = {
  filter: {},
  status: 'idle',
  traces: [],
  totals: null,
  facets: noFacets,
  selectedId: null,
  error: null,
  seq: 0,
  exporting: false,
  exported: null,
};

/** A filter without its empty fields (an empty picker means "any"). */
export function cleanFilter(f: TraceFilter): TraceFilter {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(f)) if (typeof v === 'string' && v.trim() !== '') out[k] = v.trim();
  return out as TraceFilter;
}

/** Pure transitions of the Traces view. */
export function traceListReducer(s: TraceListState, e: TraceListEvent): TraceListState {
  switch (e.type) {
    case 'filter/changed':
      return { ...s, filter: cleanFilter(e.filter), exported: null };
    case 'list/requested':
      return { ...s, seq: e.seq, status: s.status === 'ready' ? 'ready' : 'loading', error: null };
    case 'list/loaded': {
      if (e.seq !== s.seq) return s;
      const keep = e.res.traces.some((t) => t.id === s.selectedId);
      return {
        ...s,
        status: 'ready',
        traces: e.res.traces,
        totals: e.res.totals,
        facets: e.res.facets,
        selectedId: keep ? s.selectedId : null,
      };
    }
    case 'list/failed':
      return e.seq === s.seq ? { ...s, status: 'error', error: e.error } : s;
    case 'trace/selected':
      return { ...s, selectedId: e.id };
    case 'export/started':
      return { ...s, exporting: true, exported: null, error: null };
    case 'export/finished':
      return { ...s, exporting: false, exported: { count: e.count, file: e.file } };
    case 'export/failed':
      return { ...s, exporting: false, error: e.error };
  }
}

/** The Traces view with its actions. */
export interface TraceListStore extends TraceListState {
  load(): Promise<void>;
  setFilter(patch: Partial<TraceFilter>): Promise<void>;
  clearFilter(): Promise<void>;
  select(id: string | null): void;
  /** Download the matching traces as JSONL (a DSPy dataset). */
  exportJsonl(): Promise<void>;
}

const toError = (e: unknown): AppErrorData =>
  e instanceof AppError ? e.toData() : { code: 'INTERNAL', message: String(e) };

/** The export's file name: the filter in words, so several exports do not collide. */
export function exportFileName(f: TraceFilter, now = new Date()): string {
  const parts = ['traces', f.skill, f.artifact_kind, f.status, f.session_id?.slice(0, 8)]
    .filter((p): p is string => Boolean(p))
    .map((p) =>
      p
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, ''),
    );
  return `${parts.join('-')}-${now.toISOString().slice(0, 10)}.jsonl`;
}

/** Create the Traces view store. */
export function createTraceListStore(
  client: Client,
  save: (file: string, text: string, type: string) => void = downloadText,
): StoreApi<TraceListStore> {
  return createStore<TraceListStore>()((set, get) => {
    const dispatch = (e: TraceListEvent) => set((s) => traceListReducer(s, e));
    const load = async () => {
      const seq = get().seq + 1;
      dispatch({ type: 'list/requested', seq });
      try {
        const res = await client.invoke('traces/list', { ...get().filter, limit: TRACE_PAGE });
        dispatch({ type: 'list/loaded', seq, res });
      } catch (e) {
        dispatch({ type: 'list/failed', seq, error: toError(e) });
      }
    };
    return {
      ...initialTraceList,
      load,
      async setFilter(patch) {
        dispatch({ type: 'filter/changed', filter: { ...get().filter, ...patch } });
        await load();
      },
      async clearFilter() {
        dispatch({ type: 'filter/changed', filter: {} });
        await load();
      },
      select: (id) => dispatch({ type: 'trace/selected', id }),
      async exportJsonl() {
        dispatch({ type: 'export/started' });
        try {
          const filter = get().filter;
          const r = await client.invoke('traces/export', filter);
          const file = exportFileName(filter);
          save(file, r.jsonl, 'application/jsonl');
          dispatch({ type: 'export/finished', count: r.count, file });
        } catch (e) {
          dispatch({ type: 'export/failed', error: toError(e) });
        }
      },
    };
  });
}
