import { createContext, type ReactNode, useContext, useEffect, useState } from 'react';
import { useStore } from 'zustand';
import type { StoreApi } from 'zustand/vanilla';
import { type AppState, createAppStore } from './app-store.js';
import type { Client } from './bridge/client.js';
import type { ConnectionStatus } from './bridge/transport.js';
import { type CanvasStore, createCanvasStore } from './features/canvas/canvas-store.js';
import { type ChatStore, createChatStore } from './features/chat/chat-store.js';
import { createDrafts, type Drafts } from './features/chat/drafts.js';
import { createMatchStore, type MatchStore } from './features/chat/match-store.js';
import { type ComposerStore, createComposerStore } from './features/composer/composer-store.js';
import { createProvidersStore, type ProvidersStore } from './features/settings/providers-store.js';
import {
  createSettingsStore,
  type PrefStorage,
  type SettingsStore,
} from './features/settings/settings-store.js';
import { createSkillsStore, type SkillsStore } from './features/skills/skills-store.js';
import { createToolsStore, type ToolsStore } from './features/tools/tools-store.js';
import { createTraceListStore, type TraceListStore } from './features/traces/trace-list-store.js';
import { createTracesStore, type TracesStore } from './features/traces/traces-store.js';
import { createWorkspaceStore, type WorkspaceStore } from './features/workspace/workspace-store.js';

/** Every feature store of one app instance. */
export interface Stores {
  client: Client;
  app: StoreApi<AppState>;
  skills: StoreApi<SkillsStore>;
  match: StoreApi<MatchStore>;
  settings: StoreApi<SettingsStore>;
  chat: StoreApi<ChatStore>;
  traces: StoreApi<TracesStore>;
  /** The Traces view (filters, totals, export). */
  traceList: StoreApi<TraceListStore>;
  /** The open workspace, its switcher, and the progress area. */
  workspace: StoreApi<WorkspaceStore>;
  providers: StoreApi<ProvidersStore>;
  composer: StoreApi<ComposerStore>;
  /** MCP servers, tool approvals and tool-call progress. */
  tools: StoreApi<ToolsStore>;
  /** Unsent text per chat. */
  drafts: Drafts;
  /** The canvas beside the chat (a long reply, a result or a file). */
  canvas: StoreApi<CanvasStore>;
  connection: { status: () => ConnectionStatus; onStatus: (cb: (s: ConnectionStatus) => void) => () => void };
}

/** Create the stores of one app instance (each test makes its own). */
export function createStores(
  client: Client,
  opts: { storage?: PrefStorage | null; connection?: Stores['connection'] } = {},
): Stores {
  const stores: Omit<Stores, 'workspace'> = {
    client,
    app: createAppStore('chat', opts.storage ?? null),
    skills: createSkillsStore(client),
    match: createMatchStore(client),
    settings: createSettingsStore(client, opts.storage ?? null),
    chat: createChatStore(client),
    traces: createTracesStore(client),
    traceList: createTraceListStore(client),
    providers: createProvidersStore(client),
    composer: createComposerStore(client, opts.storage ?? null),
    tools: createToolsStore(client),
    drafts: createDrafts(opts.storage ?? null),
    canvas: createCanvasStore(opts.storage ?? null),
    connection: opts.connection ?? { status: () => 'open', onStatus: () => () => {} },
  };
  // Another workspace opened (here or in another window): every view reloads from it.
  const onSwitched = () => {
    stores.chat.getState().newChat();
    stores.canvas.getState().close();
    void stores.chat.getState().loadSessions();
    void stores.skills.getState().load();
    void stores.composer.getState().loadCatalog();
    void stores.traceList.getState().load();
    void stores.settings.getState().loadInfo();
  };
  return { ...stores, workspace: createWorkspaceStore(client, onSwitched) };
}

const StoresContext = createContext<Stores | null>(null);

/** Provide the stores to the tree. */
export function StoresProvider({ stores, children }: { stores: Stores; children: ReactNode }) {
  const [value] = useState(stores);
  return <StoresContext.Provider value={value}>{children}</StoresContext.Provider>;
}

/** The stores of the nearest provider. */
export function useStores(): Stores {
  const s = useContext(StoresContext);
  if (!s) throw new Error('useStores needs a StoresProvider above it');
  return s;
}

/** Select from the Skills store. */
export function useSkillsStore<T>(selector: (s: SkillsStore) => T): T {
  return useStore(useStores().skills, selector);
}
/** Select from the activation preview store. */
export function useMatchStore<T>(selector: (s: MatchStore) => T): T {
  return useStore(useStores().match, selector);
}
/** Select from the settings store. */
export function useSettingsStore<T>(selector: (s: SettingsStore) => T): T {
  return useStore(useStores().settings, selector);
}
/** Select from the navigation store. */
export function useAppStore<T>(selector: (s: AppState) => T): T {
  return useStore(useStores().app, selector);
}
/** Select from the chat store. */
export function useChatStore<T>(selector: (s: ChatStore) => T): T {
  return useStore(useStores().chat, selector);
}
/** Select from the trace drawer store. */
export function useTracesStore<T>(selector: (s: TracesStore) => T): T {
  return useStore(useStores().traces, selector);
}
/** Select from the provider settings store. */
export function useProvidersStore<T>(selector: (s: ProvidersStore) => T): T {
  return useStore(useStores().providers, selector);
}

/** Whether the window can reach SkillDesk now (web mode can lose its WebSocket). */
export function useConnectionStatus(): ConnectionStatus {
  const { connection } = useStores();
  const [status, setStatus] = useState(connection.status());
  useEffect(() => {
    const off = connection.onStatus(setStatus);
    // The socket may have opened between the first render and this subscription.
    setStatus(connection.status());
    return off;
  }, [connection]);
  return status;
}

/** Select from the Skill Composer store. */
export function useComposerStore<T>(selector: (s: ComposerStore) => T): T {
  return useStore(useStores().composer, selector);
}

/** Select from the tools store (MCP servers and approvals). */
export function useToolsStore<T>(selector: (s: ToolsStore) => T): T {
  return useStore(useStores().tools, selector);
}
