import { createStore, type StoreApi } from 'zustand/vanilla';
import type { AppErrorData } from '../../../electron/contract/errors.js';
import { AppError } from '../../../electron/contract/errors.js';
import type {
  ArtifactKindName,
  DeleteSkillRes,
  ExportPackageRes,
  ImportOutcomeView,
  SkillDetail,
  SkillListItem,
  SkillScope,
} from '../../../electron/contract/skills.js';
import type { Client } from '../../bridge/client.js';

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

/** What happened to one imported file. */
export type ImportFileResult =
  | { file: string; ok: true; outcomes: ImportOutcomeView[] }
  | { file: string; ok: false; error: AppErrorData; text?: string };

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
  kind: ArtifactKindName | null;
  /** The highlighted row (arrow keys move it). */
  cursor: SkillKey | null;
  /** The row whose details are shown. */
  open: SkillKey | null;
  detail: {
    status: 'idle' | 'loading' | 'ready' | 'error';
    skill: SkillDetail | null;
    error: AppErrorData | null;
  };
  imports: { busy: boolean; results: ImportFileResult[] };
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
  | { type: 'cursor/moved'; delta: number }
  | { type: 'cursor/edge'; edge: 'first' | 'last' }
  | { type: 'cursor/set'; key: SkillKey }
  | { type: 'detail/opened'; key: SkillKey }
  | { type: 'detail/loaded'; key: SkillKey; skill: SkillDetail }
  | { type: 'detail/failed'; key: SkillKey; error: AppErrorData }
  | { type: 'detail/closed' }
  | { type: 'import/started' }
  | { type: 'import/finished'; results: ImportFileResult[] }
  | { type: 'import/dismissed' }
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
    kind: null,
    cursor: null,
    open: null,
    detail: { status: 'idle', skill: null, error: null },
    imports: { busy: false, results: [] },
    pendingDelete: null,
    deleting: false,
    notice: null,
  };
}

/** The rows the filters let through, in catalog order. Every query word must appear somewhere. */
export function visibleSkills(s: Pick<SkillsState, 'list' | 'query' | 'scope' | 'kind'>): SkillListItem[] {
  const words = s.query.toLowerCase().split(/\s+/).filter(Boolean);
  return s.list.items.filter((item) => {
    if (s.scope !== 'all' && item.scope !== s.scope) return false;
    if (s.kind && !item.artifact_kinds.includes(s.kind)) return false;
    if (words.length === 0) return true;
    const hay = [
      item.name,
      item.description,
      ...item.tags,
      ...item.trigger_phrases,
      ...item.intent_patterns,
      item.author ?? '',
    ]
      .join('\n')
      .toLowerCase();
    return words.every((w) => hay.includes(w));
  });
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
    case 'import/started':
      return { ...s, imports: { busy: true, results: [] } };
    case 'import/finished': {
      const ok = e.results.filter((r) => r.ok).length;
      const notice: SkillsState['notice'] =
        ok > 0 && ok === e.results.length ? { tone: 'success', text: importSummary(e.results) } : s.notice;
      return { ...s, imports: { busy: false, results: e.results }, notice };
    }
    case 'import/dismissed':
      return { ...s, imports: { busy: false, results: [] } };
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

/** One line saying what an import did. */
export function importSummary(results: ImportFileResult[]): string {
  const outcomes = results.flatMap((r) => (r.ok ? r.outcomes : []));
  if (outcomes.length === 1) {
    const o = outcomes[0]!;
    if (o.action === 'created') return `Imported ${o.name} ${o.version} into the ${o.scope} store.`;
    if (o.action === 'updated') return `Updated ${o.name} from ${o.previous_version} to ${o.version}.`;
    return `${o.name} ${o.version} is already installed; nothing changed.`;
  }
  const created = outcomes.filter((o) => o.action === 'created').length;
  const updated = outcomes.filter((o) => o.action === 'updated').length;
  const same = outcomes.length - created - updated;
  return [
    `Imported ${outcomes.length} skills`,
    `${created} new, ${updated} updated, ${same} unchanged.`,
  ].join(': ');
}

/** A file picked or dropped for import. */
export interface ImportFile {
  name: string;
  text: () => Promise<string>;
}

/** The Skills state with its actions. */
export interface SkillsStore extends SkillsState {
  load(): Promise<void>;
  setQuery(query: string): void;
  setScope(scope: ScopeFilter): void;
  setKind(kind: ArtifactKindName | null): void;
  moveCursor(delta: number): void;
  cursorTo(edge: 'first' | 'last'): void;
  openSkill(key: SkillKey): Promise<void>;
  openCursor(): Promise<void>;
  closeDetail(): void;
  importFiles(files: ImportFile[], opts?: { force?: boolean }): Promise<ImportFileResult[]>;
  dismissImport(): void;
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

/** Create the Skills store over a client (one per app, or per test). */
export function createSkillsStore(client: Client): StoreApi<SkillsStore> {
  return createStore<SkillsStore>()((set, get) => {
    const dispatch = (e: SkillsEvent) => set((s) => skillsReducer(s, e));
    let loadSeq = 0;
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
      setQuery: (query) => dispatch({ type: 'filter/query', query }),
      setScope: (scope) => dispatch({ type: 'filter/scope', scope }),
      setKind: (kind) => dispatch({ type: 'filter/kind', kind }),
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
      async importFiles(files, opts = {}) {
        dispatch({ type: 'import/started' });
        const results: ImportFileResult[] = [];
        for (const f of files) {
          if (!/\.json$/i.test(f.name)) {
            results.push({
              file: f.name,
              ok: false,
              error: {
                code: 'INVALID_INPUT',
                message: `${f.name}: only .json packages can be imported here. Import Agent Skills folders and .zip files with: skilldesk skills import PATH`,
              },
            });
            continue;
          }
          let text = '';
          try {
            text = await f.text();
            const res = await client.invoke('skills/import-package', {
              package: text,
              file_name: f.name,
              ...(opts.force ? { force: true } : {}),
            });
            results.push({ file: f.name, ok: true, outcomes: res.imported });
          } catch (e) {
            results.push({ file: f.name, ok: false, error: errorData(e), text });
          }
        }
        dispatch({ type: 'import/finished', results });
        if (results.some((r) => r.ok)) {
          await get().load();
          await refreshOpen();
        }
        return results;
      },
      dismissImport: () => dispatch({ type: 'import/dismissed' }),
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
          void get().load();
        });
      },
    };
  });
}
