/** The `traces/*` slice of the API contract: skill execution traces, one row per artifact run. */
import { z } from 'zod';
import type { ErrorCode } from './errors.js';
import type { SkillScope } from './skills.js';

const id = z.string().trim().min(1, 'must not be empty').max(100);

/** `traces/list`: newest first, optionally of one session or one skill (by name). */
export const ListTracesReqSchema = z
  .object({
    session_id: id.optional(),
    skill: z.string().trim().min(1).max(200).optional(),
    limit: z.number().int().min(1).max(100_000).optional(),
  })
  .strict();
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
/** Reply of `traces/list`. */
export interface ListTracesRes {
  traces: TraceView[];
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
}

/** Request schemas of the `traces/*` channels. */
export const tracesRequestSchemas = {
  'traces/list': ListTracesReqSchema,
  'traces/get': GetTraceReqSchema,
};
