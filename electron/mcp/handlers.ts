/**
 * The `tools/*` slice: MCP servers configured in `mcp.json` (both scopes), tested,
 * connected for chat through one hub, and approvals before their tools run.
 */
import { resolve } from 'node:path';
import type { EventName, EventPayload, HandlersFor } from '../contract/channels.js';
import { AppError } from '../contract/errors.js';
import type { ListApprovalsRes, ListServersRes } from '../contract/tools.js';
import { ApprovalBroker, type ApprovalStore } from './approvals.js';
import { mcpTurnTools } from './chat-tools.js';
import { listMcpServers, MCP_CONFIG_FILE, testMcpServer } from './client.js';
import { removeServerConfig, saveServerConfig } from './config-file.js';
import { McpHub, type ResourceContents } from './hub.js';
import { resourceAttachment } from './resource-attachment.js';

/** What the slice needs from the host. */
export interface McpSliceDeps {
  /** The account folder and the open workspace (read on each call: the workspace can change). */
  home: () => string;
  workspace: () => string | undefined;
  env: NodeJS.ProcessEnv;
  events: { emit<E extends EventName>(event: E, payload: EventPayload<E>): void };
  /** Remembered approvals of the open workspace (its store; the account's without one). */
  approvalStore: () => ApprovalStore;
  /** How long an approval waits before it denies (default 5 minutes). */
  approvalTimeoutMs?: number;
}

/** The slice, the turn tools the chat engine takes, and its lifecycle. */
export interface McpSlice {
  handlers: HandlersFor<'tools'>;
  hub: McpHub;
  approvals: ApprovalBroker;
  /** The MCP tools of a session's turn (the chat engine's `ExternalTools`). */
  turnTools: (sessionId: string, signal?: AbortSignal) => ReturnType<typeof mcpTurnTools>;
  dispose(): Promise<void>;
}

/** Build the `tools/*` slice. */
export function createMcpSlice(deps: McpSliceDeps): McpSlice {
  const servers = () => listMcpServers(deps.home(), deps.workspace());
  const hub = new McpHub({
    servers,
    env: deps.env,
    onStatus: (s) => deps.events.emit('tools/server-status-changed', s),
  });
  const approvals = new ApprovalBroker({
    store: deps.approvalStore,
    requested: (e) => deps.events.emit('tools/approval-requested', e),
    settled: (e) => deps.events.emit('tools/approval-settled', e),
    timeoutMs: deps.approvalTimeoutMs,
  });

  const dirOf = (scope: 'workspace' | 'account'): string => {
    if (scope === 'account') return deps.home();
    const ws = deps.workspace();
    if (!ws)
      throw new AppError('INVALID_INPUT', 'no workspace is open; save the server to the account instead');
    return ws;
  };

  const list = (): ListServersRes => {
    const ws = deps.workspace();
    const files = {
      account: resolve(deps.home(), MCP_CONFIG_FILE),
      workspace: ws ? resolve(ws, MCP_CONFIG_FILE) : null,
    };
    let configured: ReturnType<typeof servers>;
    try {
      configured = servers();
    } catch (e) {
      return { servers: [], files, error: (e as Error).message };
    }
    const status = new Map(hub.status().map((s) => [s.name, s]));
    return {
      servers: configured.map((s) => ({
        name: s.name,
        scope: s.scope,
        config: s.config as ListServersRes['servers'][number]['config'],
        overridden: s.overridden,
        status: s.overridden ? null : (status.get(s.name) ?? null),
      })),
      files,
      error: null,
    };
  };

  const approvalsView = (): ListApprovalsRes => {
    const store = deps.approvalStore();
    return { remembered: store.list(), auto_read_only: store.autoReadOnly(), pending: approvals.pending() };
  };

  const handlers = {
    'tools/list-servers': () => list(),
    'tools/save-server': (req) => {
      saveServerConfig(dirOf(req.scope), req.name, req.config, req.previous_name);
      return list();
    },
    'tools/remove-server': (req) => {
      removeServerConfig(dirOf(req.scope), req.name);
      return list();
    },
    'tools/test-server': async (req) => {
      const found = req.config
        ? { name: req.name, scope: 'account' as const, config: req.config, overridden: false }
        : servers().find((s) => !s.overridden && s.name.toLowerCase() === req.name.toLowerCase());
      if (!found)
        throw new AppError(
          'NOT_FOUND',
          `No MCP server named "${req.name}" is configured; see Settings → Tools or skilldesk mcp servers`,
          {
            name: req.name,
          },
        );
      return testMcpServer(found, deps.env, { timeoutMs: req.timeout_ms ?? 20_000 });
    },
    'tools/read-resource': async (req) => {
      let contents: ResourceContents[];
      try {
        contents = await hub.readResource(req.server, req.uri);
      } catch (e) {
        throw new AppError(
          'NOT_FOUND',
          `could not read ${req.uri} from ${req.server}: ${(e as Error).message}`,
        );
      }
      return resourceAttachment(req, contents);
    },
    'tools/list-resources': () => hub.resources(),
    'tools/list-prompts': () => hub.prompts(),
    'tools/get-prompt': async (req) => {
      try {
        return await hub.getPrompt(req.server, req.name, req.arguments ?? {});
      } catch (e) {
        throw new AppError(
          'NOT_FOUND',
          `could not get prompt ${req.name} from ${req.server}: ${(e as Error).message}`,
        );
      }
    },
    'tools/answer-approval': (req) => ({ answered: approvals.answer(req.approval_id, req.decision) }),
    'tools/list-approvals': () => approvalsView(),
    'tools/revoke-approval': (req) => {
      if (!deps.approvalStore().remove(req.server, req.tool))
        throw new AppError('NOT_FOUND', `${req.tool} of ${req.server} is not always allowed here`);
      return approvalsView();
    },
    'tools/set-auto-read-only': (req) => {
      deps.approvalStore().setAutoReadOnly(req.enabled);
      return approvalsView();
    },
  } satisfies HandlersFor<'tools'>;

  return {
    handlers,
    hub,
    approvals,
    turnTools: (sessionId, signal) =>
      mcpTurnTools(
        { hub, approvals, progressed: (e) => deps.events.emit('tools/call-progressed', e) },
        sessionId,
        signal,
      ),
    async dispose() {
      approvals.denyAll();
      await hub.close();
    },
  };
}
