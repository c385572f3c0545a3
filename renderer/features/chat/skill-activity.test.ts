import { describe, expect, it } from 'vitest';
import type { UiToolCall } from './chat-store.js';
import { describeStep, friendlyTool } from './SkillActivity.js';

const call = (over: Partial<UiToolCall>): UiToolCall => ({
  id: 'c',
  name: 'x',
  args: {},
  status: 'ok',
  ...over,
});

describe('describeStep words each tool call from the contract’s tool table', () => {
  it('words the built-in tools, running, failed and done', () => {
    expect(describeStep(call({ name: 'search_skills', args: { query: 'csv' }, status: 'running' }))).toBe(
      'Searching skills for ‘csv’…',
    );
    expect(
      describeStep(call({ name: 'search_skills', args: { query: 'csv' }, result: { matches: [{}, {}] } })),
    ).toBe('Searched skills for ‘csv’ — 2 found');
    expect(describeStep(call({ name: 'list_skills', result: { skills: [{}] } }))).toBe(
      'Listed skills — 1 available',
    );
    expect(describeStep(call({ name: 'read_skill', args: { name: 'Summarize', artifact: 'P' } }))).toBe(
      'Read Summarize · P',
    );
    expect(describeStep(call({ name: 'read_skill', args: { name: 'Summarize' }, status: 'failed' }))).toBe(
      'Couldn’t read Summarize',
    );
  });

  it('words a run with its artifacts, time and checks; a skill’s own tool or an MCP tool alike', () => {
    const facts = { ms: 1200, passed: 2, run: 2 };
    expect(
      describeStep(
        call({ name: 'apply_skill', args: { name: 'Summarize' }, artifacts: ['Summary Prompt'] }),
        facts,
      ),
    ).toBe('Ran Summarize · Summary Prompt · 1.2 s · 2/2 checks passed');
    expect(describeStep(call({ name: 'csv__stats', skill: 'CSV Statistics', status: 'running' }))).toBe(
      'Running CSV Statistics…',
    );
    expect(describeStep(call({ name: 'files__read_file', status: 'failed' }))).toBe('Couldn’t run Read file');
  });

  it('names an MCP tool in words, its server apart for a badge', () => {
    expect(friendlyTool('everything__echo')).toEqual({ tool: 'Echo', server: 'everything' });
    expect(friendlyTool('everything__get-sum')).toEqual({ tool: 'Get sum', server: 'everything' });
    // A server whose name holds `__` (or characters cleaned away) is told apart by the configured names.
    expect(friendlyTool('my__srv__read_file', ['my__srv'])).toEqual({ tool: 'Read file', server: 'my__srv' });
    expect(friendlyTool('my_srv__x', ['my.srv'])).toEqual({ tool: 'X', server: 'my.srv' });
    expect(friendlyTool('plain')).toEqual({ tool: 'plain', server: null });
    expect(friendlyTool('__odd')).toEqual({ tool: '__odd', server: null });
  });
});
