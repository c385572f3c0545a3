// `run_script` over `skilldesk mcp serve`: the script's result as text, the files it wrote as
// resource links the client reads through resources/read.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { minimalPdf, PROJECT_ROOT, runCli, tempDir } from '../test-support/index.js';

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

  it('gives the script files sent as base64 or named by URI, read-only under inputs/', async () => {
    const home = tempDir();
    const skill = join(tempDir(), 'file-stat');
    mkdirSync(join(skill, 'scripts'), { recursive: true });
    writeFileSync(
      join(skill, 'SKILL.md'),
      '---\nname: file-stat\ndescription: Says what files it got.\n---\nRun it.\n',
    );
    writeFileSync(
      join(skill, 'scripts', 'stat.py'),
      [
        'import json, os',
        'names = sorted(os.listdir("inputs"))',
        'info = {n: [os.path.getsize("inputs/" + n), open("inputs/" + n, "rb").read(5).decode("latin1")] for n in names}',
        'json.dump(info, open("out/stat.json", "w"))',
        'print(json.dumps(info))',
      ].join('\n'),
    );
    expect((await runCli(['--home', home, 'skills', 'import', skill])).code).toBe(0);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(PROJECT_ROOT, 'bin', 'skilldesk.mjs'), '--home', home, 'mcp', 'serve'],
      env: { PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    });
    client = new Client({ name: 'skilldesk-test', version: '1.0.0' });
    await client.connect(transport);
    type ToolResult = {
      content: Array<{ type: string; text?: string; uri?: string; name?: string }>;
      isError?: boolean;
    };
    const pdf = minimalPdf();
    const first = (await client.callTool({
      name: 'run_script',
      arguments: {
        name: 'file-stat',
        script: 'scripts/stat.py',
        files: [{ name: 'form.pdf', data_base64: pdf.toString('base64') }],
      },
    })) as ToolResult;
    expect(first.isError).toBe(false);
    const r1 = JSON.parse(first.content[0]!.text!);
    expect(r1.exit_code).toBe(0);
    expect(JSON.parse(r1.stdout)).toEqual({ 'form.pdf': [pdf.length, '%PDF-'] });
    const link = first.content.find((c) => c.type === 'resource_link')!;
    expect(link.name).toBe('out/stat.json');

    // An earlier run's output, named by its resource URI, is the next run's input.
    const second = (await client.callTool({
      name: 'run_script',
      arguments: {
        name: 'file-stat',
        script: 'scripts/stat.py',
        files: [
          { name: 'previous.json', uri: link.uri },
          { name: 'form.pdf', data_base64: pdf.toString('base64') },
        ],
      },
    })) as ToolResult;
    const r2 = JSON.parse(second.content[0]!.text!);
    expect(Object.keys(JSON.parse(r2.stdout))).toEqual(['form.pdf', 'previous.json']);
    expect(JSON.parse(r2.stdout)['previous.json'][1]).toBe('{"for');

    // Names that leave inputs/, and URIs the app does not serve, are the caller's error.
    const bad = (await client.callTool({
      name: 'run_script',
      arguments: {
        name: 'file-stat',
        script: 'scripts/stat.py',
        files: [{ name: '../up.pdf', data_base64: pdf.toString('base64') }],
      },
    })) as ToolResult;
    expect(bad.isError).toBe(true);
    expect(bad.content[0]!.text).toMatch(/plain file name/);
    const foreign = (await client.callTool({
      name: 'run_script',
      arguments: {
        name: 'file-stat',
        script: 'scripts/stat.py',
        files: [{ name: 'p', uri: 'file:///etc/passwd' }],
      },
    })) as ToolResult;
    expect(foreign.isError).toBe(true);
    expect(foreign.content[0]!.text).toMatch(/not a file the app serves/);
  }, 120_000);
});
