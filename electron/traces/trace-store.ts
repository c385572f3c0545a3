import { randomUUID } from 'node:crypto';
import type { TraceView } from '../contract/traces.js';
import type { Db } from '../store/index.js';

/** One `skill_execution_traces` row, exactly the design's columns (the contract's view without the names it adds). */
export type TraceRow = Omit<TraceView, 'skill_name' | 'artifact_name' | 'scope'> & { created_at: string };

/** What is known when an execution starts. */
export type TraceStart = Pick<TraceRow, 'session_id' | 'skill_id' | 'artifact_id' | 'artifact_kind'> & {
  rendered_input?: string | null;
  model_id?: string | null;
};

/** What is known when it ends (successfully or not). */
export type TraceFinish = Partial<
  Pick<
    TraceRow,
    | 'rendered_input'
    | 'raw_output'
    | 'error'
    | 'error_code'
    | 'input_tokens'
    | 'output_tokens'
    | 'model_id'
    | 'estimated_cost'
    | 'assertions_run'
    | 'assertions_passed'
  >
>;

/** Filters for listing traces. */
export interface TraceQuery {
  session_id?: string;
  skill_id?: string;
  limit?: number;
}

/**
 * Writes one trace row per artifact execution: inserted when the execution starts (so a crash or
 * a cancel still leaves a row) and completed when it ends.
 */
export class TraceStore {
  private readonly stmts;

  constructor(
    readonly db: Db,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.stmts = {
      insert:
        db.prepare(`INSERT INTO skill_execution_traces (id, session_id, skill_id, artifact_id, artifact_kind,
        rendered_input, started_at, model_id) VALUES (@id, @session_id, @skill_id, @artifact_id, @artifact_kind,
        @rendered_input, @started_at, @model_id)`),
      finish: db.prepare(`UPDATE skill_execution_traces SET
        rendered_input = coalesce(@rendered_input, rendered_input), raw_output = @raw_output, error = @error, error_code = @error_code,
        completed_at = @completed_at, duration_ms = @duration_ms, input_tokens = @input_tokens,
        output_tokens = @output_tokens, model_id = coalesce(@model_id, model_id), estimated_cost = @estimated_cost,
        assertions_run = @assertions_run, assertions_passed = @assertions_passed WHERE id = @id`),
      get: db.prepare('SELECT * FROM skill_execution_traces WHERE id = ?'),
    };
  }

  /** Record the start of an execution; returns the trace id. */
  start(t: TraceStart): { id: string; startedAt: number } {
    const id = randomUUID();
    this.stmts.insert.run({
      id,
      session_id: t.session_id,
      skill_id: t.skill_id,
      artifact_id: t.artifact_id,
      artifact_kind: t.artifact_kind,
      rendered_input: t.rendered_input ?? null,
      started_at: this.now().toISOString(),
      model_id: t.model_id ?? null,
    });
    return { id, startedAt: performance.now() };
  }

  /** Complete a trace row. */
  finish(trace: { id: string; startedAt: number }, f: TraceFinish): void {
    this.stmts.finish.run({
      id: trace.id,
      rendered_input: f.rendered_input ?? null,
      raw_output: f.raw_output ?? null,
      error: f.error ?? null,
      error_code: f.error_code ?? null,
      completed_at: this.now().toISOString(),
      duration_ms: Math.round(performance.now() - trace.startedAt),
      input_tokens: f.input_tokens ?? null,
      output_tokens: f.output_tokens ?? null,
      model_id: f.model_id ?? null,
      estimated_cost: f.estimated_cost ?? null,
      assertions_run: f.assertions_run ?? 0,
      assertions_passed: f.assertions_passed ?? 0,
    });
  }

  /** One trace by id. */
  get(id: string): TraceRow | null {
    return (this.stmts.get.get(id) as TraceRow | undefined) ?? null;
  }

  /** Newest first, filtered. */
  list(q: TraceQuery = {}): TraceRow[] {
    const where: string[] = [];
    const args: unknown[] = [];
    if (q.session_id) {
      where.push('session_id = ?');
      args.push(q.session_id);
    }
    if (q.skill_id) {
      where.push('skill_id = ?');
      args.push(q.skill_id);
    }
    const sql = `SELECT * FROM skill_execution_traces ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY started_at DESC, rowid DESC LIMIT ?`;
    return this.db.prepare(sql).all(...args, q.limit ?? 100) as TraceRow[];
  }
}
