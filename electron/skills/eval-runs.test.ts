// Migration 0010 (eval runs) and the pass rate per model it remembers.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EvalResultView } from '../contract/skills.js';
import { openDatabase } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { evalRunHistory, recordEvalRun } from './eval-runs.js';

const result = (id: string, passed: boolean, tokens: number): EvalResultView => ({
  id,
  kind: 'output',
  prompt: 'p',
  passed,
  reason: passed ? null : 'missing "x"',
  checks: [],
  duration_ms: 10,
  input_tokens: tokens,
  output_tokens: tokens / 2,
  estimated_cost: 0.001,
});

describe('migration 0010_eval_runs', () => {
  it('adds the table to a database at 0009 without touching its skills', () => {
    const file = join(tempDir(), 'agents.db');
    const before = openDatabase(file, { targetVersion: 9 });
    const at = '2026-01-01T00:00:00.000Z';
    before
      .prepare(
        `INSERT INTO skills (id, name, name_key, description, version, source, created_at, updated_at)
         VALUES ('k', 'Timeline', 'timeline', 'd', '1.0.0', 'user', ?, ?)`,
      )
      .run(at, at);
    expect(() => before.prepare('SELECT 1 FROM skill_eval_runs').all()).toThrow(/no such table/);
    before.close();
    const db = openDatabase(file, { targetVersion: 10 });
    expect(db.prepare('SELECT name FROM skills').all()).toEqual([{ name: 'Timeline' }]);
    expect(evalRunHistory(db, 'Timeline')).toEqual({ runs: [], per_model: [] });
    db.close();
  });

  it('remembers the latest pass rate per model with tokens, cost and time', () => {
    const db = openDatabase(join(tempDir(), 'agents.db'));
    const run = (model: string | null, passed: boolean[], origin: 'eval' | 'optimize_after' = 'eval') =>
      recordEvalRun(db, {
        name: 'Timeline',
        version: '1.0.0',
        model,
        only: 'all',
        total: passed.length,
        passed: passed.filter(Boolean).length,
        pass_rate: passed.filter(Boolean).length / passed.length,
        threshold: 0.8,
        results: passed.map((p, i) => result(String(i), p, 100)),
        duration_ms: 1234.4,
        origin,
      });
    run('openai:gpt-4o', [true, false]);
    run('anthropic:claude', [true, true]);
    const last = run('openai:gpt-4o', [true, true, true], 'optimize_after');
    run(null, [false]);
    const h = evalRunHistory(db, 'TIMELINE');
    expect(h.runs).toHaveLength(4);
    expect(h.per_model.map((r) => [r.model, r.pass_rate])).toEqual([
      [null, 0],
      ['anthropic:claude', 1],
      ['openai:gpt-4o', 1],
    ]);
    const gpt = h.per_model.find((r) => r.model === 'openai:gpt-4o')!;
    expect(gpt).toMatchObject({
      id: last,
      total: 3,
      input_tokens: 300,
      output_tokens: 150,
      duration_ms: 1234,
      origin: 'optimize_after',
    });
    expect(gpt.estimated_cost).toBeCloseTo(0.003);
    db.close();
  });
});
