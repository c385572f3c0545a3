import { createStore, type StoreApi } from 'zustand/vanilla';
import type { AppErrorData } from '../../../electron/contract/errors.js';
import { AppError } from '../../../electron/contract/errors.js';
import type {
  ArtifactKindName,
  DeleteSkillRes,
  ExportPackageRes,
  MatchExplanationView,
  SkillDetail,
  SkillListItem,
  SkillScope,
} from '../../../electron/contract/skills.js';
import type { Client } from '../../bridge/client.js';
import { plainWhy } from '../chat/TurnCandidates.js';
import { type CatalogFilterValues, filterCatalog, passesFacets } from './catalog-filter.js';

/** Identifies one catalog row: a name is unique per scope. */
export type SkillKey = string;

/** The key of a catalog row. */
export function skillKey(s: { scope: SkillScope; name: string }): SkillKey {
  return `${s.scope}:${s.name}`;
}

/** Split a key back into scope and name. */
export function parseSkillKey(key: SkillKey): { scope: SkillScope; name: string } {
  const i = key.indexOf(':');
  return { scope: key.slice(0, i) as SkillScope, name: key.slice(i + 1) };
}

/** One skill the hybrid search found, with why in the user's words ("close in meaning"). */
export interface MeaningMatch {
  key: SkillKey;
  score: number;
  why: string;
}

/** Which scope the list shows. */
export type ScopeFilter = 'all' | SkillScope;

/** The Skills feature's state. */
export interface SkillsState {
  list: {
    status: 'idle' | 'loading' | 'ready' | 'error';
    items: SkillListItem[];
    error: AppErrorData | null;
  };
  query: string;
  scope: ScopeFilter;
  source: CatalogFilterValues['source'];
  kind: ArtifactKindName | null;
  /**
   * The hybrid (words and meaning) ranking of the query, as chat matching does it: it arrives
   * after the instant keyword filter and adds the skills close in meaning, each with why.
   */
  meaning: {
    /** The query it was asked for (a reply for an older one is dropped). */
    query: string;
    status: 'idle' | 'loading' | 'ready' | 'error';
    matches: MeaningMatch[];
    /** Whether the sentence-embedding model ranked it (else words and static vectors only). */
    e5: boolean;
    /** Why it did not, when it did not (not installed, skills still waiting for a vector, …). */
    e5Reason?: string;
    /** Skills still waiting for their sentence vector (just imported): found by words meanwhile. */
    e5Pending?: number;
  };
  /** The highlighted row (arrow keys move it). */
  cursor: SkillKey | null;
  /** The row whose details are shown. */
  open: SkillKey | null;
  detail: {
    status: 'idle' | 'loading' | 'ready' | 'error';
    skill: SkillDetail | null;
    error: AppErrorData | null;
  };
  pendingDelete: SkillKey | null;
  deleting: boolean;
  notice: { tone: 'success' | 'error'; text: string } | null;
}

/** Everything that changes the Skills state. */
export type SkillsEvent =
  | { type: 'list/requested' }
  | { type: 'list/loaded'; items: SkillListItem[] }
  | { type: 'list/failed'; error: AppErrorData }
  | { type: 'filter/query'; query: string }
  | { type: 'filter/scope'; scope: ScopeFilter }
  | { type: 'filter/kind'; kind: ArtifactKindName | null }
  | { type: 'filter/source'; source: CatalogFilterValues['source'] }
  | { type: 'meaning/requested'; query: string }
  | {
      type: 'meaning/loaded';
      query: string;
      matches: MeaningMatch[];
      e5: boolean;
      e5Reason?: string;
      e5Pending?: number;
    }
  | { type: 'meaning/failed'; query: string }
  | { type: 'cursor/moved'; delta: number }
  | { type: 'cursor/edge'; edge: 'first' | 'last' }
  | { type: 'cursor/set'; key: SkillKey }
  | { type: 'detail/opened'; key: SkillKey }
  | { type: 'detail/loaded'; key: SkillKey; skill: SkillDetail }
  | { type: 'detail/failed'; key: SkillKey; error: AppErrorData }
  | { type: 'detail/closed' }
  | { type: 'delete/requested'; key: SkillKey }
  | { type: 'delete/cancelled' }
  | { type: 'delete/started' }
  | { type: 'delete/succeeded'; key: SkillKey; res: DeleteSkillRes }
  | { type: 'delete/failed'; error: AppErrorData }
  | { type: 'notice/dismissed' };

