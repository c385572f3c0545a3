// MCP client: configuration in the mcpServers shape, workspace over account, and a connection to a
// real server from npm (@modelcontextprotocol/server-everything over stdio) listing what it offers.
// A canary provider key in the app's environment never reaches the server's environment.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../test-support/index.js';
import { listMcpServers, serverEnvironment } from './client.js';

const everything = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

describe('MCP servers as a client', () => {
  it('keeps provider keys out of a stdio server environment, even when its config names them', () => {
    const app = {
      PATH: '/usr/bin',
      HOME: '/home/u',
      OPENAI_API_KEY: 'sk-canary-1234567890',
      SECRET_THING: 'hush-123456',
      EDITOR: 'vim',
    };
    const env = serverEnvironment(app, {
      OPENAI_API_KEY: 'sk-canary-1234567890',
      SNEAKY: 'sk-canary-1234567890',
      ALSO: 'hush-123456',
      GITHUB_TOKEN: 'ghp_own_token_for_this_server',
    });
    expect(env).toEqual({ PATH: '/usr/bin', HOME: '/home/u', GITHUB_TOKEN: 'ghp_own_token_for_this_server' });
  });

  it('reads mcpServers from both scopes, the workspace winning by name', () => {
    const home = tempDir();
    const ws = tempDir();
    writeFileSync(
      join(home, 'mcp.json'),
      JSON.stringify({ mcpServers: { Files: { command: 'a' }, web: { url: 'http://127.0.0.1:1/mcp' } } }),
    );
    writeFileSync(join(ws, 'mcp.json'), JSON.stringify({ mcpServers: { files: { command: 'b' } } }));
    expect(listMcpServers(home, ws).map((s) => [s.name, s.scope, s.overridden])).toEqual([
      ['files', 'workspace', false],
      ['Files', 'account', true],
      ['web', 'account', false],
    ]);
    writeFileSync(join(ws, 'mcp.json'), '{"mcpServers": {"x": {}}}');
    expect(() => listMcpServers(home, ws)).toThrow(/mcp\.json/);
  });

  it('skilldesk mcp test connects to the everything server over stdio and lists tools, resources and prompts', async () => {
    const home = tempDir();
    mkdirSync(home, { recursive: true });
    writeFileSync(
      join(home, 'mcp.json'),
      JSON.stringify({
        mcpServers: {
          everything: { command: process.execPath, args: [everything, 'stdio'] },
        },
      }),
    );
    const listed = await runCli(['--home', home, '--json', 'mcp', 'servers']);
    expect(listed.json().servers).toEqual([
      { name: 'everything', scope: 'account', transport: 'stdio', disabled: false, overridden: false },
    ]);
    const r = await runCli(['--home', home, '--json', 'mcp', 'test', 'Everything'], {
      OPENAI_API_KEY: 'sk-canary-0000000000',
    });
    expect(r.code).toBe(0);
    const report = r.json();
    expect(report.tools.map((t: { name: string }) => t.name)).toContain('echo');
    expect(report.tools.find((t: { name: string }) => t.name === 'echo').input_schema).toMatchObject({
      type: 'object',
    });
    expect(report.resources.length).toBeGreaterThan(0);
    expect(report.prompts.length).toBeGreaterThan(0);
    expect(JSON.stringify(report)).not.toContain('sk-canary');
  }, 60_000);
});
