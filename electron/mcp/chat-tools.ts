/**
 * MCP tools in a chat turn: the hub's tools as model tool specs (annotations in words), each call
 * approved first (see approvals.ts), its progress published, and cancelled with the turn.
 */

import { skillUseTool } from '../contract/builtin-tools.js';
import { BUILTIN_TOOL_SERVER, SKILL_SERVER, type ToolCallProgressedEvent } from '../contract/tools.js';
import type { LlmToolSpec } from '../llm/index.js';
import type { ApprovalBroker, ApprovalVerdict } from './approvals.js';
import type { HubTool, McpHub } from './hub.js';

/** The outcome of one call as the chat engine takes it (its `ToolOutcome`). */
export interface McpToolOutcome {
  ok: boolean;
  result: unknown;
}

/** The server name approvals of skills go under (no MCP server may have it). */
export { SKILL_SERVER };

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
    async reveal(skill: {
      name: string;
      allowed_tools: string | null;
      metadata: Record<string, string> | null;
    }): Promise<string[]> {
      const declared = declaredMcpTools(skill.allowed_tools, skill.metadata);
      if (declared.length === 0) return [];
      const all = await deps.hub.tools([...new Set(declared.map((d) => d.server))]);
      const fresh = all.filter(
        (t) =>
          declared.some(
            (d) =>
              d.server.toLowerCase() === t.server.toLowerCase() &&
              (d.tool === null || d.tool === t.name || clean(d.tool) === clean(t.name)),
          ) && !tools.some((x) => x.exposed === t.exposed),
      );
      tools = [...tools, ...fresh];
      return fresh.map((t) => t.exposed);
    },
    specs(): LlmToolSpec[] {
      return tools.map((t) => ({
        name: t.exposed,
        description: describeTool(t),
        parameters: t.input_schema,
      }));
    },
    /**
     * A skill that may write or reach the network asks like an MCP tool: server `skill`, tool = the
     * skill's name, arguments = the `apply_skill` arguments; once / this chat / always / deny apply.
     */
    async approveSkill(
      ask: {
        skill: string;
        args: Record<string, unknown>;
        effects: { effects: string[]; reasons: string[] };
        /** The effects in words, shown on the approval card. */
        description: string;
      },
      ctx: { call_id: string | null },
    ): Promise<{ allowed: true } | { allowed: false; error: string }> {
      const verdict = await deps.approvals.request(
        {
          session_id: sessionId,
          call_id: ctx.call_id,
          tool: skillUseTool('apply'),
          server: SKILL_SERVER,
          server_tool: ask.skill,
          title: null,
          description: ask.description,
          args: ask.args,
          annotations: {
            readOnlyHint: false,
            openWorldHint: ask.effects.effects.includes('network'),
          },
        },
        signal,
      );
      return verdict.allowed
        ? { allowed: true }
        : { allowed: false, error: deniedError(`skill "${ask.skill}"`, verdict) };
    },
    async approveTool(
      ask: { tool: string; title: string; description: string; args: Record<string, unknown> },
      ctx: { call_id: string | null },
    ): Promise<{ allowed: true } | { allowed: false; error: string }> {
      const verdict = await deps.approvals.request(
        {
          session_id: sessionId,
          call_id: ctx.call_id,
          tool: ask.tool,
          server: BUILTIN_TOOL_SERVER,
          server_tool: ask.tool,
          title: ask.title,
          description: ask.description,
          args: ask.args,
          annotations: { readOnlyHint: false, openWorldHint: false },
        },
        signal,
      );
      return verdict.allowed ? { allowed: true } : { allowed: false, error: deniedError(ask.tool, verdict) };
    },
    progress(callId: string, step: number, message: string): void {
      deps.progressed({ session_id: sessionId, call_id: callId, progress: step, total: null, message });
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
          return {
            ok: false,
            result: { error: deniedError(`${name} (MCP server ${tool.server})`, verdict), denied: true },
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

/** Why a call did not run, for the model. */
function deniedError(what: string, verdict: ApprovalVerdict): string {
  const why =
    verdict.by === 'timeout'
      ? 'nobody answered the approval request in time, so it was denied'
      : verdict.by === 'cancelled'
        ? 'the turn was cancelled before the call was approved'
        : 'the user denied this call';
  return `${what} did not run: ${why}. Do not retry it; continue without it or ask the user.`;
}

function clean(s: string): string {
  return s.replace(/[^a-zA-Z0-9_-]/g, '_');
}

/**
 * The MCP tools a skill declares: Agent Skills `allowed-tools` entries `mcp__SERVER__TOOL`,
 * `mcp__SERVER` (every tool) or `SERVER__TOOL`, and the servers its metadata `mcp-servers` names
 * (space or comma separated, every tool). Other entries (`Bash(git:*)`, `Read`) are not MCP's.
 */
export function declaredMcpTools(
  allowedTools: string | null,
  metadata: Record<string, string> | null,
): Array<{ server: string; tool: string | null }> {
  const out: Array<{ server: string; tool: string | null }> = [];
  for (const token of (allowedTools ?? '').split(/[\s,]+/).filter(Boolean)) {
    if (/^mcp__[A-Za-z0-9._-]+$/.test(token) && !token.slice(5).includes('__')) {
      out.push({ server: token.slice(5), tool: null });
      continue;
    }
    const m = /^(?:mcp__)?([A-Za-z0-9._-]+?)__([A-Za-z0-9._*-]+)$/.exec(token);
    if (m) out.push({ server: m[1]!, tool: m[2] === '*' ? null : m[2]! });
  }
  const servers = metadata?.['mcp-servers'] ?? metadata?.mcp_servers ?? '';
  for (const server of servers.split(/[\s,]+/).filter(Boolean)) out.push({ server, tool: null });
  return out;
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
