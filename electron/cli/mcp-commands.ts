// `skilldesk mcp serve`: the skill catalog as an MCP server on stdio, for Claude Desktop, an IDE or
// another agent. A face of the same core as the other commands (see electron/mcp/).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Command } from 'commander';
import { appVersion } from '../host.js';
import { createSkillsMcpServer } from '../mcp/index.js';
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
      ),
  ).action(async (o: Record<string, unknown>) => {
    const llm = llmFromFlags(ctx, o);
    await withClient(
      ctx,
      async (client) => {
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
