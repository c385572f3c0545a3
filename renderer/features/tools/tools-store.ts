import { createStore, type StoreApi } from 'zustand/vanilla';
import type { AppErrorData } from '../../../electron/contract/errors.js';
import type {
  ApprovalDecision,
  ApprovalRequestedEvent,
  ListApprovalsRes,
  ListServersRes,
  McpServerStatusView,
  SaveServerReq,
  TestServerRes,
  ToolCallProgressedEvent,
} from '../../../electron/contract/tools.js';
import type { Client } from '../../bridge/client.js';

/** MCP servers, their test results, approvals waiting for the user, and tool-call progress. */
export interface ToolsState {
  servers: ListServersRes | null;
  approvals: ListApprovalsRes | null;
  loadError: AppErrorData | null;
  /** Approvals waiting, oldest first (from events, and from the host when a window opens). */
  pending: ApprovalRequestedEvent[];
  /** Approvals being answered (their buttons disabled). */
  answering: Record<string, true>;
  /** Latest progress of running tool calls, by call id. */
  progress: Record<string, ToolCallProgressedEvent>;
  /** Test results (or errors) by server name. */
  tests: Record<
    string,
    | { status: 'running' }
    | { status: 'done'; result: TestServerRes }
    | { status: 'failed'; error: AppErrorData }
  >;
  saveError: AppErrorData | null;
}

/** Events of the tools store. */
export type ToolsEvent =
  | { type: 'servers/loaded'; value: ListServersRes }
  | { type: 'approvals/loaded'; value: ListApprovalsRes }
  | { type: 'load/failed'; error: AppErrorData }
  | { type: 'approval/requested'; e: ApprovalRequestedEvent }
  | { type: 'approval/settled'; approval_id: string }
  | { type: 'approval/answering'; approval_id: string }
  | { type: 'progress'; e: ToolCallProgressedEvent }
  | { type: 'call/finished'; call_id: string }
  | { type: 'status'; s: McpServerStatusView }
  | { type: 'test/started'; name: string }
  | { type: 'test/finished'; name: string; result: TestServerRes }
  | { type: 'test/failed'; name: string; error: AppErrorData }
  | { type: 'save/failed'; error: AppErrorData | null };

/** Before loading. */
export function initialToolsState(): ToolsState {
  return {
    servers: null,
    approvals: null,
    loadError: null,
    pending: [],
    answering: {},
    progress: {},
    tests: {},
    saveError: null,
  };
}

/** Pure transitions. */
export function toolsReducer(s: ToolsState, e: ToolsEvent): ToolsState {
  switch (e.type) {
    case 'servers/loaded':
      return { ...s, servers: e.value, loadError: null };
    case 'approvals/loaded': {
      // Events may have arrived before the list: keep both, once each.
      const known = new Set(s.pending.map((p) => p.approval_id));
      return {
        ...s,
        approvals: e.value,
        pending: [...s.pending, ...e.value.pending.filter((p) => !known.has(p.approval_id))],
      };
    }
    case 'load/failed':
      return { ...s, loadError: e.error };
    case 'approval/requested':
      return s.pending.some((p) => p.approval_id === e.e.approval_id)
        ? s
        : { ...s, pending: [...s.pending, e.e] };
    case 'approval/settled': {
      const { [e.approval_id]: _, ...answering } = s.answering;
      return { ...s, pending: s.pending.filter((p) => p.approval_id !== e.approval_id), answering };
    }
    case 'approval/answering':
      return { ...s, answering: { ...s.answering, [e.approval_id]: true } };
    case 'progress':
      return { ...s, progress: { ...s.progress, [e.e.call_id]: e.e } };
    case 'call/finished': {
      if (!(e.call_id in s.progress)) return s;
      const { [e.call_id]: _, ...progress } = s.progress;
      return { ...s, progress };
    }
    case 'status': {
      if (!s.servers) return s;
      return {
        ...s,
        servers: {
          ...s.servers,
          servers: s.servers.servers.map((x) =>
            x.name === e.s.name && !x.overridden ? { ...x, status: e.s } : x,
          ),
        },
      };
    }
    case 'test/started':
      return { ...s, tests: { ...s.tests, [e.name]: { status: 'running' } } };
    case 'test/finished':
      return { ...s, tests: { ...s.tests, [e.name]: { status: 'done', result: e.result } } };
    case 'test/failed':
      return { ...s, tests: { ...s.tests, [e.name]: { status: 'failed', error: e.error } } };
    case 'save/failed':
      return { ...s, saveError: e.error };
  }
}

