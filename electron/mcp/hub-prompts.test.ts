// The hub's prompts (server-everything's, for the chat's `/` menu) and its tool lists kept for the
// server's ttlMs (a small stdio server whose tool list changes at every listing).
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/index.js';
import type { ConfiguredServer } from './client.js';
import { McpHub } from './hub.js';

const req = createRequire(import.meta.url);
const everything = join(
  dirname(req.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

const stdio = (name: string, args: string[], env?: Record<string, string>): ConfiguredServer => ({
  name,
  scope: 'account',
  overridden: false,
  config: { command: process.execPath, args, ...(env ? { env } : {}) },
});

const hubs: McpHub[] = [];
afterEach(async () => {
  for (const h of hubs.splice(0)) await h.close();
});
function hubOf(servers: ConfiguredServer[]) {
  const hub = new McpHub({ servers: () => servers, env: process.env, backoffMs: () => 200 });
  hubs.push(hub);
  return hub;
}

/** A stdio server whose tool list is `tool_<n>` at its n-th listing, with `ttlMs` from TTL when set. */
function countingServer(): string {
  const file = join(tempDir(), 'counting-server.mjs');
  const from = (p: string) => pathToFileURL(req.resolve(`@modelcontextprotocol/sdk/${p}`)).href;
  writeFileSync(
    file,
    `import { Server } from '${from('server/index.js')}';
import { StdioServerTransport } from '${from('server/stdio.js')}';
import { ListToolsRequestSchema } from '${from('types.js')}';
let n = 0;
const s = new Server({ name: 'counting', version: '1' }, { capabilities: { tools: {} } });
s.setRequestHandler(ListToolsRequestSchema, async () => {
  n++;
  const ttl = process.env.TTL;
  return { tools: [{ name: 'tool_' + n, inputSchema: { type: 'object' } }], ...(ttl ? { ttlMs: Number(ttl) } : {}) };
});
await s.connect(new StdioServerTransport());
`,
  );
  return file;
}

describe('McpHub prompts and tool-list TTL', () => {
  it("lists a server's prompts with their arguments and fills one in", async () => {
    const hub = hubOf([stdio('everything', [everything, 'stdio'])]);
    const { prompts, failed } = await hub.prompts();
    expect(failed).toEqual([]);
    const args = prompts.find((p) => p.name === 'args-prompt')!;
    expect(args).toMatchObject({ server: 'everything', title: 'Arguments Prompt' });
    expect(args.arguments).toEqual([
      expect.objectContaining({ name: 'city', required: true }),
      expect.objectContaining({ name: 'state', required: false }),
    ]);
    const filled = await hub.getPrompt('everything', 'args-prompt', { city: 'Lyon' });
    expect(filled.messages).toEqual([{ role: 'user', text: "What's weather in Lyon?" }]);
    await expect(hub.getPrompt('nobody', 'x', {})).rejects.toThrow(/no enabled MCP server/);
  }, 60_000);

  it('keeps a tool list for its ttlMs and lists again after it; without one, until told', async () => {
    const script = countingServer();
    const hub = hubOf([stdio('ttl', [script], { TTL: '400' }), stdio('plain', [script])]);
    const names = async () => (await hub.tools()).map((t) => t.exposed).sort();
    expect(await names()).toEqual(['plain__tool_1', 'ttl__tool_1']);
    expect(await names()).toEqual(['plain__tool_1', 'ttl__tool_1']);
    await new Promise((r) => setTimeout(r, 500));
    expect(await names()).toEqual(['plain__tool_1', 'ttl__tool_2']);
  }, 60_000);
});