/** The state of a fresh Skills view. */
export function initialSkillsState(): SkillsState {
  return {
    list: { status: 'idle', items: [], error: null },
    query: '',
    scope: 'all',
    source: 'all',
    kind: null,
    meaning: { query: '', status: 'idle', matches: [], e5: false },
    cursor: null,
    open: null,
    detail: { status: 'idle', skill: null, error: null },
    pendingDelete: null,
    deleting: false,
    notice: null,
  };
}

/**
 * The rows the filters let through: first those holding every word of the query (instant, in
 * catalog order), then those the hybrid search found close in meaning, best first, once its reply
 * for this query is in.
 */
export function visibleSkills(
  s: Pick<SkillsState, 'list' | 'query' | 'scope' | 'kind'> &
    Partial<Pick<SkillsState, 'source' | 'meaning'>>,
): SkillListItem[] {
  const f = { query: s.query, scope: s.scope, kind: s.kind, source: s.source ?? 'all' };
  const byWords = filterCatalog(s.list.items, f);
  const meaning = s.meaning;
  if (!s.query.trim() || !meaning || meaning.query !== s.query.trim() || meaning.matches.length === 0)
    return byWords;
  const shown = new Set(byWords.map(skillKey));
  const byKey = new Map(s.list.items.map((i) => [skillKey(i), i]));
  const more: SkillListItem[] = [];
  for (const m of meaning.matches) {
    const item = byKey.get(m.key);
    if (!item || shown.has(m.key) || !passesFacets(item, f)) continue;
    shown.add(m.key);
    more.push(item);
  }
  return [...byWords, ...more];
}

/** Why the hybrid search found a row, when it did ("matched on “spreadsheet”", "close in meaning"). */
export function matchReason(s: Pick<SkillsState, 'query' | 'meaning'>, key: SkillKey): string | null {
  if (s.meaning.query !== s.query.trim()) return null;
  return s.meaning.matches.find((m) => m.key === key)?.why ?? null;
}

/** The hybrid matches of an explained `skills/match` reply, each with why in the user's words. */
export function meaningMatches(explain: MatchExplanationView, query: string): MeaningMatch[] {
  return explain.candidates.map((c) => ({
    key: skillKey(c),
    score: c.score,
    why: plainWhy(c, explain.query_terms, query),
  }));
}

/** Keep the cursor on a visible row (the first one when its row went away). */
function withCursor(s: SkillsState): SkillsState {
  const rows = visibleSkills(s);
  if (rows.length === 0) return s.cursor === null ? s : { ...s, cursor: null };
  if (s.cursor && rows.some((r) => skillKey(r) === s.cursor)) return s;
  return { ...s, cursor: skillKey(rows[0]!) };
}

