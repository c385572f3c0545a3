/**
 * Live connections to the configured MCP servers, for chat: their tools offered to the model under
 * provider-safe names (`server__tool`, at most 64 of `[a-zA-Z0-9_-]`), calls with progress and
 * cancellation, and a server that dies restarted with back-off — its failure reported, never
 * thrown into a turn.
 */
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type {
  McpPromptMessageView,
  McpPromptView,
  McpResourceView,
  McpServerStatusView,
  McpToolAnnotations,
  McpToolView,
} from '../contract/tools.js';
import { reservedServerName } from '../contract/tools.js';
import { type ConfiguredServer, serverEnvironment } from './client.js';

/** Providers accept tool names of at most 64 characters from this set. */
const NAME_LIMIT = 64;

function clean(s: string): string {
  return s.replace(/[^a-zA-Z0-9_-]/g, '_');
}

/**
 * The name the model sees for tool `tool` of server `server`: `server__tool`, cleaned to the
 * characters every provider accepts; too long, it keeps a prefix and a short hash of the whole, so
 * two long names never meet.
 */
export function exposedToolName(server: string, tool: string): string {
  const full = `${clean(server)}__${clean(tool)}`;
  if (full.length <= NAME_LIMIT) return full;
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8);
  return `${full.slice(0, NAME_LIMIT - 9)}_${hash}`;
}

/** One MCP tool as chat offers it. */
export interface HubTool extends McpToolView {
  /** The name the model calls it by. */
  exposed: string;
  server: string;
}

/** One part of a resource as a server sent it: text, or base64 `blob`. */
export interface ResourceContents {
  uri: string;
  mime_type: string | null;
  text?: string;
  blob?: string;
}

/** A tool call's result as the model receives it. */
export interface HubCallResult {
  ok: boolean;
  result: unknown;
}

/** What the hub needs. */
export interface McpHubOptions {
  /** The configured servers (read again on every connect, so edits apply). */
  servers: () => ConfiguredServer[];
  /** The app's environment (filtered per server; provider keys never pass). */
  env: NodeJS.ProcessEnv;
  /** Told whenever a server's state changes (connected, failed, restarting). */
  onStatus?: (s: McpServerStatusView) => void;
  /** Connect/list timeout (default 20 s); a call's own timeout resets on progress. */
  timeoutMs?: number;
  /** Delay before the n-th restart (default 1 s doubling to 30 s). */
  backoffMs?: (attempt: number) => number;
}

const defaultBackoff = (n: number) => Math.min(30_000, 1000 * 2 ** Math.max(0, n - 1));

type State = McpServerStatusView['state'];

/** One server's connection and its restart bookkeeping. */
class Connection {
  client: Client | null = null;
  transport: McpServerStatusView['transport'];
  state: State = 'idle';
  error: string | null = null;
  failures = 0;
  restarts = 0;
  retryAt: number | null = null;
  tools: HubTool[] = [];
  /**
   * When the tool list stops being fresh: listed time + the server's `ttlMs` (2026-07-28 cache
   * hint), 0 after a `tools/list_changed`, null when neither was given (fresh until told).
   */
  toolsStaleAt: number | null = null;
  pid: number | null = null;
  private connecting: Promise<void> | null = null;
  private relisting: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closing = false;

  constructor(
    public server: ConfiguredServer,
    private readonly hub: McpHub,
  ) {
    this.transport = 'command' in server.config ? 'stdio' : 'http';
  }

  view(): McpServerStatusView {
    return {
      name: this.server.name,
      scope: this.server.scope,
      transport: this.transport,
      state: this.state,
      error: this.error,
      retry_at: this.retryAt ? new Date(this.retryAt).toISOString() : null,
      restarts: this.restarts,
      tools: this.tools.length,
      pid: this.pid,
    };
  }

  private set(state: State, error: string | null = null) {
    this.state = state;
    this.error = error;
    this.hub.opts.onStatus?.(this.view());
  }

