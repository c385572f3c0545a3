// `skilldesk mcp serve` driven by the MCP SDK's own client over stdio, as Claude Desktop or an IDE
// would start it: tools, the sandbox behind apply_skill, and the skills as SEP-2640 resources.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PROJECT_ROOT, tempDir } from '../test-support/index.js';
import { allBuiltinToolSpecs } from '../tools/index.js';

let client: Client | null = null;

afterEach(async () => {
  await client?.close();
  client = null;
});

async function connect(home: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(PROJECT_ROOT, 'bin', 'skilldesk.mjs'), '--home', home, 'mcp', 'serve'],
    env: { PATH: process.env.PATH ?? '' },
    stderr: 'pipe',
  });
  const c = new Client({ name: 'skilldesk-test', version: '1.0.0' });
  await c.connect(transport);
  client = c;
  return c;
}

const textOf = (r: unknown) =>
  (((r as { content?: unknown }).content as Array<{ type: string; text?: string }>) ?? [])
    .map((p) => p.text ?? '')
    .join('');

describe('skilldesk mcp serve', () => {
  it('lists and calls the skill tools; apply_skill runs Python in the sandbox', async () => {
    const c = await connect(tempDir());
    const tools = await c.listTools();
    expect(tools.tools.map((t) => t.name).sort()).toEqual([
      'apply_skill',
      'list_skills',
      'read_skill',
      'run_python',
      'run_script',
      'search_skills',
    ]);
    expect(tools.tools.find((t) => t.name === 'search_skills')?.annotations?.readOnlyHint).toBe(true);

    // The same names and argument schemas as the chat's model is offered.
    for (const spec of allBuiltinToolSpecs()) {
      const served = tools.tools.find((t) => t.name === spec.name)!;
      expect(served.description).toBe(spec.description);
      expect(served.inputSchema).toMatchObject({
        type: 'object',
        properties: Object.fromEntries(
          Object.keys((spec.parameters.properties as object) ?? {}).map((k) => [k, expect.anything()]),
        ),
        additionalProperties: false,
      });
      expect(Object.keys(served.inputSchema.properties ?? {})).toEqual(
        Object.keys((spec.parameters.properties as object) ?? {}),
      );
    }

    const listed = JSON.parse(textOf(await c.callTool({ name: 'list_skills', arguments: {} })));
    expect(listed.skills.map((s: { name: string }) => s.name)).toContain('CSV Statistics');

    const found = JSON.parse(
      textOf(
        await c.callTool({
          name: 'search_skills',
          arguments: { query: 'compute statistics for this csv file' },
        }),
      ),
    );
    expect(found.matches[0].name).toBe('CSV Statistics');

    const read = JSON.parse(
      textOf(await c.callTool({ name: 'read_skill', arguments: { name: 'csv statistics' } })),
    );
    expect(read.artifacts.map((a: { kind: string }) => a.kind)).toContain('code_template');

    // `context` was this tool's name for the variables over MCP; it is `ctx`, as in the chat, and
    // an argument the tool does not take is refused, naming those it does.
    const misnamed = await c.callTool({
      name: 'apply_skill',
      arguments: { name: 'CSV Statistics', context: { csv_text: 'a,b\n1,x\n' } },
    });
    expect(misnamed.isError).toBe(true);
    expect(textOf(misnamed)).toMatch(/unknown argument "context"; accepted: name, ctx, artifact/);

    const applied = await c.callTool({
      name: 'apply_skill',
      arguments: { name: 'CSV Statistics', ctx: { csv_text: 'a,b\n1,x\n3,y\n' } },
    });
    expect(applied.isError).toBe(false);
    const run = JSON.parse(textOf(applied));
    const code = run.outputs.find((r: { kind: string }) => r.kind === 'code_template');
    expect(code.ok).toBe(true);
    expect(code.data).toMatchObject({ rows: 2 });

    // run_python over MCP: the standard library in Pyodide; a file one call writes, the next reads.
    const wrote = await c.callTool({
      name: 'run_python',
      arguments: {
        code: 'import statistics\nm = statistics.mean([1, 2, 3, 6])\nopen("m.txt", "w").write(str(m))\nprint(m)',
      },
    });
    expect(wrote.isError).toBe(false);
    expect(JSON.parse(textOf(wrote))).toMatchObject({ stdout: '3\n', files: [{ name: 'm.txt' }] });
    const again = await c.callTool({
      name: 'run_python',
      arguments: { code: 'print(open("m.txt").read())' },
    });
    expect(JSON.parse(textOf(again))).toMatchObject({ stdout: '3\n', exception: null });

    const bad = await c.callTool({ name: 'apply_skill', arguments: { name: 'No Such Skill' } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/No Such Skill/);
  }, 120_000);

  it('serves every skill as skill:// resources with skills/list and skills/get (SEP-2640)', async () => {
    const c = await connect(tempDir());
    const entrySchema = z.object({
      uri: z.string(),
      frontmatter: z.object({ name: z.string(), description: z.string() }).passthrough(),
      resources: z.array(z.object({ uri: z.string(), digest: z.string() })),
    });
    const list = await c.request(
      { method: 'skills/list', params: {} },
      z.object({ skills: z.array(entrySchema) }),
    );
    const csv = list.skills.find((s) => s.frontmatter.name === 'csv-statistics')!;
    expect(csv.uri).toBe('skill://csv-statistics/SKILL.md');
    for (const r of csv.resources) {
      const read = await c.readResource({ uri: r.uri });
      const content = read.contents[0] as { text?: string; blob?: string };
      const bytes =
        content.text !== undefined ? Buffer.from(content.text, 'utf8') : Buffer.from(content.blob!, 'base64');
      expect(`sha256:${createHash('sha256').update(bytes).digest('hex')}`).toBe(r.digest);
    }
    const skillMd = (await c.readResource({ uri: csv.uri })).contents[0] as { text: string };
    expect(skillMd.text).toMatch(/^---\nname: csv-statistics\n/);
    expect(csv.resources.map((r) => r.uri)).toContain('skill://csv-statistics/templates/compute.py.j2');

    const got = await c.request(
      { method: 'skills/get', params: { uri: csv.uri } },
      z.object({ skill: entrySchema }),
    );
    expect(got.skill).toEqual(csv);
    await expect(
      c.request(
        { method: 'skills/get', params: { uri: 'skill://nope/SKILL.md' } },
        z.object({ skill: entrySchema }),
      ),
    ).rejects.toMatchObject({ code: -32602 });

    const templates = await c.listResources();
    expect(templates.resources.map((r) => r.uri)).toContain('skill://csv-statistics/SKILL.md');
  }, 120_000);
});
