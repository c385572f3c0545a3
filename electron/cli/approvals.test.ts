// `skilldesk chat` with an MCP server's tool: a run without a terminal denies the call (the model is
// told), `--yes` allows it, and the answers parse as the prompt says.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startLoopbackProvider } from '../llm/index.js';
import { runCli, tempDir } from '../test-support/index.js';
import { parseApprovalAnswer } from './approvals.js';

const everything = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

describe('skilldesk chat with MCP tools', () => {
  it('denies without a terminal unless --yes, and the model reads the outcome', async () => {
    const provider = await startLoopbackProvider({
      script: {
        turns: [
          { tool_calls: [{ name: 'everything__echo', arguments: { message: 'cli one' } }] },
          { text: 'It was denied.', expect: { tool_result_contains: 'user denied' } },
          { tool_calls: [{ name: 'everything__echo', arguments: { message: 'cli two' } }] },
          { text: 'It ran.', expect: { tool_result_contains: 'Echo: cli two' } },
        ],
      },
    });
    onTestFinished(() => provider.close());
    const home = tempDir();
    writeFileSync(
      join(home, 'mcp.json'),
      JSON.stringify({
        mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } },
      }),
    );
    const llm = ['--provider', 'openai', '--model', 'gpt-4.1-mini', '--base-url', provider.url];
    const denied = await runCli(['--home', home, 'chat', 'echo it', ...llm], { OPENAI_API_KEY: 'x' });
    expect(denied.code, denied.stderr).toBe(0);
    expect(denied.stderr).toContain(
      'denied echo (MCP server everything): no terminal to ask on; run with --yes',
    );
    expect(denied.stdout).toContain('It was denied.');
    const allowed = await runCli(['--home', home, 'chat', 'echo it', '--yes', ...llm], {
      OPENAI_API_KEY: 'x',
    });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain('It ran.');
    expect(allowed.stderr).toContain('✓ everything__echo');
  }, 60_000);

  it('reads y, c, a and anything else as once, this chat, always and deny', () => {
    expect(['y', 'yes', 'c', 'a', 'always', '', 'n', 'nope'].map(parseApprovalAnswer)).toEqual([
      'once',
      'once',
      'chat',
      'always',
      'always',
      'deny',
      'deny',
      'deny',
    ]);
  });
});
