// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { inProcessClient } from '../../test-support.js';
import { createMatchStore, initialMatchState, matchReducer } from './match-store.js';

describe('matchReducer', () => {
  const res = (name: string) => ({
    matches: [{ name, scope: 'account' as const, score: 0.5, matched_on: ['name' as const] }],
    took_ms: 0.1,
  });

  it('drops replies to older edits', () => {
    let s = matchReducer(initialMatchState(), { type: 'message/changed', message: 'sum', seq: 1 });
    s = matchReducer(s, { type: 'message/changed', message: 'summ', seq: 2 });
    const late = matchReducer(s, { type: 'match/succeeded', seq: 1, res: res('Old'), message: 'sum' });
    expect(late).toBe(s);
    s = matchReducer(s, { type: 'match/succeeded', seq: 2, res: res('New'), message: 'summ' });
    expect(s.matches[0]?.name).toBe('New');
    expect(s.status).toBe('ready');
  });

  it('clears everything for an empty message', () => {
    let s = matchReducer(initialMatchState(), { type: 'message/changed', message: 'x', seq: 1 });
    s = matchReducer(s, { type: 'match/succeeded', seq: 1, res: res('A'), message: 'x' });
    s = matchReducer(s, { type: 'message/changed', message: '  ', seq: 2 });
    expect(s.matches).toEqual([]);
    expect(s.status).toBe('idle');
  });
});

describe('match store', () => {
  it('ranks the seeded skills for a message', async () => {
    const { client } = inProcessClient();
    const store = createMatchStore(client);
    await store.getState().setMessage('are there any contradictions in my notes?');
    const s = store.getState();
    expect(s.status).toBe('ready');
    expect(s.matches[0]).toMatchObject({
      name: 'Consistency Checker',
      matched_on: expect.arrayContaining(['exact_trigger']),
    });
    expect(s.took_ms).toEqual(expect.any(Number));
  });
});
