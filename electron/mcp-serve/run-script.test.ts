// `run_script` over `skilldesk mcp serve`: the script's result as text, the files it wrote as
// resource links the client reads through resources/read.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli, tempDir } from '../test-support/index.js';

const FIXTURE = join(PROJECT_ROOT, 'electron', 'tools', 'fixtures', 'skill-creator');
let client: Client | null = null;
afterEach(async () => {
  await client?.close();
  client = null;
});

describe('run_script over MCP', () => {
  it('returns exit code and output, and the written files as readable resources', async () => {
    const home = tempDir();
    const imported = await runCli(['--home', home, 'skills', 'import', FIXTURE]);
    expect(imported.code).toBe(0);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(PROJECT_ROOT, 'bin', 'skilldesk.mjs'), '--home', home, 'mcp', 'serve'],
      env: { PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    });
    client = new Client({ name: 'skilldesk-test', version: '1.0.0' });
    await client.connect(transport);
    const r = (await client.callTool({
      name: 'run_script',
      arguments: {
        name: 'skill-creator',
        script: 'scripts/aggregate_benchmark.py',
        args: ['scripts', '--skill-name', 'mcp-demo', '-o', 'out/benchmark.json'],
      },
    })) as {
      content: Array<{ type: string; text?: string; uri?: string; name?: string; mimeType?: string }>;
      isError?: boolean;
    };
    expect(r.isError).toBe(false);
    const result = JSON.parse(r.content[0]!.text!);
    expect(result).toMatchObject({ exit_code: 0, skill: 'skill-creator' });
    const links = r.content.filter((c) => c.type === 'resource_link');
    expect(links.map((l) => [l.name, l.mimeType])).toEqual([
      ['out/benchmark.json', 'application/json'],
      ['out/benchmark.md', 'text/markdown'],
    ]);
    expect(links[0]!.uri).toMatch(/^skilldesk:\/\/script-output\/[0-9a-f-]{36}\/out\/benchmark\.json$/);
    const read = await client.readResource({ uri: links[0]!.uri! });
    const blob = (read.contents[0] as { blob: string }).blob;
    expect(JSON.parse(Buffer.from(blob, 'base64').toString('utf8')).metadata.skill_name).toBe('mcp-demo');

    const usage = (await client.callTool({
      name: 'run_script',
      arguments: { name: 'skill-creator', script: 'scripts/aggregate_benchmark.py' },
    })) as { content: Array<{ text?: string }>; isError?: boolean };
    // A usage error is the script's answer, not a tool failure.
    expect(usage.isError).toBe(false);
    expect(JSON.parse(usage.content[0]!.text!)).toMatchObject({ exit_code: 2 });
  }, 120_000);
});