/** The Skills state machine: pure, so it is tested without React or a server. */
export function skillsReducer(s: SkillsState, e: SkillsEvent): SkillsState {
  switch (e.type) {
    case 'list/requested':
      return {
        ...s,
        list: { ...s.list, status: s.list.status === 'ready' ? 'ready' : 'loading', error: null },
      };
    case 'list/loaded': {
      const next: SkillsState = { ...s, list: { status: 'ready', items: e.items, error: null } };
      const stillThere = s.open && e.items.some((i) => skillKey(i) === s.open);
      const closed: SkillsState =
        s.open && !stillThere ? { ...next, open: null, detail: initialSkillsState().detail } : next;
      return withCursor(closed);
    }
    case 'list/failed':
      return { ...s, list: { ...s.list, status: 'error', error: e.error } };
    case 'filter/query':
      return withCursor({ ...s, query: e.query });
    case 'filter/scope':
      return withCursor({ ...s, scope: e.scope });
    case 'filter/kind':
      return withCursor({ ...s, kind: e.kind });
    case 'filter/source':
      return withCursor({ ...s, source: e.source });
    case 'meaning/requested':
      return { ...s, meaning: { query: e.query, status: 'loading', matches: [], e5: false } };
    case 'meaning/loaded':
      if (e.query !== s.meaning.query) return s;
      return withCursor({
        ...s,
        meaning: {
          query: e.query,
          status: 'ready',
          matches: e.matches,
          e5: e.e5,
          e5Reason: e.e5Reason,
          e5Pending: e.e5Pending,
        },
      });
    case 'meaning/failed':
      if (e.query !== s.meaning.query) return s;
      return { ...s, meaning: { ...s.meaning, status: 'error' } };
    case 'cursor/moved': {
      const rows = visibleSkills(s);
      if (rows.length === 0) return s;
      const at = rows.findIndex((r) => skillKey(r) === s.cursor);
      const next = at < 0 ? 0 : Math.max(0, Math.min(rows.length - 1, at + e.delta));
      return { ...s, cursor: skillKey(rows[next]!) };
    }
    case 'cursor/edge': {
      const rows = visibleSkills(s);
      const row = e.edge === 'first' ? rows[0] : rows[rows.length - 1];
      return row ? { ...s, cursor: skillKey(row) } : s;
    }
    case 'cursor/set':
      return { ...s, cursor: e.key };
    case 'detail/opened':
      return {
        ...s,
        open: e.key,
        cursor: e.key,
        detail: {
          status: 'loading',
          skill: s.detail.skill && skillKey(s.detail.skill) === e.key ? s.detail.skill : null,
          error: null,
        },
      };
    case 'detail/loaded':
      if (s.open !== e.key) return s;
      return { ...s, detail: { status: 'ready', skill: e.skill, error: null } };
    case 'detail/failed':
      if (s.open !== e.key) return s;
      return { ...s, detail: { status: 'error', skill: null, error: e.error } };
    case 'detail/closed':
      return { ...s, open: null, detail: initialSkillsState().detail };
    case 'delete/requested':
      return { ...s, pendingDelete: e.key };
    case 'delete/cancelled':
      return { ...s, pendingDelete: null, deleting: false };
    case 'delete/started':
      return { ...s, deleting: true };
    case 'delete/succeeded': {
      const items = s.list.items.filter((i) => skillKey(i) !== e.key);
      const { name, scope } = e.res.deleted;
      const text = e.res.revealed
        ? `Deleted ${name} from the ${scope} store. The account skill of that name is active again.`
        : `Deleted ${name} from the ${scope} store.`;
      const base: SkillsState = {
        ...s,
        list: { ...s.list, items },
        pendingDelete: null,
        deleting: false,
        notice: { tone: 'success', text },
      };
      return withCursor(
        s.open === e.key ? { ...base, open: null, detail: initialSkillsState().detail } : base,
      );
    }
    case 'delete/failed':
      return { ...s, deleting: false, pendingDelete: null, notice: { tone: 'error', text: e.error.message } };
    case 'notice/dismissed':
      return { ...s, notice: null };
  }
}

/** The Skills state with its actions. */
export interface SkillsStore extends SkillsState {
  load(): Promise<void>;
  setQuery(query: string): void;
  setScope(scope: ScopeFilter): void;
  setKind(kind: ArtifactKindName | null): void;
  setSource(source: CatalogFilterValues['source']): void;
  /** Rank the catalog for a query as chat matching does (words and meaning fused). */
  /** `refresh`: asking again for the same query (new vectors arrived): the status stays as it is. */
  searchMeaning(query: string, refresh?: boolean): Promise<void>;
  moveCursor(delta: number): void;
  cursorTo(edge: 'first' | 'last'): void;
  openSkill(key: SkillKey): Promise<void>;
  openCursor(): Promise<void>;
  closeDetail(): void;
  exportSkill(key: SkillKey): Promise<ExportPackageRes>;
  requestDelete(key: SkillKey): void;
  cancelDelete(): void;
  confirmDelete(): Promise<void>;
  dismissNotice(): void;
  /** Follow catalog changes made elsewhere; returns the unsubscribe. */
  watch(): () => void;
}

const errorData = (e: unknown): AppErrorData =>
  e instanceof AppError
    ? e.toData()
    : { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e) };

/** How long typing must pause before the hybrid ranking is asked for. */
/** How soon a search asks again while new skills are still being embedded. */
const PENDING_RETRY_MS = 2_500;
const MEANING_DELAY_MS = 180;
/** How many ranked skills the hybrid search adds at most. */
const MEANING_LIMIT = 12;

