/**
 * The composition root: opens the stores and wires every capability's handler slice into one
 * table, served unchanged by IPC (Electron), WebSocket (web mode) and in-process (tests).
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createActivationHandlers, stopScanThread } from './activation/index.js';
import { createChatHandlers } from './chat/index.js';
import { createCodeDryRunner, createComposerHandlers } from './composer-agent/index.js'; // issue 12
import type { AppInfoRes, AppMode } from './contract/app.js';
import type { Handlers, HandlersFor } from './contract/channels.js';
import type { ChatModelChoice } from './contract/chat.js';
import type { WorkspaceState } from './contract/workspace.js';
import { createCodeHandlers, createSkillRunHandlers, reoptimizeForDspyVersion } from './dispatch/index.js';
import { createEventHub, type EventHub } from './host/events.js';
import { createSwitchableSession, openWorkspaceSession } from './host/workspace-session.js';
import type { Llm } from './llm/index.js';
import { createMcpSlice, sqliteApprovalStore } from './mcp/index.js';
import {
  createProgressTracker,
  trackSandboxStarts,
  trackSidecarStarts,
  withProgress,
} from './progress/index.js';
import { type SpawnSandboxProcess, spawnNodeSandbox } from './sandbox/index.js';
import { createFileSecretStore, createProviderSettings, type SecretStore } from './settings/index.js';
import { createSidecarHandlers } from './sidecar-client/index.js';
import { createSkillsHandlers, limitsFrom } from './skills/index.js';
import { resolveHome, storeFile } from './store/index.js';
import { createToolHandlers } from './tools/index.js';
import { createTracesHandlers, TraceStore } from './traces/index.js';
import {
  createWorkspaceHandlers,
  type LivePages,
  openRecentWorkspaces,
  startLivePages,
} from './workspace/index.js';

/** Where the main process reports problems. Stacks go here and never to a client. */
export interface Logger {
  info(message: string): void;
  error(message: string, error?: unknown): void;
}

/** A logger writing to the process's stderr. */
export const consoleLogger: Logger = {
  info: (m) => console.error(`[skilldesk] ${m}`),
  error: (m, e) => console.error(`[skilldesk] ${m}`, e instanceof Error ? (e.stack ?? e.message) : (e ?? '')),
};

/** What the host needs from its environment; core code never asks Electron for anything. */
export interface HostDeps {
  /** Account data folder (default: `$SKILLDESK_HOME`, else the OS app-data folder). */
  home?: string;
  /** Workspace folder, whose skills live in `<workspace>/agents.db`. */
  workspace?: string;
  env: NodeJS.ProcessEnv;
  mode: AppMode;
  /** Default: the version in package.json. */
  version?: string;
  logger?: Logger;
  /** Monotonic milliseconds (default `performance.now`). */
  now?: () => number;
  /**
   * Where API keys are kept: the OS keychain on the desktop (electron/shell); by default
   * `<home>/secrets.json`, readable only by the user (web mode, tests).
   */
  secrets?: SecretStore;
  /** How sandbox processes start (the desktop runs Electron as Node); default: this Node binary. */
  spawnSandbox?: SpawnSandboxProcess;
  /** Where a packaged app keeps extra resources (the bundled DSPy sidecar binary). */
  resourcesPath?: string;
  /**
   * The model every call uses (the CLI's `--provider` flags). Default: the provider chosen in the
   * saved settings, with its key from the secret store or the environment.
   */
  llm?: () => Llm | null;
  /** Open (or focus) another window; the desktop's only (issue 11). Without it, `opened: false`. */
  openWindow?: (window: 'composer') => boolean;
  /**
   * Start the Python sandbox this long after the host is created and after each workspace switch
   * (null: on the first run only). Default: 1500 ms on the desktop, null elsewhere (issue 15).
   */
  warmSandboxAfterMs?: number | null;
  /** The native folder dialog (the desktop's, from electron/shell); absent in web mode and the CLI. */
  pickFolder?: () => Promise<string | null>;
}

