/** The `traces/*` slice of the API contract: skill execution traces, one row per artifact run. */
import { z } from 'zod';
import type { ErrorCode } from './errors.js';
import type { SkillScope } from './skills.js';

const id = z.string().trim().min(1, 'must not be empty').max(100);

/** A calendar date or an instant (`2026-11-22`, `2026-11-22T10:00:00Z`), compared with `started_at`. */
const dateSchema = z
  .string()
  .trim()
  .refine(
    (v) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) && !Number.isNaN(Date.parse(v)),
    {
      message: 'must be a date such as 2026-11-22 or 2026-11-22T10:00:00Z',
    },
  );

/** What a trace ended as: `ok` (completed, no error), `error`, or `running` (not completed yet). */
export const TraceStatusSchema = z.enum(['ok', 'error', 'running']);
/** What a trace ended as. */
export type TraceStatus = z.infer<typeof TraceStatusSchema>;

/** The filters every trace query shares (all optional, combined with AND). */
export const TraceFilterSchema = z
  .object({
    session_id: id.optional(),
    /** A skill by name (NFKC, case-folded). */
    skill: z.string().trim().min(1).max(200).optional(),
    artifact_kind: z.string().trim().min(1).max(40).optional(),
    status: TraceStatusSchema.optional(),
    /** Started at or after this date (a bare date means its start, UTC). */
    since: dateSchema.optional(),
    /** Started before the end of this date (a bare date means the whole day, UTC). */
    until: dateSchema.optional(),
  })
  .strict();
/** Trace filters. */
export type TraceFilter = z.infer<typeof TraceFilterSchema>;

/** `traces/list`: newest first, filtered, with totals over every match (not only the page). */
export const ListTracesReqSchema = TraceFilterSchema.extend({
  limit: z.number().int().min(1).max(100_000).optional(),
}).strict();
/** Request of `traces/list`. */
export type ListTracesReq = z.infer<typeof ListTracesReqSchema>;

/** One trace: exactly the stored columns plus where it lives and the names it refers to. */
export interface TraceView {
  id: string;
  session_id: string;
  skill_id: string;
  skill_name: string | null;
  artifact_id: string;
  artifact_name: string | null;
  artifact_kind: string;
  scope: SkillScope;
  rendered_input: string | null;
  raw_output: string | null;
  /**
   * The full size in UTF-8 bytes when `rendered_input` is only an excerpt (its start and end) of
   * a huge input; null or absent when it is the whole text.
   */
  rendered_input_bytes?: number | null;
  /** The same for `raw_output`. */
  raw_output_bytes?: number | null;
  /** Why the execution failed: the message (the design's `error` column) and its code. */
  error: string | null;
  error_code: ErrorCode | null;
  started_at: string;
  completed_at: string | null;
  duration_ms: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  model_id: string | null;
  estimated_cost: number | null;
  assertions_run: number;
  assertions_passed: number;
}
/** Sums over every trace a filter matches. Tokens and cost count only the traces that report them. */
export interface TraceTotals {
  count: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  estimated_cost: number;
  duration_ms: number;
}

/** The values the filters can take (over all traces of the open stores), for pickers. */
export interface TraceFacets {
  session_ids: string[];
  skills: string[];
  artifact_kinds: string[];
}

/** Reply of `traces/list`. */
export interface ListTracesRes {
  traces: TraceView[];
  totals: TraceTotals;
  facets: TraceFacets;
}

/**
 * `traces/export`: the matching traces as JSONL, oldest first, one `TraceExample` per line, a
 * form DSPy loads as a dataset: `dspy.Example(**row).with_inputs("input")`.
 */
export const ExportTracesReqSchema = TraceFilterSchema;
/** Request of `traces/export`. */
export type ExportTracesReq = z.infer<typeof ExportTracesReqSchema>;

/** One exported line: `input` → `output` plus what the run was and how it went. */
export interface TraceExample {
  /** The rendered input (prompt text, or the code's JSON context). */
  input: string;
  /** The raw output ("" when the run failed before producing one). */
  output: string;
  skill: string;
  artifact: string;
  artifact_kind: string;
  status: TraceStatus;
  error: string | null;
  error_code: ErrorCode | null;
  model: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  estimated_cost: number | null;
  duration_ms: number | null;
  assertions_run: number;
  assertions_passed: number;
  trace_id: string;
  session_id: string;
  started_at: string;
}
/** Reply of `traces/export`. */
export interface ExportTracesRes {
  jsonl: string;
  count: number;
}

/** `traces/get`: one trace by id. */
export const GetTraceReqSchema = z.object({ id }).strict();
/** Request of `traces/get`. */
export type GetTraceReq = z.infer<typeof GetTraceReqSchema>;
/** Reply of `traces/get`. */
export interface GetTraceRes {
  trace: TraceView;
}

/** The `traces/*` channels. */
export interface TracesChannels {
  'traces/list': { req: ListTracesReq; res: ListTracesRes };
  'traces/get': { req: GetTraceReq; res: GetTraceRes };
  'traces/export': { req: ExportTracesReq; res: ExportTracesRes };
}

/** Request schemas of the `traces/*` channels. */
export const tracesRequestSchemas = {
  'traces/list': ListTracesReqSchema,
  'traces/get': GetTraceReqSchema,
  'traces/export': ExportTracesReqSchema,
};