/** Create the Skills store over a client (one per app, or per test). */
export function createSkillsStore(client: Client): StoreApi<SkillsStore> {
  return createStore<SkillsStore>()((set, get) => {
    const dispatch = (e: SkillsEvent) => set((s) => skillsReducer(s, e));
    let loadSeq = 0;
    let meaningTimer: ReturnType<typeof setTimeout> | undefined;
    const refreshOpen = async () => {
      const key = get().open;
      if (key) await get().openSkill(key);
    };
    return {
      ...initialSkillsState(),
      async load() {
        const seq = ++loadSeq;
        dispatch({ type: 'list/requested' });
        try {
          const res = await client.invoke('skills/list', {});
          if (seq === loadSeq) dispatch({ type: 'list/loaded', items: res.skills });
        } catch (e) {
          if (seq === loadSeq) dispatch({ type: 'list/failed', error: errorData(e) });
        }
      },
      setQuery(query) {
        dispatch({ type: 'filter/query', query });
        // The keyword filter answers at once; the hybrid ranking follows when typing pauses.
        if (meaningTimer) clearTimeout(meaningTimer);
        const q = query.trim();
        if (!q) return;
        meaningTimer = setTimeout(() => void get().searchMeaning(q), MEANING_DELAY_MS);
      },
      async searchMeaning(q, refresh = false) {
        if (!refresh || get().meaning.query !== q) dispatch({ type: 'meaning/requested', query: q });
        try {
          const r = await client.invoke('skills/match', { message: q, limit: MEANING_LIMIT, explain: true });
          const explain = r.explain ?? { query_terms: [], candidates: [] };
          // The reply's own order (matches) is the ranking; the candidates carry the why.
          const why = new Map(meaningMatches(explain, q).map((m) => [m.key, m]));
          const matches = r.matches.map(
            (m) => why.get(skillKey(m)) ?? { key: skillKey(m), score: m.score, why: 'close in meaning' },
          );
          dispatch({
            type: 'meaning/loaded',
            query: q,
            matches,
            e5: r.e5?.used === true,
            ...(r.e5?.reason ? { e5Reason: r.e5.reason } : {}),
            ...(r.e5 && r.e5.total > r.e5.embedded ? { e5Pending: r.e5.total - r.e5.embedded } : {}),
          });
          // Skills just imported get their vectors in the background: ask again shortly, so the
          // ranking follows without the user retyping (only while the query is still this one).
          if (r.e5?.used && r.e5.total > r.e5.embedded) {
            if (meaningTimer) clearTimeout(meaningTimer);
            meaningTimer = setTimeout(() => {
              if (get().query.trim() === q) void get().searchMeaning(q, true);
            }, PENDING_RETRY_MS);
          }
        } catch {
          dispatch({ type: 'meaning/failed', query: q });
        }
      },
      setScope: (scope) => dispatch({ type: 'filter/scope', scope }),
      setKind: (kind) => dispatch({ type: 'filter/kind', kind }),
      setSource: (source) => dispatch({ type: 'filter/source', source }),
      moveCursor: (delta) => dispatch({ type: 'cursor/moved', delta }),
      cursorTo: (edge) => dispatch({ type: 'cursor/edge', edge }),
      async openSkill(key) {
        dispatch({ type: 'detail/opened', key });
        const { scope, name } = parseSkillKey(key);
        try {
          const res = await client.invoke('skills/get', { name, scope });
          dispatch({ type: 'detail/loaded', key, skill: res.skill });
        } catch (e) {
          dispatch({ type: 'detail/failed', key, error: errorData(e) });
        }
      },
      async openCursor() {
        const key = get().cursor;
        if (key) await get().openSkill(key);
      },
      closeDetail: () => dispatch({ type: 'detail/closed' }),
      exportSkill(key) {
        const { scope, name } = parseSkillKey(key);
        return client.invoke('skills/export-package', { name, scope });
      },
      requestDelete: (key) => dispatch({ type: 'delete/requested', key }),
      cancelDelete: () => dispatch({ type: 'delete/cancelled' }),
      async confirmDelete() {
        const key = get().pendingDelete;
        if (!key || get().deleting) return;
        dispatch({ type: 'delete/started' });
        const { scope, name } = parseSkillKey(key);
        try {
          const res = await client.invoke('skills/delete', { name, scope });
          dispatch({ type: 'delete/succeeded', key, res });
          await get().load();
        } catch (e) {
          dispatch({ type: 'delete/failed', error: errorData(e) });
        }
      },
      dismissNotice: () => dispatch({ type: 'notice/dismissed' }),
      watch() {
        return client.subscribe('skills/catalog-changed', () => {
          // An import elsewhere may have changed the open skill too: its pane follows.
          void get().load().then(refreshOpen);
        });
      },
    };
  });
}
