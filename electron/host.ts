/**
 * The composition root: opens the stores and wires every capability's handler slice into one
 * table, served unchanged by IPC (Electron), WebSocket (web mode) and in-process (tests).
 */
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createActivationHandlers, stopScanThread, triggerRegressions } from './activation/index.js';
import { appVersion } from './app-version.js';
import { createAttachmentsHandlers } from './attachments/index.js';
import { createChatHandlers, createPythonHandlers, runEvalTurn } from './chat/index.js';

import { createCodeDryRunner, createComposerHandlers } from './composer-agent/index.js';
import type { AppInfoRes, AppMode } from './contract/app.js';
import type { Handlers, HandlersFor } from './contract/channels.js';
import type { ChatModelChoice } from './contract/chat.js';
import type { WorkspaceState } from './contract/workspace.js';
import { createCodeHandlers, createDspyUpgradePolicy, createSkillRunHandlers } from './dispatch/index.js';
import { createImproveTriggersHandler } from './evals/index.js';
import { createEventHub, type EventHub } from './host/events.js';
import { createSwitchableSession, openWorkspaceSession } from './host/workspace-session.js';
import { declaredAccess, type LlmSkillHost } from './kinds/index.js';
import type { Llm } from './llm/index.js';
import { createMcpSlice, sqliteApprovalStore } from './mcp/index.js';
import {
  createProgressTracker,
  fileColdStartMemory,
  trackSandboxStarts,
  trackSidecarStarts,
  withProgress,
} from './progress/index.js';
import { type SpawnSandboxProcess, spawnNodeSandbox } from './sandbox/index.js';
import { createFullPython, nativeSandboxSupport } from './scripts/index.js';
import {
  createFileSecretStore,
  createProviderSettings,
  createSkillAccess,
  createSkillAccessHandlers,
  packageIndexUrl,
  type SecretStore,
} from './settings/index.js';
import { createSidecarHandlers } from './sidecar-client/index.js';
import { createSkillsHandlers, limitsFrom, resolveOrThrow } from './skills/index.js';
import { createSourcesHandlers, startBackgroundChecks } from './sources/index.js';
import { createFileStore, resolveHome, storeFile } from './store/index.js';
import { createToolHandlers } from './tools/index.js';
import { createTracesHandlers } from './traces/index.js';
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
  /** Open (or focus) another window; the desktop's only. Without it, `opened: false`. */
  openWindow?: (window: 'composer') => boolean;
  /**
   * Start the Python sandbox this long after the host is created and after each workspace switch
   * (null: on the first run only). Default: 1500 ms on the desktop, null elsewhere.
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

export { appVersion };

/** Build the host. Throws (as AppError) when a store cannot be opened. */
export function createHost(deps: HostDeps): Host {
  const logger = deps.logger ?? consoleLogger;
  const now = deps.now ?? (() => performance.now());
  const events = createEventHub((e) => logger.error('an event listener failed', e));
  const home = resolveHome(deps.home, deps.env);
  // The settings slice owns the model calls use, unless the face brings its own (CLI flags).
  const secrets = deps.secrets ?? createFileSecretStore(home);
  const settings = createProviderSettings({
    home,
    env: deps.env,
    secrets,
    events,
    now,
    onWarning: (m) => logger.info(m),
  });
  const llm: (choice?: ChatModelChoice) => Llm | null = deps.llm ?? ((choice) => settings.chatLlm(choice));
  // An LLM skill naming another provider gets it as Settings (or the environment) sets it up.
  const skillAccess = createSkillAccess({ home, secrets, env: deps.env ?? process.env });
  const llmSkill: LlmSkillHost = {
    modelFor: (provider, model) => settings.chatLlm({ provider, ...(model ? { model } : {}) })!,
    secrets: (skill, names) => skillAccess.secrets(skill, names),
    grants: (skill) => skillAccess.grants(skill),
  };
  // Long work (sandbox start, page indexing) is reported to every window.
  const progress = createProgressTracker({ emit: (t) => events.emit('progress/task-updated', t) });
  // The last cold start's duration is kept in the home folder: the next one shows it as an estimate.
  const spawnSandbox = trackSandboxStarts(
    deps.spawnSandbox ?? spawnNodeSandbox,
    progress,
    fileColdStartMemory(join(home, 'sandbox-cold-start.json')),
  );
  const faceIsApp = deps.mode === 'electron' || deps.mode === 'web';
  // Full Python's environment is the account's, shared by every workspace; its first install (a
  // download of the pinned wheels) is a task in the progress area.
  let pythonTask: ReturnType<typeof progress.start> | null = null;
  const fullPython = createFullPython({
    home,
    cacheDir: deps.env.SKILLDESK_WHEEL_CACHE || undefined,
    only: deps.env.SKILLDESK_FULL_PYTHON_PACKAGES?.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    indexUrl: () => packageIndexUrl(home),
    onProgress: (p) => {
      if (p.phase === 'failed') {
        pythonTask?.fail(p.message);
        pythonTask = null;
        return;
      }
      pythonTask ??= progress.start('python', 'Installing Full Python');
      if (p.phase === 'ready') {
        pythonTask.done(p.message);
        pythonTask = null;
      } else pythonTask.update(p.message, p.bytes_total ? p.bytes_done / p.bytes_total : null);
    },
  });
  // The app (never a CLI one-shot) re-optimizes, once the sidecar is up, the modules another DSPy
  // version optimized: a start hook of the sidecar, given to the session that builds it.
  const dspyUpgrade = faceIsApp
    ? createDspyUpgradePolicy({
        catalog: () => catalog.get(),
        optimize: (req, ctx) => Promise.resolve(handlers['skills/optimize'](req, ctx)),
        startTask: (label, opts) => progress.start('sidecar', label, opts),
        log: (m) => logger.info(m),
        error: (m, e) => logger.error(m, e),
      })
    : undefined;
  const warmSandboxAfterMs =
    deps.warmSandboxAfterMs === undefined
      ? deps.mode === 'electron'
        ? 1500
        : null
      : deps.warmSandboxAfterMs;
  // One session object for every slice; switching the workspace swaps what it delegates to.
  const switcher = createSwitchableSession(
    (workspace) =>
      openWorkspaceSession(
        { home, workspace, env: deps.env },
        {
          log: (line) => logger.info(line),
          spawnSandbox,
          spawnSidecar: trackSidecarStarts(progress),
          onSidecarStarted: dspyUpgrade && ((v) => void (disposed || dspyUpgrade(v))),
          warmSandboxAfterMs,
          resourcesPath: deps.resourcesPath,
          llmSkill,
          fullPython,
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
    'app/open-window': (req) => ({ opened: deps.openWindow?.(req.window) ?? false }),
  } satisfies HandlersFor<'app'>;

  // MCP servers' tools in chat, asked for approval first (remembered per workspace).
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
    modelName: (id) => settings.modelName(id),
    // The CLI prints a turn and ends: no call after it. Tests opt in (SKILLDESK_CHAT_TITLES=auto),
    // since scripted providers answer requests in order and a title call would take a turn.
    autoTitles: () =>
      deps.mode === 'cli' || (deps.mode === 'test' && deps.env.SKILLDESK_CHAT_TITLES !== 'auto')
        ? false
        : settings.autoTitles(),
    listingBudget: (choice) => settings.listingBudget(choice),
    home,
  });
  const limits = limitsFrom(deps.env);

  // The open workspace, switched at run time, its pages kept indexed (app faces only:
  // the CLI neither watches nor indexes a folder it merely reads).
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
      }
      const state = workspaceState();
      events.emit('workspace/changed', { ...state, reason: 'opened' });
      return state;
    },
  });

  const handlers: Handlers = {
    ...createSkillsHandlers({ catalog, events, limits, triggerRegressions }),
    ...createSkillAccessHandlers({
      access: () => skillAccess,
      declared: (name) => {
        const { skill } = resolveOrThrow(catalog.get(), name);
        // Every artifact's declared hosts and secrets, each once (one LLM skill declares them today).
        const declared = skill.artifacts.map(declaredAccess);
        const network = [...new Set(declared.flatMap((d) => d.network))];
        const tool_env = [...new Set(declared.flatMap((d) => d.tool_env))];
        return { skill: skill.name, network, tool_env };
      },
    }),
    ...createActivationHandlers({
      catalog,
      now,
      embedInBackground: deps.mode !== 'cli',
      primeMatcher: deps.mode !== 'cli',
      // Tests start many short-lived hosts: they embed when a match asks, not on every import.
      embedOnChange: deps.mode === 'electron' || deps.mode === 'web',
      events,
      onMatched: (matches) => session.matched(matches),
    }),
    ...createSkillRunHandlers({ session, events, limits, llm, now, evalTurn: runEvalTurn }),
    ...createImproveTriggersHandler({ catalog: () => session.catalog.get(), llm, now }),
    ...appHandlers,
    ...chat.handlers,
    ...createPythonHandlers({
      session,
      fullPython,
      fullUnavailable: () => {
        const sup = nativeSandboxSupport();
        return sup.ok ? null : `Full Python needs the OS sandbox, which is not available here: ${sup.reason}`;
      },
    }),
    ...createAttachmentsHandlers({ files: createFileStore(join(home, 'files')) }),
    ...createTracesHandlers({ catalog }),
    ...settings.handlers,
    ...createCodeHandlers({ session }),
    ...createToolHandlers({ session, llm: () => llm(), home }),
    ...createSidecarHandlers({ session }),
    ...workspaceHandlers,
    ...progress.handlers,
    ...createSourcesHandlers({
      catalog,
      home,
      env: deps.env,
      limits,
      onInstalled: (names) => events.emit('skills/catalog-changed', { reason: 'imported', names }),
      triggerRegressions,
    }),
    ...mcp.handlers,
    // The Composer agent (its prompts are the catalog's "Composer Agent" skill).
    ...createComposerHandlers({
      catalog: () => catalog.get(),
      llm,
      events,
      now,
      runCode: createCodeDryRunner(session),
    }),
  };
  // Opening a skill that runs Python (the Composer, the skill view) starts the sandbox early: its
  // run is likely next. The warm-up decides, as for a matching draft (never for a CLI one-shot).
  const getSkill = handlers['skills/get'];
  handlers['skills/get'] = async (req, ctx) => {
    const r = await getSkill(req, ctx);
    session.matched([{ name: r.skill.name, scope: r.skill.scope }]);
    return r;
  };
  // Imports can take a while (many files, zips): each is a task in the progress area.
  const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  handlers['skills/import-packages'] = withProgress(
    progress,
    handlers['skills/import-packages'],
    'import',
    (req) => `Importing ${plural(req.packages.length, 'skill package')}`,
    (res) => `${plural(res.imported.length, 'skill')} imported`,
  );
  // Packages come from the network and a venv is built: minutes on a slow line, shown as a task.
  handlers['scripts/install-packages'] = withProgress(
    progress,
    handlers['scripts/install-packages'],
    'python',
    (req) => `Installing the packages of ${req.name}`,
    (res) =>
      `${res.already_installed ? 'Already installed' : 'Installed'}: ${plural(res.wheels.length, 'package')}`,
  );
  handlers['skills/import-files'] = withProgress(
    progress,
    handlers['skills/import-files'],
    'import',
    (req) => `Importing ${plural(req.files.length, 'file')}`,
    (res) => (res.written ? `${plural(res.packages.length, 'package')} read` : 'Nothing imported'),
  );

  // The app (never a CLI one-shot) checks its sources on launch and every few hours; a check
  // only fetches and compares, installing nothing.
  const stopSourceChecks = faceIsApp
    ? startBackgroundChecks({
        catalog,
        home,
        env: deps.env,
        limits,
        log: (m) => logger.info(m),
        onChecked: (checked) => events.emit('sources/checked', { checked }),
      })
    : () => {};
  let disposed: Promise<void> | null = null;
  return {
    handlers,
    events,
    logger,
    dispose() {
      if (disposed) return disposed;
      stopScanThread();
      stopSourceChecks();
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