  /** Connect unless connected (or waiting out a back-off); never throws. */
  ensure(): Promise<void> {
    if (this.state === 'ready' || this.closing) return Promise.resolve();
    if (this.state === 'failed' && this.retryAt && Date.now() < this.retryAt) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async connect(): Promise<void> {
    this.set('connecting');
    const timeout = this.hub.opts.timeoutMs ?? 20_000;
    try {
      const client = await withTimeout(this.open(), timeout, `${this.server.name} did not answer`);
      await this.listTools(client);
      this.client = client;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        this.toolsStaleAt = 0;
      });
      this.failures = 0;
      this.retryAt = null;
      // A close we did not ask for is a death: restart with back-off.
      client.onclose = () => {
        if (this.client === client && !this.closing) this.died('the server closed the connection');
      };
      this.set('ready');
    } catch (e) {
      this.died(`could not start: ${(e as Error).message}`);
    }
  }

  private async listTools(client: Client): Promise<void> {
    const timeout = this.hub.opts.timeoutMs ?? 20_000;
    const caps = client.getServerCapabilities() ?? {};
    const listed = caps.tools ? await client.listTools(undefined, { timeout }) : { tools: [] };
    this.tools = listed.tools.map((t) => ({
      exposed: exposedToolName(this.server.name, t.name),
      server: this.server.name,
      name: t.name,
      title: t.title ?? t.annotations?.title ?? null,
      description: t.description ?? null,
      input_schema: (t.inputSchema as Record<string, unknown>) ?? { type: 'object' },
      annotations: (t.annotations as McpToolAnnotations | undefined) ?? null,
    }));
    const ttl = (listed as { ttlMs?: unknown }).ttlMs;
    this.toolsStaleAt = typeof ttl === 'number' && Number.isFinite(ttl) && ttl >= 0 ? Date.now() + ttl : null;
  }

  /**
   * List the tools again when their list went stale (its TTL ran out or the server said it
   * changed); a failure keeps the list it had, so a slow server never empties a turn's tools.
   */
  refreshTools(): Promise<void> {
    const client = this.client;
    if (this.state !== 'ready' || !client || this.toolsStaleAt === null || Date.now() < this.toolsStaleAt)
      return Promise.resolve();
    this.relisting ??= this.listTools(client)
      .catch(() => {})
      .finally(() => {
        this.relisting = null;
      });
    return this.relisting;
  }

  private async open(): Promise<Client> {
    const reserved = reservedServerName(this.server.name);
    if (reserved) throw new Error(`${reserved} in its mcp.json`);
    const cfg = this.server.config as {
      command?: string;
      args?: string[];
      env?: Record<string, string>;
      cwd?: string;
      url?: string;
      headers?: Record<string, string>;
    };
    const make = () => new Client({ name: 'skilldesk', version: '1' });
    if (cfg.command) {
      const client = make();
      const transport = new StdioClientTransport({
        command: cfg.command,
        args: cfg.args ?? [],
        env: serverEnvironment(this.hub.opts.env, cfg.env),
        ...(cfg.cwd ? { cwd: cfg.cwd } : {}),
        stderr: 'ignore',
      });
      await client.connect(transport);
      this.pid = transport.pid;
      return client;
    }
    const url = new URL(String(cfg.url));
    const init = { headers: cfg.headers ?? {} };
    const first = make();
    try {
      await first.connect(new StreamableHTTPClientTransport(url, { requestInit: init }));
      this.transport = 'http';
      return first;
    } catch (e) {
      await first.close().catch(() => {});
      // Older servers speak the 2024-11 HTTP+SSE transport: try it before giving up.
      const legacy = make();
      try {
        await legacy.connect(new SSEClientTransport(url, { requestInit: init }) as Transport);
        this.transport = 'sse';
        return legacy;
      } catch {
        await legacy.close().catch(() => {});
        throw e;
      }
    }
  }

  private died(reason: string) {
    const client = this.client;
    this.client = null;
    this.tools = [];
    this.pid = null;
    if (client) void client.close().catch(() => {});
    this.failures++;
    const delay = (this.hub.opts.backoffMs ?? defaultBackoff)(this.failures);
    this.retryAt = Date.now() + delay;
    this.set('failed', reason);
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.closing) return;
      this.restarts++;
      // The back-off is over: a timer may fire a millisecond before Date.now() reaches retryAt,
      // and ensure() would then wait for a retry that nothing schedules any more.
      this.retryAt = null;
      void this.ensure();
    }, delay);
    this.timer.unref?.();
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.timer) clearTimeout(this.timer);
    const c = this.client;
    this.client = null;
    await c?.close().catch(() => {});
  }
}

async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Progress of a running call, as servers report it. */
export interface HubProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** The MCP servers of the open workspace, connected on first use. */
export class McpHub {
  private readonly conns = new Map<string, Connection>();
  /** Disabled servers a skill asked for (connected on demand, never offered to other turns). */
  private readonly onDemand = new Set<string>();

  constructor(readonly opts: McpHubOptions) {}

  /** The enabled (and on-demand) servers' connections, matching the configuration as it is now. */
  private sync(): Connection[] {
    const active = this.opts
      .servers()
      .filter((s) => !s.overridden && (!s.config.disabled || this.onDemand.has(s.name.toLowerCase())));
    const names = new Set(active.map((s) => s.name));
    for (const [name, c] of this.conns) {
      const now = active.find((s) => s.name === name);
      // Removed or reconfigured: close it; a fresh connection starts with the new config.
      if (!now || JSON.stringify(now.config) !== JSON.stringify(c.server.config)) {
        void c.close();
        this.conns.delete(name);
      }
    }
    for (const s of active) if (!this.conns.has(s.name)) this.conns.set(s.name, new Connection(s, this));
    return [...this.conns.values()].filter((c) => names.has(c.server.name));
  }