/** The running core: the handler table, the event hub, and how to shut it down. */
export interface Host {
  handlers: Handlers;
  events: EventHub;
  logger: Logger;
  /** Stop running turns, the sandbox pool and the sidecar, and close the stores. Idempotent. */
  dispose(): Promise<void>;
}

/** The app version from the nearest `package.json` named skilldesk (works from sources and bundles). */
export function appVersion(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const rel of ['..', '../..']) {
    const file = join(here, rel, 'package.json');
    if (!existsSync(file)) continue;
    try {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'skilldesk' && pkg.version) return pkg.version;
    } catch {
      // Not ours; keep looking.
    }
  }
  return '0.0.0';
}

/** Build the host. Throws (as AppError) when a store cannot be opened. */
export function createHost(deps: HostDeps): Host {
  const logger = deps.logger ?? consoleLogger;
  const now = deps.now ?? (() => performance.now());
  const events = createEventHub((e) => logger.error('an event listener failed', e));
  const home = resolveHome(deps.home, deps.env);
  // The settings slice owns the model calls use, unless the face brings its own (CLI flags).
  const settings = createProviderSettings({
    home,
    env: deps.env,
    secrets: deps.secrets ?? createFileSecretStore(home),
    events,
    now,
    onWarning: (m) => logger.info(m),
  });
  const llm: (choice?: ChatModelChoice) => Llm | null = deps.llm ?? ((choice) => settings.chatLlm(choice));
  // Long work (sandbox start, page indexing) is reported to every window (issue 13).
  const progress = createProgressTracker({ emit: (t) => events.emit('progress/task-updated', t) });
  const spawnSandbox = trackSandboxStarts(deps.spawnSandbox ?? spawnNodeSandbox, progress);
  // Issue 12: once the sidecar is up in the app (never in a CLI one-shot), modules another DSPy
  // version optimized are optimized again in the background (see onSidecarReady below).
  let onSidecarReady = () => {};
  const trackedSidecar = trackSidecarStarts(progress);
  const spawnSidecar =
    deps.mode === 'electron' || deps.mode === 'web'
      ? (((...args: Parameters<typeof trackedSidecar>) => {
          const child = trackedSidecar(...args);
          child.stdout?.once('data', () => setTimeout(() => onSidecarReady(), 0));
          return child;
        }) as typeof trackedSidecar)
      : trackedSidecar;
  // One session object for every slice; switching the workspace swaps what it delegates to.
  const switcher = createSwitchableSession(
    (workspace) =>
      openWorkspaceSession(
        { home, workspace, env: deps.env },
        {
          log: (line) => logger.info(line),
          spawnSandbox,
          spawnSidecar,
          resourcesPath: deps.resourcesPath,
        },
      ),
    deps.workspace,
  );
  const session = switcher.session;
  const catalog = session.catalog;

  const version = deps.version ?? appVersion();
  const appHandlers = {
    'app/info': (): AppInfoRes => ({
      name: 'SkillDesk',
      version,
      mode: deps.mode,
      home,
      workspace: session.workspace ?? null,
      stores: {
        account: { file: catalog.get().account.file },
        workspace: session.workspace
          ? {
              file: storeFile(session.workspace),
              exists: catalog.get().workspace !== null || existsSync(storeFile(session.workspace)),
            }
          : null,
      },
      platform: process.platform,
    }),
    'app/open-window': (req) => ({ opened: deps.openWindow?.(req.window) ?? false }), // issue 11
  } satisfies HandlersFor<'app'>;

  // Issue 16: MCP servers' tools in chat, asked for approval first (remembered per workspace).
  const mcp = createMcpSlice({
    home: () => home,
    workspace: () => session.workspace,
    env: deps.env,
    events,
    approvalStore: () => sqliteApprovalStore(session.writeStore().db),
  });
  // A deleted chat's "allow for this chat" approvals go with it (not at the next restart).
  events.subscribe('chat/sessions-changed', (e) => {
    if (e.reason === 'deleted') mcp.approvals.forgetChat(e.session_id);
  });
  const chat = createChatHandlers({
    session,
    events,
    logger,
    llm,
    face: deps.mode === 'cli' ? 'cli' : 'app',
    external: (sessionId, signal) => mcp.turnTools(sessionId, signal),
  });
  const limits = limitsFrom(deps.env);

  // Issue 13: the open workspace, switched at run time, its pages kept indexed (app faces only:
  // the CLI neither watches nor indexes a folder it merely reads).
  const faceIsApp = deps.mode === 'electron' || deps.mode === 'web';
  const recent = openRecentWorkspaces(home, { onWarning: (m) => logger.info(m) });
  let pages: LivePages | null = null;
  const workspaceState = (): WorkspaceState => ({
    path: session.workspace ?? null,
    name: session.workspace ? basename(session.workspace) || session.workspace : null,
    can_pick_folder: deps.pickFolder !== undefined,
    pages: session.workspace ? (pages?.state() ?? null) : null,
  });
  const watchPages = () => {
    pages?.close();
    pages = null;
    const folder = session.workspace;
    if (!faceIsApp || !folder) return;
    let task: ReturnType<typeof progress.start> | null = null;
    pages = startLivePages({
      folder,
      db: (create) =>
        create ? catalog.withStore('workspace').store.db : (catalog.get().workspace?.db ?? null),
      onChange: () => events.emit('workspace/changed', { ...workspaceState(), reason: 'pages-indexed' }),
      onProgress: (phase, detail) => {
        if (phase === 'started') task = progress.start('pages', `Indexing pages in ${basename(folder)}`);
        else if (phase === 'finished') task?.done(detail);
        else task?.fail(detail);
      },
    });
  };
  if (faceIsApp && session.workspace) recent.touch(session.workspace);
  watchPages();
  // Issue 15: the desktop app starts the Python sandbox a moment after it opens (the window drawn
  // first), so the first code run finds a warm worker instead of paying the ~1.5 s cold start —
  // only for someone who runs Python skills (a `code_template` trace in an open store in the last
  // 30 days): the warm sandbox holds about 240 MB that nobody else should pay for.
  const warmAfterMs =
    deps.warmSandboxAfterMs === undefined
      ? deps.mode === 'electron'
        ? 1500
        : null
      : deps.warmSandboxAfterMs;
  let warmTimer: NodeJS.Timeout | null = null;
  const ranPythonRecently = () => {
    const since = new Date(Date.now() - 30 * 86_400_000).toISOString();
    return session.catalog
      .get()
      .stores()
      .some((s) => new TraceStore(s.db).list({ artifact_kind: 'code_template', since, limit: 1 }).length > 0);
  };
  const warmSandbox = () => {
    if (warmAfterMs === null) return;
    if (warmTimer) clearTimeout(warmTimer);
    warmTimer = setTimeout(() => {
      warmTimer = null;
      if (disposed) return;
      try {
        if (!ranPythonRecently()) return;
        session.runtime(session.writeStore()).warmSandbox();
      } catch (e) {
        logger.info(`the Python sandbox did not start in the background: ${(e as Error)?.message ?? e}`);
      }
    }, warmAfterMs);
    warmTimer.unref?.();
  };
  warmSandbox();
  const workspaceHandlers = createWorkspaceHandlers({
    current: workspaceState,
    recent,
    pickFolder: deps.pickFolder,
    reindex: () => {
      pages?.reindex();
      return workspaceState();
    },
    async switchTo(path) {
      // Turns and runs of the old workspace stop; its stores close once the new one is open.
      await chat.dispose();
      pages?.close();
      pages = null;
      try {
        await switcher.switchTo(path ?? undefined);
      } finally {
        watchPages();
        warmSandbox();
      }
      const state = workspaceState();
      events.emit('workspace/changed', { ...state, reason: 'opened' });
      return state;
    },
  });

  const handlers: Handlers = {
    ...createSkillsHandlers({ catalog, events, limits }),
    ...createActivationHandlers({ catalog, now, embedBeforeMatch: deps.mode === 'cli' }),
    ...createSkillRunHandlers({ session, events, limits, llm, now }),
    ...appHandlers,
    ...chat.handlers,
    ...createTracesHandlers({ catalog }),
    ...settings.handlers,
    ...createCodeHandlers({ session }),
    ...createToolHandlers({ session, llm: () => llm() }),
    ...createSidecarHandlers({ session }),
    ...workspaceHandlers,
    ...progress.handlers,
    ...mcp.handlers,
    // issue 12: the Composer agent (its prompts are the catalog's "Composer Agent" skill).
    ...createComposerHandlers({
      catalog: () => catalog.get(),
      llm,
      events,
      now,
      runCode: createCodeDryRunner(session),
    }),
  };
  // Issue 15: a draft whose best matches include a Python skill starts the sandbox while its author
  // is still typing (the composer matches on every edit), so the run the message leads to finds a
  // warm worker — also for someone whose first Python skill this is. Desktop app only, as above.
  if (warmAfterMs !== null) {
    const match = handlers['skills/match'];
    const runsPython = (m: { name: string; scope: 'account' | 'workspace' }) => {
      const store = catalog.get().store(m.scope);
      const skill = store?.repo.getSkillByName(m.name);
      return !!skill && store!.repo.getArtifacts(skill.id, ['code_template']).length > 0;
    };
    handlers['skills/match'] = async (req, ctx) => {
      const res = await match(req, ctx);
      try {
        if (!disposed && res.matches.slice(0, 3).some(runsPython))
          session.runtime(session.writeStore()).warmSandbox();
      } catch (e) {
        logger.info(`the Python sandbox did not start ahead of a run: ${(e as Error)?.message ?? e}`);
      }
      return res;
    };
  }
  // Imports can take a while (many files, zips): each is a task in the progress area (issue 13).
  const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  handlers['skills/import-packages'] = withProgress(
    progress,
    handlers['skills/import-packages'],
    'import',
    (req) => `Importing ${plural(req.packages.length, 'skill package')}`,
    (res) => `${plural(res.imported.length, 'skill')} imported`,
  );
  handlers['skills/import-files'] = withProgress(
    progress,
    handlers['skills/import-files'],
    'import',
    (req) => `Importing ${plural(req.files.length, 'file')}`,
    (res) => (res.written ? `${plural(res.packages.length, 'package')} read` : 'Nothing imported'),
  );

  // Issue 12: the DSPy "version upgrade", at most once per DSPy version and set of open stores.
  const upgradedFor = new Set<string>();
  onSidecarReady = () => {
    if (disposed) return;
    session
      .sidecar()
      .start()
      .then(async (v) => {
        const stores = catalog
          .get()
          .stores()
          .map((s) => s.file);
        const key = [v.dspy, ...stores].join('\n');
        if (!v.dspy || upgradedFor.has(key)) return;
        upgradedFor.add(key);
        const report = await reoptimizeForDspyVersion(
          {
            catalog: () => catalog.get(),
            optimize: (req, ctx) => Promise.resolve(handlers['skills/optimize'](req, ctx)),
            startTask: (label, opts) => progress.start('sidecar', label, opts),
          },
          v.dspy,
        );
        if (report) logger.info(`DSPy ${v.dspy}: ${report.reoptimized.length} module(s) re-optimized`);
      })
      .catch((e) => logger.error('re-optimizing DSPy modules failed', e));
  };

  let disposed: Promise<void> | null = null;
  return {
    handlers,
    events,
    logger,
    dispose() {
      if (disposed) return disposed;
      if (warmTimer) clearTimeout(warmTimer);
      stopScanThread();
      events.clear();
      pages?.close();
      disposed = chat
        .dispose()
        .then(() => mcp.dispose())
        .then(() => session.dispose())
        .catch((e) => logger.error('stopping the skill runtime failed', e));
      return disposed;
    },
  };
}
