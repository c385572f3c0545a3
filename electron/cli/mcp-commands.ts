// `skilldesk mcp serve`: the skill catalog as an MCP server on stdio, for Claude Desktop, an IDE or
// another agent. A face of the same core as the other commands (see electron/mcp/).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Command } from 'commander';
import { AppError } from '../contract/errors.js';
import { appVersion } from '../host.js';
import { createSkillsMcpServer, serveMcpHttp } from '../mcp/index.js';
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
}
