/**
 * The composition root: opens the stores and wires every capability's handler slice into one
 * table, served unchanged by IPC (Electron), WebSocket (web mode) and in-process (tests).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppInfoRes, AppMode } from './contract/app.js';
import type { Handlers, HandlersFor } from './contract/channels.js';
import { createChatHandlers } from './host/chat-handlers.js';
import { createEventHub, type EventHub } from './host/events.js';
import { createFileSecretStore, type SecretStore } from './host/secrets.js';
import { createProviderSettings } from './host/settings-handlers.js';
import { type CatalogRef, createSkillsHandlers } from './host/skills-handlers.js';
import { createTracesHandlers } from './host/traces-handlers.js';
import type { SpawnSandboxProcess } from './sandbox/index.js';
import { limitsFrom, openCatalog, type SkillCatalog } from './skills/index.js';
import { resolveHome, type Scope, storeFile } from './store/index.js';

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
}

/** The running core: the handler table, the event hub, and how to shut it down. */
export interface Host {
  handlers: Handlers;
  events: EventHub;
  logger: Logger;
  dispose(): void;
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
  const home = resolveHome(deps.home, deps.env);
  const workspace = deps.workspace ? resolve(deps.workspace) : undefined;
  const loc = { home, workspace, env: deps.env };
  let catalog: SkillCatalog = openCatalog(loc, { createWorkspace: false });
  const events = createEventHub((e) => logger.error('an event listener failed', e));

  const catalogRef: CatalogRef = {
    get: () => catalog,
    hasWorkspace: () => workspace !== undefined,
    withStore(scope: Scope) {
      if (scope === 'workspace' && !catalog.workspace && workspace) {
        // The workspace store is created on its first write, so browsing never leaves files behind.
        const next = openCatalog(loc, { createWorkspace: true });
        catalog.close();
        catalog = next;
      }
      const store = catalog.store(scope);
      if (!store) throw new Error(`the ${scope} store is not open`);
      return { catalog, store };
    },
  };

  const version = deps.version ?? appVersion();
  const appHandlers = {
    'app/info': (): AppInfoRes => ({
      name: 'SkillDesk',
      version,
      mode: deps.mode,
      home,
      workspace: workspace ?? null,
      stores: {
        account: { file: catalog.account.file },
        workspace: workspace
          ? {
              file: storeFile(workspace),
              exists: catalog.workspace !== null || existsSync(storeFile(workspace)),
            }
          : null,
      },
      platform: process.platform,
    }),
  } satisfies HandlersFor<'app'>;

  const now = deps.now ?? (() => performance.now());
  const settings = createProviderSettings({
    home,
    env: deps.env,
    secrets: deps.secrets ?? createFileSecretStore(home),
    events,
    now,
    onWarning: (m) => logger.info(m),
  });
  const chat = createChatHandlers({
    catalog: catalogRef,
    events,
    logger,
    home,
    workspace,
    llm: () => settings.chatLlm(),
    spawnSandbox: deps.spawnSandbox,
    resourcesPath: deps.resourcesPath,
  });

  const handlers: Handlers = {
    ...createSkillsHandlers({ catalog: catalogRef, events, limits: limitsFrom(deps.env), now }),
    ...appHandlers,
    ...chat.handlers,
    ...createTracesHandlers({ catalog: catalogRef }),
    ...settings.handlers,
  };

  let disposed = false;
  return {
    handlers,
    events,
    logger,
    dispose() {
      if (disposed) return;
      disposed = true;
      void chat.dispose().catch((e) => logger.error('stopping the skill runtime failed', e));
      events.clear();
      catalog.close();
    },
  };
}
