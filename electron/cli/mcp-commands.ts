// `skilldesk mcp serve`: the skill catalog as an MCP server on stdio, for Claude Desktop, an IDE or
// another agent. A face of the same core as the other commands (see electron/mcp/).

import { resolve } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Command } from 'commander';
import { AppError } from '../contract/errors.js';
import { appVersion } from '../host.js';
import { createSkillsMcpServer, listMcpServers, serveMcpHttp, testMcpServer } from '../mcp/index.js';
import { resolveHome } from '../store/index.js';
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
      ),
  ).action(async (o: Record<string, unknown>) => {
    const llm = llmFromFlags(ctx, o);
    await withClient(
      ctx,
      async (client) => {
        if (o.http !== undefined) {
          const port = Number(o.http);
          if (!Number.isInteger(port) || port < 0 || port > 65535) {
            throw new AppError('USAGE', '--http needs a port number (0 for any free port)');
          }
          const endpoint = await serveMcpHttp(client, { port, version: appVersion() });
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
        const server = createSkillsMcpServer(client, { version: appVersion() });
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

  const where = () => {
    const g = ctx.globals();
    return { home: resolveHome(g.home, ctx.env), workspace: g.workspace ? resolve(g.workspace) : undefined };
  };

  mcp
    .command('servers')
    .description(
      'the MCP servers SkillDesk connects to: mcp.json in the account folder and the workspace (the mcpServers shape other apps use; workspace wins by name)',
    )
    .action(() => {
      const { home, workspace } = where();
      const servers = listMcpServers(home, workspace);
      ctx.print(
        {
          servers: servers.map((s) => ({
            name: s.name,
            scope: s.scope,
            transport: 'command' in s.config ? 'stdio' : 'http',
            disabled: s.config.disabled === true,
            overridden: s.overridden,
          })),
        },
        () =>
          servers.length === 0
            ? `No MCP servers configured. Add them to ${resolve(home, 'mcp.json')}${workspace ? ` or ${resolve(workspace, 'mcp.json')}` : ''} as {"mcpServers": {"name": {"command": …, "args": […]}}}.`
            : servers
                .map(
                  (s) =>
                    `${s.name.padEnd(24)} ${s.scope.padEnd(10)} ${'command' in s.config ? 'stdio' : 'http'}${s.config.disabled ? ' (disabled)' : ''}${s.overridden ? ' (overridden by workspace)' : ''}`,
                )
                .join('\n'),
      );
    });

  mcp
    .command('test')
    .description(
      "connect to a configured MCP server and list its tools, resources and prompts (a stdio server gets only PATH, HOME, locale and temp variables plus its config's env, never a provider key)",
    )
    .argument('<name>', 'server name')
    .option('--timeout-ms <n>', 'give up after this long', '20000')
    .action(async (name: string, o: { timeoutMs: string }) => {
      const { home, workspace } = where();
      const s = listMcpServers(home, workspace).find(
        (x) => !x.overridden && x.name.toLowerCase() === name.toLowerCase(),
      );
      if (!s)
        throw new AppError(
          'NOT_FOUND',
          `No MCP server named "${name}" is configured; see skilldesk mcp servers`,
        );
      const r = await testMcpServer(s, ctx.env, { timeoutMs: Number(o.timeoutMs) || 20_000 });
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
