// `skilldesk mcp serve`: the skill catalog as an MCP server on stdio, for Claude Desktop, an IDE or
// another agent. A face of the same core as the other commands (see electron/mcp-serve/).

import { resolve } from 'node:path';
import type { Command } from 'commander';
import { appVersion } from '../app-version.js';
import type { GrantedFolder } from '../contract/chat-files.js';
import { AppError } from '../contract/errors.js';
import type { Llm } from '../llm/index.js';
import type { CliContext } from './context.js';
import { llmFromFlags } from './dispatch-commands.js';
import { withClient } from './host.js';
import { addLlmOptions } from './llm-commands.js';

/** `mcp serve`. */
export function registerMcpCommands(program: Command, ctx: CliContext): void {
  const mcp = program.command('mcp').description('the Model Context Protocol');
  addLlmOptions(
    mcp
      .command('serve')
      .description(
        'serve the merged skill catalog over MCP on stdin/stdout: tools list_skills, search_skills, read_skill, apply_skill, and every skill as skill:// resources (MCP Skills extension)',
      )
      .option(
        '--http <port>',
        'serve Streamable HTTP on 127.0.0.1:PORT instead (0: any free port), with a bearer token',
      )
      .option(
        '--folder <dir>',
        'grant this folder to the run_script and run_python tools, read-only as inputs/<its name>/; calls may name files inside it by path (repeat for more)',
        (v: string, prev: string[] = []) => [...prev, v],
      ),
  ).action(async (o: Record<string, unknown>) => {
    const folders = await grantedFolders(ctx, (o.folder as string[] | undefined) ?? []);
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    const { clientOffersSampling, createSkillsMcpServer, samplingLlm, serveMcpHttp } = await import(
      '../mcp-serve/index.js'
    );
    const configured = await llmFromFlags(ctx, o);
    // Without a configured provider, model calls go to the MCP client when it offers sampling.
    let sampling: Llm | null = null;
    const llm = () => configured ?? sampling;
    await withClient(
      ctx,
      async (client) => {
        if (o.http !== undefined) {
          const port = Number(o.http);
          if (!Number.isInteger(port) || port < 0 || port > 65535) {
            throw new AppError('USAGE', '--http needs a port number (0 for any free port)');
          }
          const endpoint = await serveMcpHttp(client, { port, version: appVersion(), folders });
          ctx.io.stderr(
            `MCP over Streamable HTTP: ${endpoint.url}\nAuthorization: Bearer ${endpoint.token}\n`,
          );
          if (ctx.globals().json)
            ctx.io.stdout(`${JSON.stringify({ url: endpoint.url, token: endpoint.token })}\n`);
          await new Promise<void>((resolve) => {
            process.once('SIGINT', resolve);
            process.once('SIGTERM', resolve);
          });
          await endpoint.close();
          return;
        }
        const server = createSkillsMcpServer(client, { version: appVersion(), folders });
        server.server.oninitialized = () => {
          if (clientOffersSampling(server.server)) sampling = samplingLlm(server.server);
        };
        const transport = new StdioServerTransport();
        const closed = new Promise<void>((resolve) => {
          transport.onclose = () => resolve();
          process.stdin.once('end', () => resolve());
        });
        await server.connect(transport);
        await closed;
        await server.close();
      },
      { llm },
    );
  });

  mcp
    .command('servers')
    .description(
      'the MCP servers SkillDesk connects to: mcp.json in the account folder and the workspace (the mcpServers shape other apps use; workspace wins by name)',
    )
    .action(async () => {
      const listed = await withClient(ctx, (c) => c.invoke('tools/list-servers', {}));
      if (listed.error) throw new AppError('INVALID_INPUT', listed.error);
      const servers = listed.servers.map((s) => ({
        name: s.name,
        scope: s.scope,
        transport: 'command' in s.config ? 'stdio' : 'http',
        disabled: s.config.disabled === true,
        overridden: s.overridden,
      }));
      ctx.print({ servers }, () =>
        servers.length === 0
          ? `No MCP servers configured. Add them to ${listed.files.account}${listed.files.workspace ? ` or ${listed.files.workspace}` : ''} as {"mcpServers": {"name": {"command": …, "args": […]}}}.`
          : servers
              .map(
                (s) =>
                  `${s.name.padEnd(24)} ${s.scope.padEnd(10)} ${s.transport}${s.disabled ? ' (disabled)' : ''}${s.overridden ? ' (overridden by workspace)' : ''}`,
              )
              .join('\n'),
      );
    });

  for (const [verb, disabled] of [
    ['enable', false],
    ['disable', true],
  ] as const) {
    mcp
      .command(verb)
      .description(
        verb === 'enable'
          ? 'let SkillDesk start a configured MCP server (one an Agent Plugin import added disabled)'
          : 'keep a configured MCP server from being started (its configuration stays in mcp.json)',
      )
      .argument('<name>', 'server name (as `skilldesk mcp servers` lists it)')
      .action(async (name: string) => {
        const r = await withClient(ctx, async (c) => {
          const listed = await c.invoke('tools/list-servers', {});
          if (listed.error) throw new AppError('INVALID_INPUT', listed.error);
          // The server chat would use: the workspace's when both stores name it.
          const s = listed.servers.find((x) => x.name.toLowerCase() === name.toLowerCase() && !x.overridden);
          if (!s)
            throw new AppError(
              'NOT_FOUND',
              `no MCP server named "${name}"; \`skilldesk mcp servers\` lists the configured ones`,
              { name },
            );
          const { disabled: _was, ...rest } = s.config;
          await c.invoke('tools/save-server', {
            scope: s.scope,
            name: s.name,
            config: disabled ? { ...rest, disabled: true } : rest,
          });
          return { name: s.name, scope: s.scope, disabled };
        });
        ctx.print(r, () => `${r.name} (${r.scope}): ${disabled ? 'disabled' : 'enabled'}`);
      });
  }

  mcp
    .command('test')
    .description(
      "connect to a configured MCP server and list its tools, resources and prompts (a stdio server gets only PATH, HOME, locale and temp variables plus its config's env, never a provider key)",
    )
    .argument('<name>', 'server name')
    .option('--timeout-ms <n>', 'give up after this long', '20000')
    .action(async (name: string, o: { timeoutMs: string }) => {
      const timeout = Math.min(300_000, Math.max(100, Number(o.timeoutMs) || 20_000));
      const r = await withClient(ctx, (c) => c.invoke('tools/test-server', { name, timeout_ms: timeout }));
      ctx.print(r, () =>
        [
          `${r.name}: ${r.server ? `${r.server.name} ${r.server.version}` : 'connected'} (${r.took_ms} ms)`,
          `tools (${r.tools.length}):`,
          ...r.tools.map((t) => `  ${t.name}${t.description ? ` — ${t.description.split('\n')[0]}` : ''}`),
          `resources (${r.resources.length}):`,
          ...r.resources.slice(0, 50).map((x) => `  ${x.uri}`),
          `prompts (${r.prompts.length}):`,
          ...r.prompts.map((p) => `  ${p.name}`),
        ].join('\n'),
      );
    });
}

/**
 * The `--folder` paths as grants, checked as a chat's are (no root, home, SkillDesk's data folder,
 * /proc, /sys, /dev; two of one name refused) before anything is served (USAGE).
 */
async function grantedFolders(ctx: CliContext, paths: string[]): Promise<GrantedFolder[]> {
  if (paths.length === 0) return [];
  const { addGrant, checkGrantableFolder } = await import('../scripts/index.js');
  const { resolveHome } = await import('../store/index.js');
  const home = resolveHome(ctx.globals().home, ctx.env);
  let list: GrantedFolder[] = [];
  for (const p of paths) {
    try {
      list = addGrant(list, checkGrantableFolder(resolve(p), { home }));
    } catch (e) {
      if (e instanceof AppError) throw new AppError('USAGE', `--folder ${p}: ${e.message}`);
      throw e;
    }
  }
  return list;
}