/** The store with its actions. */
export interface ToolsStore extends ToolsState {
  load(): Promise<void>;
  answer(approvalId: string, decision: ApprovalDecision): Promise<void>;
  save(req: SaveServerReq): Promise<boolean>;
  remove(scope: 'workspace' | 'account', name: string): Promise<void>;
  setEnabled(scope: 'workspace' | 'account', name: string, enabled: boolean): Promise<void>;
  /** Test a saved server, or a draft config (its result kept under `draft:NAME`). */
  test(name: string, config?: SaveServerReq['config']): Promise<void>;
  revoke(server: string, tool: string): Promise<void>;
  setAutoReadOnly(enabled: boolean): Promise<void>;
  /** Stop listening to host events. */
  dispose(): void;
}

/** Create the tools store; it listens to the host's `tools/*` events at once. */
export function createToolsStore(client: Client): StoreApi<ToolsStore> {
  const store = createStore<ToolsStore>()((set, get) => {
    const apply = (e: ToolsEvent) => set((s) => toolsReducer(s, e));
    return {
      ...initialToolsState(),
      async load() {
        const [servers, approvals] = await Promise.all([
          client.call('tools/list-servers', {}),
          client.call('tools/list-approvals', {}),
        ]);
        if (servers.ok) apply({ type: 'servers/loaded', value: servers.value });
        else apply({ type: 'load/failed', error: servers.error });
        if (approvals.ok) apply({ type: 'approvals/loaded', value: approvals.value });
        else apply({ type: 'load/failed', error: approvals.error });
      },
      async answer(approvalId, decision) {
        apply({ type: 'approval/answering', approval_id: approvalId });
        await client.call('tools/answer-approval', { approval_id: approvalId, decision });
        // Answered here or already settled elsewhere: either way the card goes.
        apply({ type: 'approval/settled', approval_id: approvalId });
        if (decision === 'always') void get().load();
      },
      async save(req) {
        const r = await client.call('tools/save-server', req);
        if (!r.ok) {
          apply({ type: 'save/failed', error: r.error });
          return false;
        }
        apply({ type: 'save/failed', error: null });
        apply({ type: 'servers/loaded', value: r.value });
        return true;
      },
      async remove(scope, name) {
        const r = await client.call('tools/remove-server', { scope, name });
        if (r.ok) apply({ type: 'servers/loaded', value: r.value });
        else apply({ type: 'save/failed', error: r.error });
      },
      async setEnabled(scope, name, enabled) {
        const server = get().servers?.servers.find((x) => x.name === name && x.scope === scope);
        if (!server) return;
        const { disabled: _, ...rest } = server.config;
        const config = enabled ? rest : { ...rest, disabled: true };
        // The switch moves at once; a save that fails puts it back (and says why).
        const before = get().servers!;
        const toggled = (list: ListServersRes) => ({
          ...list,
          servers: list.servers.map((x) => (x === server ? { ...x, config } : x)),
        });
        apply({ type: 'servers/loaded', value: toggled(before) });
        if (!(await get().save({ scope, name, config }))) apply({ type: 'servers/loaded', value: before });
      },
      async test(name, config) {
        // A draft's result is kept apart from the saved server's of the same name.
        const key = config ? `draft:${name}` : name;
        apply({ type: 'test/started', name: key });
        const r = await client.call('tools/test-server', config ? { name: name.trim(), config } : { name });
        if (r.ok) apply({ type: 'test/finished', name: key, result: r.value });
        else apply({ type: 'test/failed', name: key, error: r.error });
      },
      async revoke(server, tool) {
        const r = await client.call('tools/revoke-approval', { server, tool });
        if (r.ok) apply({ type: 'approvals/loaded', value: r.value });
      },
      async setAutoReadOnly(enabled) {
        const r = await client.call('tools/set-auto-read-only', { enabled });
        if (r.ok) apply({ type: 'approvals/loaded', value: r.value });
      },
      dispose() {
        for (const off of offs) off();
      },
    };
  });
  const apply = (e: ToolsEvent) => store.setState((s) => toolsReducer(s, e));
  const offs = [
    client.subscribe('tools/approval-requested', (e) => apply({ type: 'approval/requested', e })),
    client.subscribe('tools/approval-settled', (e) =>
      apply({ type: 'approval/settled', approval_id: e.approval_id }),
    ),
    client.subscribe('tools/call-progressed', (e) => apply({ type: 'progress', e })),
    client.subscribe('tools/server-status-changed', (s) => apply({ type: 'status', s })),
    client.subscribe('chat/tool-call-finished', (e) => apply({ type: 'call/finished', call_id: e.id })),
  ];
  return store;
}
