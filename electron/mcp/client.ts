/**
 * MCP servers SkillDesk connects to: their configuration (`mcp.json` beside `agents.db`, in the
 * `mcpServers` shape other apps use, workspace winning over account by name) and a connection that
 * lists what a server offers. A stdio server's environment is an allowlist — never the app's, and
 * never a provider key, even when its config names one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { AppError } from '../contract/errors.js';

/** The config file of a store's folder. */
export const MCP_CONFIG_FILE = 'mcp.json';

const ServerSchema = z.union([
  z
    .object({
      command: z.string().min(1).max(2000),
      args: z.array(z.string().max(10_000)).max(200).optional(),
      env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string().max(10_000)).optional(),
      cwd: z.string().max(2000).optional(),
      disabled: z.boolean().optional(),
    })
    .passthrough(),
  z
    .object({
      url: z.string().url().max(2000),
      headers: z.record(z.string(), z.string().max(10_000)).optional(),
      disabled: z.boolean().optional(),
    })
    .passthrough(),
]);

/** One configured server. */
export type McpServerConfig = z.infer<typeof ServerSchema>;

const ConfigSchema = z
  .object({ mcpServers: z.record(z.string().min(1).max(100), ServerSchema) })
  .passthrough();

/** A server with where its configuration came from. */
export interface ConfiguredServer {
  name: string;
  scope: 'workspace' | 'account';
  config: McpServerConfig;
  /** Set on an account server hidden by a workspace one of the same name. */
  overridden: boolean;
}

function readConfig(
  dir: string,
  scope: 'workspace' | 'account',
): Array<{ name: string; config: McpServerConfig }> {
  const file = join(dir, MCP_CONFIG_FILE);
  if (!existsSync(file)) return [];
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new AppError('INVALID_INPUT', `${file} is not JSON (${(e as Error).message}); fix or remove it`);
  }
  const r = ConfigSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new AppError(
      'INVALID_INPUT',
      `${file}: ${i.path.join('.') || '(file)'}: ${i.message} (the ${scope} MCP servers)`,
    );
  }
  return Object.entries(r.data.mcpServers).map(([name, config]) => ({ name, config }));
}

/** The configured servers of both scopes, workspace first; same name (case-insensitive): workspace wins. */
export function listMcpServers(home: string, workspace?: string): ConfiguredServer[] {
  const ws = workspace ? readConfig(workspace, 'workspace') : [];
  const taken = new Set(ws.map((s) => s.name.toLowerCase()));
  return [
    ...ws.map((s) => ({ ...s, scope: 'workspace' as const, overridden: false })),
    ...readConfig(home, 'account').map((s) => ({
      ...s,
      scope: 'account' as const,
      overridden: taken.has(s.name.toLowerCase()),
    })),
  ];
}

/** Variables a stdio server inherits from the app when present: nothing else of the app's. */
const ENV_ALLOWLIST = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TERM',
  'TMPDIR',
  'TMP',
  'TEMP',
  'SYSTEMROOT',
  'APPDATA',
  'LOCALAPPDATA',
  'USERPROFILE',
];

/** Variables that hold the app's provider keys (or its own settings): never passed to a server. */
const PROVIDER_KEY =
  /^(OPENAI|ANTHROPIC|GOOGLE_GENERATIVE_AI|GOOGLE|GEMINI|XAI|DEEPSEEK|OPENAI_COMPATIBLE|AZURE_OPENAI|SKILLDESK)_/i;
const SECRET_LIKE = /(KEY|TOKEN|SECRET|PASSWORD)/i;

/**
 * The whole environment of a stdio server: the allowlist taken from the app's, plus what its config
 * sets — minus any provider variable, and minus any value equal to a secret-like variable of the
 * app's (so a config cannot pass a provider key under another name either).
 */
export function serverEnvironment(
  appEnv: NodeJS.ProcessEnv,
  configured: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of ENV_ALLOWLIST) {
    const v = appEnv[k];
    if (typeof v === 'string') env[k] = v;
  }
  const secrets = new Set(
    Object.entries(appEnv)
      .filter(
        ([k, v]) => typeof v === 'string' && v.length > 0 && (PROVIDER_KEY.test(k) || SECRET_LIKE.test(k)),
      )
      .map(([, v]) => v as string),
  );
  for (const [k, v] of Object.entries(configured)) {
    if (PROVIDER_KEY.test(k) || secrets.has(v)) continue;
    env[k] = v;
  }
  return env;
}

/** What a server offers, as `mcp test` shows it. */
export interface McpServerReport {
  name: string;
  server: { name: string; version: string } | null;
  tools: Array<{ name: string; description: string | null; input_schema: unknown; annotations: unknown }>;
  resources: Array<{ uri: string; name: string; mime_type: string | null }>;
  prompts: Array<{ name: string; description: string | null; arguments: unknown }>;
  took_ms: number;
}

/** Connect to a configured server, list its tools, resources and prompts, and disconnect. */
export async function testMcpServer(
  s: ConfiguredServer,
  appEnv: NodeJS.ProcessEnv,
  opts: { timeoutMs?: number } = {},
): Promise<McpServerReport> {
  const t0 = performance.now();
  const client = new Client({ name: 'skilldesk', version: '1' });
  const stdio = s.config as { command?: string; args?: string[]; env?: Record<string, string>; cwd?: string };
  const http = s.config as { url?: string; headers?: Record<string, string> };
  const transport = stdio.command
    ? new StdioClientTransport({
        command: stdio.command,
        args: stdio.args ?? [],
        env: serverEnvironment(appEnv, stdio.env),
        ...(stdio.cwd ? { cwd: stdio.cwd } : {}),
        stderr: 'ignore',
      })
    : new StreamableHTTPClientTransport(new URL(String(http.url)), {
        requestInit: { headers: http.headers ?? {} },
      });
  const timeout = opts.timeoutMs ?? 20_000;
  let timer: NodeJS.Timeout | undefined;
  try {
    const work = (async () => {
      await client.connect(transport);
      const caps = client.getServerCapabilities() ?? {};
      const [tools, resources, prompts] = await Promise.all([
        caps.tools ? client.listTools() : { tools: [] },
        caps.resources ? client.listResources() : { resources: [] },
        caps.prompts ? client.listPrompts() : { prompts: [] },
      ]);
      const info = client.getServerVersion();
      return {
        name: s.name,
        server: info ? { name: info.name, version: info.version } : null,
        tools: tools.tools.map((t) => ({
          name: t.name,
          description: t.description ?? null,
          input_schema: t.inputSchema,
          annotations: t.annotations ?? null,
        })),
        resources: resources.resources.map((r) => ({
          uri: r.uri,
          name: r.name,
          mime_type: r.mimeType ?? null,
        })),
        prompts: prompts.prompts.map((p) => ({
          name: p.name,
          description: p.description ?? null,
          arguments: p.arguments ?? [],
        })),
        took_ms: Math.round(performance.now() - t0),
      };
    })();
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new AppError('LLM_TIMEOUT', `${s.name} did not answer within ${timeout} ms`)),
        timeout,
      );
    });
    return await Promise.race([work, expired]);
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw new AppError(
      'NOT_FOUND',
      `could not connect to the MCP server "${s.name}": ${(e as Error).message}`,
    );
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
  }
}
