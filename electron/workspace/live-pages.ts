/**
 * Keeps a workspace folder's Markdown pages indexed while it is open: one pass at open, then a
 * pass shortly after any `.md` file under it is added, changed or removed (a recursive watch).
 */
import { existsSync, type FSWatcher, readdirSync, watch } from 'node:fs';
import { join } from 'node:path';
import type { WorkspacePagesState } from '../contract/workspace.js';
import type { Db } from '../store/index.js';
import { type IndexReport, indexWorkspacePages } from './pages.js';

/** What the indexer needs. */
export interface LivePagesDeps {
  folder: string;
  /**
   * The workspace store to index into. `create` is true when the folder holds Markdown files, so
   * a folder without pages never gets an `agents.db` just for being opened.
   */
  db(create: boolean): Db | null;
  /** Called after every pass and whenever the state changes. */
  onChange(state: WorkspacePagesState, report: IndexReport | null): void;
  /** Wait after the last change before indexing (default 250 ms). */
  debounceMs?: number;
  now?: () => Date;
  /** Progress of a pass (for the app-wide progress area). */
  onProgress?(phase: 'started' | 'finished' | 'failed', detail: string): void;
}

/** A live index of a folder's pages. */
export interface LivePages {
  state(): WorkspacePagesState;
  /** Index now (also what the watcher runs). */
  reindex(): WorkspacePagesState;
  close(): void;
}

function hasMarkdown(dir: string, depth = 0): boolean {
  if (depth > 6) return false;
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  for (const e of entries) {
    if (e.isFile() && /\.md$/i.test(e.name)) return true;
  }
  for (const e of entries) {
    if (
      e.isDirectory() &&
      !e.name.startsWith('.') &&
      e.name !== 'node_modules' &&
      hasMarkdown(join(dir, e.name), depth + 1)
    )
      return true;
  }
  return false;
}

/** Start indexing and watching `deps.folder`. */
export function startLivePages(deps: LivePagesDeps): LivePages {
  const now = deps.now ?? (() => new Date());
  let state: WorkspacePagesState = {
    count: 0,
    indexed_at: null,
    indexing: false,
    watching: false,
    error: null,
  };
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let watcher: FSWatcher | null = null;

  const count = (db: Db): number =>
    (db.prepare('SELECT count(*) AS n FROM workspace_pages').get() as { n: number }).n;

  // Passes after a file change are quick and frequent: only the first and requested ones are progress.
  const run = (report: boolean): WorkspacePagesState => {
    if (closed) return state;
    if (!existsSync(deps.folder)) {
      state = { ...state, indexing: false, error: `The folder ${deps.folder} is gone (moved or deleted).` };
      deps.onChange(state, null);
      return state;
    }
    const db = deps.db(hasMarkdown(deps.folder));
    if (!db) {
      state = { ...state, count: 0, indexed_at: now().toISOString(), error: null };
      deps.onChange(state, null);
      return state;
    }
    if (report) deps.onProgress?.('started', deps.folder);
    state = { ...state, indexing: true };
    try {
      const report = indexWorkspacePages(db, deps.folder, { now });
      state = { ...state, count: count(db), indexed_at: now().toISOString(), indexing: false, error: null };
      if (report) deps.onProgress?.('finished', `${state.count} ${state.count === 1 ? 'page' : 'pages'}`);
      deps.onChange(state, report);
    } catch (e) {
      state = {
        ...state,
        indexing: false,
        error: `Indexing the pages failed: ${e instanceof Error ? e.message : String(e)}`,
      };
      if (report) deps.onProgress?.('failed', state.error ?? '');
      deps.onChange(state, null);
    }
    return state;
  };

  const schedule = () => {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      run(false);
    }, deps.debounceMs ?? 250);
  };

  try {
    watcher = watch(deps.folder, { recursive: true, persistent: false }, (_event, name) => {
      // The store's own files change on every write; only Markdown matters (an unnamed event may be one).
      if (name !== null && !/\.md$/i.test(String(name)) && !/^[^.]*$/.test(String(name))) return;
      schedule();
    });
    watcher.on('error', () => {
      state = { ...state, watching: false };
      watcher?.close();
      watcher = null;
    });
    state = { ...state, watching: true };
  } catch {
    // Some file systems cannot be watched: the index is still built at open and on request.
    state = { ...state, watching: false };
  }
  run(true);

  return {
    state: () => state,
    reindex: () => run(true),
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      watcher?.close();
      watcher = null;
    },
  };
}
