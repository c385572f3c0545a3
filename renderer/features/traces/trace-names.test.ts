import { describe, expect, it } from 'vitest';
import { sessionLabel, traceTitle } from './trace-names.js';

const titles = new Map([
  ['5f0c1a52-0000-4000-8000-000000000001', 'Haiku about rain'],
  ['5f0c1a52-0000-4000-8000-000000000002', ''],
]);

describe('trace names', () => {
  it('titles a trace by skill and chat, never by an id', () => {
    expect(
      traceTitle({ skill_name: 'haiku', session_id: '5f0c1a52-0000-4000-8000-000000000001' }, titles),
    ).toBe('haiku · Haiku about rain');
    expect(
      traceTitle({ skill_name: null, session_id: 'cli-5f0c1a52-0000-4000-8000-00000000000a' }, titles),
    ).toBe('A deleted skill · Command line');
  });
  it('names a never-saved draft of the Composer apart from a deleted skill', () => {
    expect(traceTitle({ skill_name: null, session_id: 'composer' }, titles)).toBe(
      'An unsaved draft · Composer test run',
    );
  });
  it('names runs outside chats by what started them', () => {
    expect(sessionLabel('composer', titles)).toBe('Composer test run');
    expect(sessionLabel('evals', titles)).toBe('Evals');
    expect(sessionLabel('mcp-1', titles)).toBe('MCP client');
    expect(sessionLabel('5f0c1a52-0000-4000-8000-000000000002', titles)).toBe('Untitled chat');
    expect(sessionLabel('5f0c1a52-0000-4000-8000-00000000000f', titles)).toBe('A chat not in this list');
  });
});
