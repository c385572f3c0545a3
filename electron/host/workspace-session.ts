/**
 * One open workspace: the merged catalog, the skill runtimes (sandbox pool, sidecar), the chat
 * store and workspace pages, opened once and shared by every handler slice. Only the host opens
 * one; the faces (desktop, web, CLI, tests) reach it through the handler table.
 */
import { join, resolve } from 'node:path';
import { ChatStore } from '../chat/index.js';
import { AppError } from '../contract/errors.js';
import { createSandboxWarmup, createSkillRuntime, type SkillRuntime } from '../dispatch/index.js';
import type { LlmSkillHost } from '../kinds/index.js';
import type { SpawnSandboxProcess } from '../sandbox/index.js';
import {
  createSidecarClient,
  type SidecarClient,
  type SidecarClientOptions,
} from '../sidecar-client/index.js';
import { type CatalogRef, openCatalog } from '../skills/index.js';

export type { CatalogRef };

import type { FullPython } from '../scripts/index.js';
import { allowsInProcessIsolation, packageIndexUrl } from '../settings/index.js';
import { type Db, openMemoryStore, resolveHome, type SkillStore } from '../store/index.js';
import { TraceStore } from '../traces/index.js';
import { indexWorkspacePages, WorkspacePages } from '../workspace/index.js';

/** Where the stores live. */
export interface WorkspaceLocation {
  /** Account data folder (default `$SKILLDESK_HOME`, else the OS app-data folder). */
  home?: string;
  /** Workspace folder, whose skills, sessions and pages live in `<workspace>/agents.db`. */
  workspace?: string;
  env: NodeJS.ProcessEnv;
}

/** What a session needs besides its location. */
export interface WorkspaceSessionDeps {
  /** Runtime diagnostics (sandbox and sidecar stderr). */
  log: (line: string) => void;
  spawnSandbox?: SpawnSandboxProcess;
  resourcesPath?: string;
  /** Override the skill runtime (tests). */
  createRuntime?: typeof createSkillRuntime;
  /** How the DSPy sidecar process starts (the host wraps it to report progress). */
  spawnSidecar?: SidecarClientOptions['spawn'];
  /** The sidecar's start hook (the app re-optimizes modules another DSPy version wrote). */
  onSidecarStarted?: SidecarClientOptions['onStarted'];
  /** Start the Python sandbox this long after opening, for someone who runs Python (null: never). */
  warmSandboxAfterMs?: number | null;
  /** What LLM skills get of the app: other providers, their secrets and network grants. */
  llmSkill?: LlmSkillHost;
  /** Full Python's managed environment (one per app: the runtimes of every store share it). */
  fullPython?: FullPython;
}

/** An open workspace. */
export interface WorkspaceSession {
  home: string;
  /** The absolute workspace folder, if one is configured. */
  workspace: string | undefined;
  catalog: CatalogRef;
  /** The skill runtime whose traces go to `store` (one per store, started lazily). */
  runtime(store: SkillStore): SkillRuntime;
  /** Chat sessions: `read()` is null while a configured workspace has no store yet. */
  chats: {
    read(): ChatStore | null;
    write(): ChatStore;
    /** The account's chats while a workspace is open (they are not the workspace's); else null. */
    account(): ChatStore | null;
  };
  /** The store sessions (and runs without a skill) write to: the workspace's, else the account's. */
  writeStore(): SkillStore;
  /** The DSPy sidecar client, started on first use and shared by every runtime. */
  sidecar(): SidecarClient;
  /** A message matched these skills (the sandbox may start ahead of the run it leads to). */
  matched(matches: ReadonlyArray<{ name: string; scope: 'account' | 'workspace' }>): void;
  dispose(): Promise<void>;
}