  /**
   * Every enabled server's tools, connecting the ones not yet connected (in parallel); `include`
   * names disabled servers to connect too (a skill declared them), whose tools come back as well.
   */
  async tools(include: string[] = []): Promise<HubTool[]> {
    const wanted = new Set(include.map((n) => n.toLowerCase()));
    for (const n of wanted) this.onDemand.add(n);
    let conns: Connection[];
    try {
      conns = this.sync().filter((c) => !c.server.config.disabled || wanted.has(c.server.name.toLowerCase()));
    } catch {
      return []; // a broken mcp.json is reported by the Tools settings, not by a turn
    }
    await Promise.all(
      conns.map(async (c) => {
        await c.ensure();
        await c.refreshTools();
      }),
    );
    return conns.flatMap((c) => c.tools);
  }

  /** The state of every enabled server (without connecting). */
  status(): McpServerStatusView[] {
    try {
      return this.sync().map((c) => c.view());
    } catch {
      return [];
    }
  }

  /** The PID of a stdio server's process, when it runs. */
  pid(server: string): number | null {
    return this.conns.get(server)?.pid ?? null;
  }

  /** Find a tool by the name the model used. */
  find(exposed: string): HubTool | undefined {
    for (const c of this.conns.values()) {
      const t = c.tools.find((x) => x.exposed === exposed);
      if (t) return t;
    }
    return undefined;
  }

  /**
   * Call a tool. Never throws: a dead server, a timeout or a cancellation come back as an error
   * result. Aborting `signal` sends the server `notifications/cancelled`.
   */
  async call(
    tool: HubTool,
    args: Record<string, unknown>,
    opts: { signal?: AbortSignal; onProgress?: (p: HubProgress) => void; timeoutMs?: number } = {},
  ): Promise<HubCallResult> {
    const c = this.conns.get(tool.server);
    if (!c?.client) {
      return {
        ok: false,
        result: {
          error: `the MCP server "${tool.server}" is not running${c?.error ? ` (${c.error})` : ''}; it is restarted automatically, try again shortly`,
        },
      };
    }
    try {
      const r = await c.client.callTool({ name: tool.name, arguments: args }, undefined, {
        signal: opts.signal,
        timeout: opts.timeoutMs ?? 120_000,
        resetTimeoutOnProgress: true,
        onprogress: opts.onProgress
          ? (p) =>
              opts.onProgress!({
                progress: p.progress,
                ...(p.total !== undefined ? { total: p.total } : {}),
                ...(p.message ? { message: p.message } : {}),
              })
          : undefined,
      });
      // The pre-2025 `toolResult` shape counts as structured content.
      const shaped = (
        'toolResult' in r && !('content' in r) ? { structuredContent: r.toolResult } : r
      ) as Parameters<typeof toolResultView>[0];
      return { ok: shaped.isError !== true, result: toolResultView(shaped) };
    } catch (e) {
      if (opts.signal?.aborted) return { ok: false, result: { error: 'the call was cancelled' } };
      return { ok: false, result: { error: `${tool.server}: ${(e as Error).message}` } };
    }
  }

  /** Read a resource of an enabled server: its contents as the server sent them. */
  async readResource(server: string, uri: string): Promise<ResourceContents[]> {
    const c = this.sync().find((x) => x.server.name === server);
    if (!c) throw new Error(`no enabled MCP server named "${server}"`);
    await c.ensure();
    if (!c.client) throw new Error(`the MCP server "${server}" is not running (${c.error ?? 'unknown'})`);
    const r = await c.client.readResource({ uri });
    return r.contents.map((x) => ({
      uri: x.uri,
      mime_type: x.mimeType ?? null,
      ...('text' in x && typeof x.text === 'string' ? { text: x.text } : {}),
      ...('blob' in x && typeof x.blob === 'string' ? { blob: x.blob } : {}),
    }));
  }

