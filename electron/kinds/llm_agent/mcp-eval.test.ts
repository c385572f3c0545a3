// A `mode: llm` skill reached the other ways a skill runs: through `skilldesk mcp serve`'s
// apply_skill (the official MCP SDK client, as an IDE would call it) and through `skilldesk skills
// eval` (an output eval whose chat turn hands the prompt to the skill). Both against the loopback
// provider; the skill's own tool runs in the real sandbox each time.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { startLoopbackProvider } from '../../llm/index.js';
import { PROJECT_ROOT, runCli, tempDir } from '../../test-support/index.js';

const SKILL = `---
name: word-counter
description: Counts the words of a text with a tool and says how many there are.
mode: llm
tools:
  - name: count_words
    description: Count the words of a text; prints the number.
    command: ['python3', 'count.py']
    parameters:
      - name: text
        description: the text to count
        required: true
---
You are a word counting assistant. Always call count_words with the user's text, then answer
"N words" with the number it printed.
`;

const COUNT_PY = `import sys
print(len(sys.argv[1].split()))
`;

async function imported(evals?: unknown): Promise<string> {
  const dir = join(tempDir(), 'word-counter');
  mkdirSync(join(dir, 'evals'), { recursive: true });
  writeFileSync(join(dir, 'SKILL.md'), SKILL);
  writeFileSync(join(dir, 'count.py'), COUNT_PY);
  if (evals) writeFileSync(join(dir, 'evals', 'evals.json'), JSON.stringify(evals));
  const home = tempDir();
  const r = await runCli(['--home', home, 'skills', 'import', dir]);
  expect(r.code, r.stderr + r.stdout).toBe(0);
  return home;
}

async function loopback(turns: unknown[]) {
  const p = await startLoopbackProvider({ script: turns as never });
  onTestFinished(() => p.close());
  return p;
}

let client: Client | null = null;
afterEach(async () => {
  await client?.close();
  client = null;
});

describe('LLM skills beyond run-skill', () => {
  it('runs over mcp serve: apply_skill runs the skill loop on the configured model and its tool', async () => {
    const home = await imported();
    const p = await loopback([
      {
        tool_calls: [{ name: 'count_words', arguments: { text: 'red green blue' } }],
        expect: { system_contains: 'word counting assistant', tools: ['count_words'] },
      },
      { text: '3 words', expect: { tool_result_contains: '3' } },
    ]);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        join(PROJECT_ROOT, 'bin', 'skilldesk.mjs'),
        '--home',
        home,
        'mcp',
        'serve',
        ...['--provider', 'openai', '--base-url', p.url, '--model', 'chat-model'],
      ],
      env: { PATH: process.env.PATH ?? '', OPENAI_API_KEY: 'sk-loopback' },
      stderr: 'pipe',
    });
    client = new Client({ name: 'skilldesk-test', version: '1.0.0' });
    await client.connect(transport);
    const r = (await client.callTool({
      name: 'apply_skill',
      arguments: { name: 'word-counter', ctx: { input: 'How many words in: red green blue' } },
    })) as { content: Array<{ type: string; text?: string }>; isError?: boolean };
    expect(r.isError, JSON.stringify(r)).toBe(false);
    const run = JSON.parse(r.content[0]!.text!);
    const agent = run.outputs.find((o: { kind: string }) => o.kind === 'llm_agent');
    expect(agent).toMatchObject({ ok: true, text: '3 words' });
    // The tool ran in the sandbox with the argv the rules give, and its stdout reached the model.
    const tool = (agent.data.steps as Array<Record<string, unknown>>).find((s) => s.type === 'tool');
    expect(tool).toMatchObject({ argv: ['red green blue'], exit_code: 0 });
    expect(String(tool!.result).trim()).toBe('3');
    expect(p.requests).toHaveLength(2);
    expect(p.requests.map((q) => q.expectation_error)).toEqual([undefined, undefined]);
    expect(p.requests[0]!.body).toMatchObject({ model: 'chat-model' });
  }, 120_000);

  it("over mcp serve without a provider, refuses to run tools on the client's sampling, saying what to start", async () => {
    const home = await imported();
    const c = new Client({ name: 'sampling-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
    let sampled = 0;
    c.setRequestHandler(CreateMessageRequestSchema, async () => {
      sampled++;
      return { role: 'assistant', model: 'client-model', content: { type: 'text', text: 'about 3' } };
    });
    await c.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(PROJECT_ROOT, 'bin', 'skilldesk.mjs'), '--home', home, 'mcp', 'serve'],
        env: { PATH: process.env.PATH ?? '' },
        stderr: 'pipe',
      }),
    );
    client = c;
    const r = (await c.callTool({
      name: 'apply_skill',
      arguments: { name: 'word-counter', ctx: { input: 'red green blue' } },
    })) as { content: Array<{ type: string; text?: string }>; isError?: boolean };
    const text = r.content.map((p) => p.text ?? '').join('');
    expect(text).toMatch(/sampling does not carry.*mcp serve --provider NAME --model MODEL/);
    expect(text).not.toContain('about 3');
    expect(sampled).toBe(0);
  }, 120_000);

  it('runs in skills eval: the output eval hands the prompt to the skill, whose tool runs', async () => {
    const prompt = 'Count the words in: red green blue';
    const home = await imported({
      skill_name: 'word-counter',
      evals: [{ id: 1, prompt, assertions: [{ type: 'contains', value: '3 words' }] }],
    });
    const p = await loopback([
      // The eval's chat turn: the model hands the request to the skill.
      {
        tool_calls: [{ name: 'apply_skill', arguments: { name: 'word-counter', ctx: { input: prompt } } }],
        expect: { last_user_contains: prompt },
      },
      // The skill's own loop, on the same model: its tool, then its answer.
      {
        tool_calls: [{ name: 'count_words', arguments: { text: 'red green blue' } }],
        expect: { system_contains: 'word counting assistant' },
      },
      { text: '3 words', expect: { tool_result_contains: '3' } },
      // Back in the chat turn, with the skill's answer as apply_skill's result.
      { text: 'The text has 3 words.', expect: { tool_result_contains: '3 words' } },
    ]);
    const r = await runCli([
      '--home',
      home,
      '--json',
      'skills',
      'eval',
      'word-counter',
      // Results go under the test's home, not the working directory.
      ...['--out', join(home, 'eval-results')],
      ...['--provider', 'openai-compatible', '--base-url', p.url, '--model', 'loopback-gpt'],
    ]);
    expect(p.requests.map((q) => q.expectation_error)).toEqual(Array(4).fill(undefined));
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.json()).toMatchObject({ total: 1, passed: 1, ok: true });
  }, 120_000);
});
