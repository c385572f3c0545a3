// An LLM skill run from a chat shows its inner steps in the chat's activity as they happen (the
// same `tools/call-progressed` events an MCP tool's progress uses), keyed by the apply_skill call.
import { describe, expect, it } from 'vitest';
import type { EventPayload } from '../../contract/channels.js';
import { loopbackHost, quietLogger } from '../../test-support/index.js';
import { invokeChannel } from '../../transport/dispatch.js';

const pkg = {
  name: 'echo-skill',
  description: 'Echoes through a tool.',
  artifacts: [
    {
      kind: 'llm_agent',
      name: 'SKILL.md',
      content: 'Call echo with the word, then answer with what it printed.',
      metadata: {
        tools: [
          {
            name: 'echo',
            description: 'Prints the word.',
            command: ['python3', 'echo.py'],
            parameters: [{ name: 'word', description: 'A word', required: true }],
          },
        ],
      },
    },
    {
      kind: 'resource',
      name: 'echo.py',
      content: 'import sys\nprint("echo:", sys.argv[1])\n',
      metadata: { path: 'echo.py' },
    },
  ],
};

describe('an LLM skill in the chat', () => {
  it("streams its model and tool calls into the chat's activity while apply_skill runs", async () => {
    const { host, provider: p } = await loopbackHost(
      [
        {
          tool_calls: [
            {
              id: 'call_apply',
              name: 'apply_skill',
              arguments: { name: 'echo-skill', ctx: { input: 'say hi' } },
            },
          ],
        },
        {
          tool_calls: [{ name: 'echo', arguments: { word: 'hi' } }],
          expect: { system_contains: 'Call echo' },
        },
        { text: 'It printed echo: hi', expect: { tool_result_contains: 'echo: hi' } },
        { text: 'The skill says: echo: hi', expect: { tool_result_contains: 'It printed echo: hi' } },
      ] as never,
      { model: 'loop' },
    );
    const call = async (channel: string, req: unknown) => {
      const r = await invokeChannel(host.handlers, channel, req, { transport: 'in-process' }, quietLogger);
      if (!r.ok) throw new Error(`${channel}: ${r.error.message}`);
      return r.value;
    };
    await call('skills/import-package', { package: pkg });
    const progress: Array<EventPayload<'tools/call-progressed'>> = [];
    host.events.subscribe('tools/call-progressed', (e) => progress.push(e));
    const finished = new Promise((resolve) => host.events.subscribe('chat/turn-finished', resolve));
    await call('chat/send-message', { message: 'use the echo skill' });
    await finished;
    expect(p.remaining()).toBe(0);
    expect(progress.every((e) => e.call_id === 'call_apply')).toBe(true);
    const said = progress.map((e) => e.message);
    expect(said[0]).toMatch(/^Asking openai-compatible:loop$/);
    expect(said).toContain('Running echo hi');
    expect(said).toContain('echo exited with 0');
    expect(said.at(-1)).toMatch(/Asking openai-compatible:loop \(round 2\)/);
    expect(progress.map((e) => e.progress)).toEqual(said.map((_, i) => i + 1));
  }, 120_000);
});
