// MCP sampling for served skills: `skilldesk mcp serve` without a provider sends a prompt
// template's model call back to a client that offers sampling, and uses its answer.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, tempDir } from '../test-support/index.js';

let client: Client | null = null;
afterEach(async () => {
  await client?.close();
  client = null;
});

describe('skilldesk mcp serve with a sampling client', () => {
  it("runs a served prompt template through the client's model", async () => {
    const c = new Client({ name: 'sampling-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
    const asked: Array<{ system?: string; text: string }> = [];
    c.setRequestHandler(CreateMessageRequestSchema, async (req) => {
      const last = req.params.messages.at(-1)?.content as { type: string; text?: string };
      asked.push({ system: req.params.systemPrompt, text: last.text ?? '' });
      return {
        role: 'assistant',
        model: 'client-model-1',
        content: { type: 'text', text: 'SAMPLED: ships Friday' },
      };
    });
    await c.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(PROJECT_ROOT, 'bin', 'skilldesk.mjs'), '--home', tempDir(), 'mcp', 'serve'],
        env: { PATH: process.env.PATH ?? '' },
        stderr: 'pipe',
      }),
    );
    client = c;
    const r = await c.callTool({
      name: 'apply_skill',
      arguments: {
        name: 'Summarize',
        ctx: { text: 'The team agreed to ship on Friday after the review.' },
      },
    });
    const text = ((r.content as Array<{ text?: string }>) ?? []).map((p) => p.text ?? '').join('');
    expect(text).toContain('SAMPLED: ships Friday');
    expect(asked).toHaveLength(1);
    expect(asked[0]!.text).toContain('ship on Friday');
  });
});
