/**
 * MCP tools in a chat turn: the hub's tools as model tool specs (annotations in words), each call
 * approved first (see approvals.ts), its progress published, and cancelled with the turn.
 */
import type { ToolCallProgressedEvent } from '../contract/tools.js';
import type { LlmToolSpec } from '../llm/index.js';
import type { ApprovalBroker } from './approvals.js';
import type { HubTool, McpHub } from './hub.js';

/** The outcome of one call as the chat engine takes it (its `ToolOutcome`). */
export interface McpToolOutcome {
  ok: boolean;
  result: unknown;
}

/** What a turn's MCP tools need. */
export interface McpTurnToolsDeps {
  hub: McpHub;
  approvals: ApprovalBroker;
  progressed: (e: ToolCallProgressedEvent) => void;
}

/** The hints a server gives about a tool, in the words the model reads in its description. */
export function describeTool(t: HubTool): string {
  const a = t.annotations ?? {};
  const hints = [
    a.readOnlyHint ? 'read-only' : null,
    a.destructiveHint ? 'destructive' : null,
    a.idempotentHint ? 'idempotent' : null,
    a.openWorldHint ? 'reaches outside systems' : null,
  ].filter(Boolean);
  const head = `[MCP server ${t.server}${hints.length ? `; ${hints.join(', ')}` : ''}]`;
  return `${head} ${t.title && t.title !== t.name ? `${t.title}. ` : ''}${t.description ?? ''}`
    .trim()
    .slice(0, 4000);
}

/**
 * The MCP tools of one session's turn, shaped as the chat engine's `ExternalTools` (structurally:
 * the engine's folder is not imported here).
 */
export function mcpTurnTools(deps: McpTurnToolsDeps, sessionId: string, signal?: AbortSignal) {
  let tools: HubTool[] = [];
  return {
    async prepare(): Promise<void> {
      tools = await deps.hub.tools();
    },
    specs(): LlmToolSpec[] {
      return tools.map((t) => ({
        name: t.exposed,
        description: describeTool(t),
        parameters: t.input_schema,
      }));
    },
    call(name: string, args: unknown, ctx: { call_id: string | null }): Promise<McpToolOutcome> | undefined {
      const tool = tools.find((t) => t.exposed === name);
      if (!tool) return undefined;
      return (async () => {
        const input = asArgs(args);
        if (!input) return { ok: false, result: { error: `${name} takes a JSON object of arguments` } };
        const verdict = await deps.approvals.request(
          {
            session_id: sessionId,
            call_id: ctx.call_id,
            tool: name,
            server: tool.server,
            server_tool: tool.name,
            title: tool.title,
            description: tool.description,
            args: input,
            annotations: tool.annotations,
          },
          signal,
        );
        if (!verdict.allowed) {
          const why =
            verdict.by === 'timeout'
              ? 'nobody answered the approval request in time, so it was denied'
              : verdict.by === 'cancelled'
                ? 'the turn was cancelled before the call was approved'
                : 'the user denied this call';
          return {
            ok: false,
            result: {
              error: `${name} (MCP server ${tool.server}) did not run: ${why}. Do not retry it; continue without it or ask the user.`,
              denied: true,
            },
          };
        }
        return deps.hub.call(tool, input, {
          signal,
          onProgress: (p) =>
            ctx.call_id &&
            deps.progressed({
              session_id: sessionId,
              call_id: ctx.call_id,
              progress: p.progress,
              total: p.total ?? null,
              message: p.message ?? null,
            }),
        });
      })();
    },
  };
}

function asArgs(v: unknown): Record<string, unknown> | null {
  if (v === undefined || v === null || v === '') return {};
  if (typeof v === 'string') {
    try {
      return asArgs(JSON.parse(v));
    } catch {
      return null;
    }
  }
  return typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}