/** Open a workspace. Throws (as AppError) when a store cannot be opened. */
export function openWorkspaceSession(loc: WorkspaceLocation, deps: WorkspaceSessionDeps): WorkspaceSession {
  const home = resolveHome(loc.home, loc.env);
  const workspace = loc.workspace ? resolve(loc.workspace) : undefined;
  const where = { home, workspace, env: loc.env };
  let catalog = openCatalog(where, { createWorkspace: false });
  const runtimes = new Map<Db, SkillRuntime>();
  const indexed = new Set<Db>();
  let sidecar: SidecarClient | null = null;
  let disposed = false;

  const catalogRef: CatalogRef = {
    get: () => catalog,
    hasWorkspace: () => workspace !== undefined,
    withStore(scope) {
      if (scope === 'workspace' && !catalog.workspace && workspace) {
        // The workspace store is created on its first write, so browsing never leaves files behind.
        const next = openCatalog(where, { createWorkspace: true });
        catalog.close();
        catalog = next;
        dropStaleRuntimes();
      }
      const store = catalog.store(scope);
      if (!store) throw new AppError('INVALID_INPUT', `the ${scope} store is not open`, { scope });
      return { catalog, store };
    },
  };

  function dropStaleRuntimes() {
    const open = new Set(catalog.stores().map((s) => s.db));
    for (const [db, rt] of runtimes) {
      if (open.has(db)) continue;
      runtimes.delete(db);
      void rt.dispose();
    }
  }

  // A folder's pages before it has a store (see pages()).
  let scratch: Db | null = null;

  /** The workspace's Markdown pages, indexed once per store, for the sandbox's host functions. */
  function pages(): WorkspacePages | undefined {
    if (!workspace) return undefined;
    const ws = catalog.workspace;
    if (!ws) {
      // Browsing creates no agents.db in the folder, yet a skill run there (an account skill, the
      // CLI's `--workspace`) should read its pages: they are indexed in memory until it has one.
      if (!scratch) {
        scratch = openMemoryStore();
        indexWorkspacePages(scratch, workspace);
      }
      return new WorkspacePages(scratch);
    }
    if (!indexed.has(ws.db)) {
      indexWorkspacePages(ws.db, workspace);
      indexed.add(ws.db);
    }
    return new WorkspacePages(ws.db);
  }

  const session: WorkspaceSession = {
    home,
    workspace,
    catalog: catalogRef,
    runtime(store) {
      if (disposed) throw new AppError('INTERNAL', 'the workspace session is closed');
      let rt = runtimes.get(store.db);
      if (!rt) {
        rt = (deps.createRuntime ?? createSkillRuntime)({
          traces: new TraceStore(store.db),
          home,
          workspace: pages(),
          spawnSandbox: deps.spawnSandbox,
          allowInProcessIsolation: () => allowsInProcessIsolation(home, loc.env),
          packageIndex: () => packageIndexUrl(home),
          resourcesPath: deps.resourcesPath,
          sidecar: () => session.sidecar(),
          log: deps.log,
          llmSkill: deps.llmSkill,
          fullPython: deps.fullPython,
        });
        runtimes.set(store.db, rt);
      }
      return rt;
    },
    writeStore: () => (workspace ? catalogRef.withStore('workspace').store : catalog.account),
    chats: {
      read() {
        const store = workspace ? catalog.workspace : catalog.account;
        return store ? new ChatStore(store.db) : null;
      },
      write: () => new ChatStore(session.writeStore().db),
      account: () => (workspace && catalog.account ? new ChatStore(catalog.account.db) : null),
    },
    sidecar() {
      sidecar ??= createSidecarClient({
        dataDir: join(home, 'sidecar'),
        env: loc.env,
        resourcesPath: deps.resourcesPath,
        log: deps.log,
        spawn: deps.spawnSidecar,
        onStarted: deps.onSidecarStarted,
      });
      return sidecar;
    },
    matched: (matches) => warmup.matched(matches),
    async dispose() {
      if (disposed) return;
      disposed = true;
      warmup.dispose();
      const all = [...runtimes.values()];
      runtimes.clear();
      await Promise.allSettled([...all.map((rt) => rt.dispose()), sidecar?.dispose()]);
      sidecar = null;
      scratch?.close();
      scratch = null;
      catalog.close();
    },
  };
  const warmup = createSandboxWarmup({
    afterMs: deps.warmSandboxAfterMs ?? null,
    catalog: () => catalog,
    warm: () => session.runtime(session.writeStore()).warmSandbox(),
    log: deps.log,
  });
  warmup.opened();
  return session;
}

/** A session whose workspace can be switched at run time. */
export interface SwitchableSession {
  /** The one session object every handler slice holds; it delegates to the open workspace. */
  session: WorkspaceSession;
  /**
   * Open `workspace` (undefined: account-only), then close the previous one. When the new one
   * cannot be opened it throws and the previous one stays open. Switches run one at a time.
   */
  switchTo(workspace: string | undefined): Promise<void>;
}

/** Create a switchable session over `open`, starting with `initial`. */
export function createSwitchableSession(
  open: (workspace: string | undefined) => WorkspaceSession,
  initial: string | undefined,
): SwitchableSession {
  let cur = open(initial);
  const session: WorkspaceSession = {
    get home() {
      return cur.home;
    },
    get workspace() {
      return cur.workspace;
    },
    catalog: {
      get: () => cur.catalog.get(),
      withStore: (scope) => cur.catalog.withStore(scope),
      hasWorkspace: () => cur.catalog.hasWorkspace(),
    },
    runtime: (store) => cur.runtime(store),
    chats: {
      read: () => cur.chats.read(),
      write: () => cur.chats.write(),
      account: () => cur.chats.account(),
    },
    writeStore: () => cur.writeStore(),
    sidecar: () => cur.sidecar(),
    matched: (matches) => cur.matched(matches),
    dispose: () => cur.dispose(),
  };
  let queue: Promise<void> = Promise.resolve();
  return {
    session,
    switchTo(workspace) {
      const next = queue.then(async () => {
        const opened = open(workspace);
        const old = cur;
        cur = opened;
        await old.dispose();
      });
      queue = next.catch(() => {});
      return next;
    },
  };
}
