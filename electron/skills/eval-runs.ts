/**
 * Remembered eval runs (migration 0010): each run of a skill's evals with its model, pass rate,
 * tokens, cost and time, so the Composer shows a pass rate per model and an optimization its
 * before and after.
 */
import type { EvalRunSummary } from '../contract/evals.js';
import type { EvalResultView } from '../contract/skills.js';
import { type Db, skillNameKey } from '../store/index.js';

/** Why a run was recorded. */
export type EvalRunOrigin = 'eval' | 'optimize_before' | 'optimize_after';

/** One run to remember. */
export interface NewEvalRun {
  name: string;
  version: string;
  /** `provider:model`, or null when none was configured. */
  model: string | null;
  only: 'all' | 'trigger' | 'output';
  total: number;
  passed: number;
  pass_rate: number;
  threshold: number;
  results: EvalResultView[];
  duration_ms: number;
  origin: EvalRunOrigin;
  created_at?: string;
}

/** Store a run; returns its id. Tokens and cost are the sums over its results. */
export function recordEvalRun(db: Db, run: NewEvalRun): number {
  const input = run.results.reduce((n, r) => n + r.input_tokens, 0);
  const output = run.results.reduce((n, r) => n + r.output_tokens, 0);
  const cost = run.results.reduce((n, r) => n + (r.estimated_cost ?? 0), 0);
  const info = db
    .prepare(
      `INSERT INTO skill_eval_runs (name_key, name, version, model, only, total, passed, pass_rate, threshold,
         input_tokens, output_tokens, estimated_cost, duration_ms, results, origin, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      skillNameKey(run.name),
      run.name,
      run.version,
      run.model ?? '',
      run.only,
      run.total,
      run.passed,
      run.pass_rate,
      run.threshold,
      input,
      output,
      cost,
      Math.round(run.duration_ms),
      JSON.stringify(run.results),
      run.origin,
      run.created_at ?? new Date().toISOString(),
    );
  return Number(info.lastInsertRowid);
}

/** A stored row: the summary's fields, with the skill's name and '' for no model. */
type Row = Omit<EvalRunSummary, 'model'> & { name: string; model: string };

const toSummary = ({ name: _name, model, ...rest }: Row): EvalRunSummary => ({
  ...rest,
  model: model || null,
});

/** A skill's runs, newest first (at most `limit`), and the latest run per model. */
export function evalRunHistory(
  db: Db,
  name: string,
  limit = 50,
): { runs: EvalRunSummary[]; per_model: EvalRunSummary[] } {
  const key = skillNameKey(name);
  const cols =
    'id, name, version, model, only, total, passed, pass_rate, threshold, input_tokens, output_tokens, estimated_cost, duration_ms, origin, created_at';
  const runs = (
    db
      .prepare(`SELECT ${cols} FROM skill_eval_runs WHERE name_key = ? ORDER BY id DESC LIMIT ?`)
      .all(key, limit) as Row[]
  ).map(toSummary);
  const perModel = (
    db
      .prepare(
        `SELECT ${cols} FROM skill_eval_runs WHERE id IN
           (SELECT MAX(id) FROM skill_eval_runs WHERE name_key = ? GROUP BY model) ORDER BY model`,
      )
      .all(key) as Row[]
  ).map(toSummary);
  return { runs, per_model: perModel };
}