  /**
   * The resources of every enabled server (to attach one to a message), connecting the ones
   * not yet connected; a server that fails or lists none adds its failure instead.
   */
  async resources(): Promise<{
    resources: McpResourceView[];
    failed: Array<{ server: string; error: string }>;
  }> {
    let conns: Connection[];
    try {
      conns = this.sync().filter((c) => !c.server.config.disabled);
    } catch (e) {
      return { resources: [], failed: [{ server: 'mcp.json', error: (e as Error).message }] };
    }
    const failed: Array<{ server: string; error: string }> = [];
    const lists = await Promise.all(
      conns.map(async (c): Promise<McpResourceView[]> => {
        try {
          await c.ensure();
          const client = c.client;
          if (!client) throw new Error(c.error ?? 'not running');
          if (!client.getServerCapabilities()?.resources) return [];
          const out: McpResourceView[] = [];
          let cursor: string | undefined;
          // Pages until the end, at most 1000 resources a server.
          do {
            const page = await client.listResources(cursor ? { cursor } : {});
            for (const r of page.resources)
              out.push({
                server: c.server.name,
                uri: r.uri,
                name: r.name,
                title: r.title ?? null,
                description: r.description ?? null,
                mime_type: r.mimeType ?? null,
                size: typeof r.size === 'number' ? r.size : null,
              });
            cursor = page.nextCursor;
          } while (cursor && out.length < 1000);
          return out.slice(0, 1000);
        } catch (e) {
          failed.push({ server: c.server.name, error: (e as Error).message });
          return [];
        }
      }),
    );
    return { resources: lists.flat(), failed };
  }

  /**
   * The prompts of every enabled server (for the chat's `/` menu), connecting the ones not yet
   * connected; a server that fails adds its failure instead.
   */
  async prompts(): Promise<{ prompts: McpPromptView[]; failed: Array<{ server: string; error: string }> }> {
    let conns: Connection[];
    try {
      conns = this.sync().filter((c) => !c.server.config.disabled);
    } catch (e) {
      return { prompts: [], failed: [{ server: 'mcp.json', error: (e as Error).message }] };
    }
    const failed: Array<{ server: string; error: string }> = [];
    const lists = await Promise.all(
      conns.map(async (c): Promise<McpPromptView[]> => {
        try {
          await c.ensure();
          const client = c.client;
          if (!client) throw new Error(c.error ?? 'not running');
          if (!client.getServerCapabilities()?.prompts) return [];
          const out: McpPromptView[] = [];
          let cursor: string | undefined;
          do {
            const page = await client.listPrompts(cursor ? { cursor } : {});
            for (const p of page.prompts)
              out.push({
                server: c.server.name,
                name: p.name,
                title: p.title ?? null,
                description: p.description ?? null,
                arguments: (p.arguments ?? []).map((a) => ({
                  name: a.name,
                  title: (a as { title?: string }).title ?? null,
                  description: a.description ?? null,
                  required: a.required === true,
                })),
              });
            cursor = page.nextCursor;
          } while (cursor && out.length < 500);
          return out.slice(0, 500);
        } catch (e) {
          failed.push({ server: c.server.name, error: (e as Error).message });
          return [];
        }
      }),
    );
    return { prompts: lists.flat(), failed };
  }

  /** A prompt of a server, filled with `args`: its messages as text (non-text parts named). */
  async getPrompt(
    server: string,
    name: string,
    args: Record<string, string>,
  ): Promise<{ description: string | null; messages: McpPromptMessageView[] }> {
    const c = this.sync().find((x) => x.server.name === server);
    if (!c) throw new Error(`no enabled MCP server named ${server}`);
    await c.ensure();
    if (!c.client) throw new Error(c.error ?? `${server} is not running`);
    const r = await c.client.getPrompt({ name, arguments: args }, { timeout: this.opts.timeoutMs ?? 20_000 });
    return {
      description: r.description ?? null,
      messages: r.messages.map((m) => {
        const part = m.content as { type: string; text?: string; resource?: { uri: string; text?: string } };
        const text =
          part.type === 'text'
            ? (part.text ?? '')
            : part.type === 'resource' && typeof part.resource?.text === 'string'
              ? part.resource.text
              : `[${part.type}${part.resource?.uri ? ` ${part.resource.uri}` : ''}]`;
        return { role: m.role, text };
      }),
    };
  }

  /** Close every connection (stdio servers are stopped). */
  async close(): Promise<void> {
    const all = [...this.conns.values()];
    this.conns.clear();
    await Promise.all(all.map((c) => c.close()));
  }
}

/** An MCP tool result as JSON for the model: structured content when given, else its text. */
export function toolResultView(r: {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
}): unknown {
  if (r.structuredContent !== undefined) return r.structuredContent;
  const content = Array.isArray(r.content) ? r.content : [];
  const parts = content.map(
    (c: { type?: string; text?: string; mimeType?: string; resource?: { uri?: string; text?: string } }) => {
      if (c.type === 'text') return c.text ?? '';
      if (c.type === 'resource') return c.resource?.text ?? `[resource ${c.resource?.uri ?? ''}]`;
      if (c.type === 'resource_link') return `[resource link ${(c as { uri?: string }).uri ?? ''}]`;
      return `[${c.type ?? 'content'}${c.mimeType ? ` ${c.mimeType}` : ''}]`;
    },
  );
  const text = parts.join('\n');
  return r.isError ? { error: text || 'the tool failed' } : { text };
}
