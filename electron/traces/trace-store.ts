import { randomUUID } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import type { TraceStatus, TraceTotals, TraceView } from '../contract/traces.js';
import { type Db, toStorageError } from '../store/index.js';

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

/** Most of a rendered input or raw output a trace keeps, in characters (start and end kept). */
export const TRACE_EXCERPT_CHARS = 64 * 1024;

/**
 * `text` as a trace stores it: whole when short, else its start and end around a note of what was
 * left out, with the full size in UTF-8 bytes (a 300 MB prompt must not become a 300 MB row).
 */
export function traceExcerpt(
  text: string | null | undefined,
  max = TRACE_EXCERPT_CHARS,
): { text: string | null; bytes: number | null } {
  if (text == null) return { text: null, bytes: null };
  if (text.length <= max) return { text, bytes: null };
  const bytes = Buffer.byteLength(text);
  const head = Math.floor(max * 0.75);
  const tail = max - head;
  const left = text.length - head - tail;
  return {
    text: `${text.slice(0, head)}\n… [excerpt: ${bytes} bytes in all; ${left} characters left out here] …\n${text.slice(-tail)}`,
    bytes,
  };
}

/** Filters for listing traces (resolved: skill ids, ISO instants). */
export interface TraceQuery {
  session_id?: string;
  skill_id?: string;
  /** Any of these skills (an empty list matches nothing). */
  skill_ids?: string[];
  artifact_kind?: string;
  status?: TraceStatus;
  /** `started_at >= since` (ISO instant). */
  since?: string;
  /** `started_at < before` (ISO instant). */
  before?: string;
  limit?: number;
}

/** Sums over the rows a query matches. */
export type TraceSums = TraceTotals;

function whereOf(q: TraceQuery): { sql: string; args: unknown[] } {
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
  if (q.skill_ids) {
    where.push(q.skill_ids.length ? `skill_id IN (${q.skill_ids.map(() => '?').join(',')})` : '0');
    args.push(...q.skill_ids);
  }
  if (q.artifact_kind) {
    where.push('artifact_kind = ?');
    args.push(q.artifact_kind);
  }
  if (q.status === 'error') where.push('(error IS NOT NULL OR error_code IS NOT NULL)');
  else if (q.status === 'ok')
    where.push('(completed_at IS NOT NULL AND error IS NULL AND error_code IS NULL)');
  else if (q.status === 'running')
    where.push('(completed_at IS NULL AND error IS NULL AND error_code IS NULL)');
  if (q.since) {
    where.push('started_at >= ?');
    args.push(q.since);
  }
  if (q.before) {
    where.push('started_at < ?');
    args.push(q.before);
  }
  return { sql: where.length ? `WHERE ${where.join(' AND ')}` : '', args };
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
        rendered_input, rendered_input_bytes, started_at, model_id) VALUES (@id, @session_id, @skill_id, @artifact_id,
        @artifact_kind, @rendered_input, @rendered_input_bytes, @started_at, @model_id)`),
      finish: db.prepare(`UPDATE skill_execution_traces SET
        rendered_input = coalesce(@rendered_input, rendered_input),
        rendered_input_bytes = CASE WHEN @rendered_input IS NULL THEN rendered_input_bytes ELSE @rendered_input_bytes END,
        raw_output = @raw_output, raw_output_bytes = @raw_output_bytes, error = @error, error_code = @error_code,
        completed_at = @completed_at, duration_ms = @duration_ms, input_tokens = @input_tokens,
        output_tokens = @output_tokens, model_id = coalesce(@model_id, model_id), estimated_cost = @estimated_cost,
        assertions_run = @assertions_run, assertions_passed = @assertions_passed WHERE id = @id`),
      get: db.prepare('SELECT * FROM skill_execution_traces WHERE id = ?'),
    };
  }

  /** Record the start of an execution; returns the trace id. */
  start(t: TraceStart): { id: string; startedAt: number } {
    const id = randomUUID();
    const input = traceExcerpt(t.rendered_input);
    this.write(this.stmts.insert, {
      id,
      session_id: t.session_id,
      skill_id: t.skill_id,
      artifact_id: t.artifact_id,
      artifact_kind: t.artifact_kind,
      rendered_input: input.text,
      rendered_input_bytes: input.bytes,
      started_at: this.now().toISOString(),
      model_id: t.model_id ?? null,
    });
    return { id, startedAt: performance.now() };
  }

  /** Complete a trace row. */
  finish(trace: { id: string; startedAt: number }, f: TraceFinish): void {
    const input = traceExcerpt(f.rendered_input);
    const output = traceExcerpt(f.raw_output);
    this.write(this.stmts.finish, {
      id: trace.id,
      rendered_input: input.text,
      rendered_input_bytes: input.bytes,
      raw_output: output.text,
      raw_output_bytes: output.bytes,
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

  /** Run a write; a full disk or a store held elsewhere comes out named (DISK_FULL, STORE_BUSY). */
  private write(stmt: Statement, params: Record<string, unknown>): void {
    try {
      stmt.run(params);
    } catch (e) {
      throw toStorageError(e, this.db.name);
    }
  }

  /** One trace by id. */
  get(id: string): TraceRow | null {
    return (this.stmts.get.get(id) as TraceRow | undefined) ?? null;
  }

  /** Newest first (oldest first with `order: 'asc'`), filtered. */
  list(q: TraceQuery = {}, order: 'asc' | 'desc' = 'desc'): TraceRow[] {
    const w = whereOf(q);
    const dir = order === 'asc' ? 'ASC' : 'DESC';
    const sql = `SELECT * FROM skill_execution_traces ${w.sql} ORDER BY started_at ${dir}, rowid ${dir} LIMIT ?`;
    return this.db.prepare(sql).all(...w.args, q.limit ?? 100) as TraceRow[];
  }

  /** Sums over every row the query matches (its `limit` ignored). */
  totals(q: TraceQuery = {}): TraceSums {
    const w = whereOf(q);
    const r = this.db
      .prepare(
        `SELECT count(*) AS count,
          coalesce(sum(CASE WHEN error IS NOT NULL OR error_code IS NOT NULL THEN 1 ELSE 0 END), 0) AS errors,
          coalesce(sum(input_tokens), 0) AS input_tokens, coalesce(sum(output_tokens), 0) AS output_tokens,
          coalesce(sum(estimated_cost), 0) AS estimated_cost, coalesce(sum(duration_ms), 0) AS duration_ms
        FROM skill_execution_traces ${w.sql}`,
      )
      .get(...w.args) as TraceSums;
    return r;
  }

  /** The distinct values of a column, for filter pickers. */
  distinct(column: 'session_id' | 'skill_id' | 'artifact_kind'): string[] {
    return (
      this.db
        .prepare(`SELECT DISTINCT ${column} AS v FROM skill_execution_traces ORDER BY v`)
        .all() as Array<{
        v: string;
      }>
    ).map((r) => r.v);
  }
}
