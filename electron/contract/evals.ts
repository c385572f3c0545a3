/**
 * Remembered eval runs and eval progress: a skill's pass rate per model, with tokens,
 * cost and time, and the before/after of an optimization.
 */
import { z } from 'zod';
import { ScopeSchema } from './skills.js';

/** One remembered run of a skill's evals. */
export interface EvalRunSummary {
  id: number;
  /** The skill's version when it ran. */
  version: string;
  /** `provider:model`, or null when no model was configured. */
  model: string | null;
  only: 'all' | 'trigger' | 'output';
  total: number;
  passed: number;
  pass_rate: number;
  threshold: number;
  input_tokens: number;
  output_tokens: number;
  estimated_cost: number | null;
  duration_ms: number;
  /** An eval run, or the before/after of `skills optimize --evals`. */
  origin: 'eval' | 'optimize_before' | 'optimize_after';
  created_at: string;
}

/** `skills/eval-history`: a skill's remembered eval runs. */
export const EvalHistoryReqSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    scope: ScopeSchema.optional(),
    limit: z.number().int().min(1).max(1000).optional(),
  })
  .strict();
/** Request of `skills/eval-history`. */
export type EvalHistoryReq = z.infer<typeof EvalHistoryReqSchema>;
/** Reply of `skills/eval-history`: newest first, and the latest run per model. */
export interface EvalHistoryRes {
  name: string;
  scope: 'account' | 'workspace';
  runs: EvalRunSummary[];
  per_model: EvalRunSummary[];
}

/** `skills/cancel-eval`: stop a `skills/eval` run started with a `run_id`. */
export const CancelEvalReqSchema = z.object({ run_id: z.string().min(1).max(200) }).strict();
/** Request of `skills/cancel-eval`. */
export type CancelEvalReq = z.infer<typeof CancelEvalReqSchema>;

/** The eval-history and cancel channels. */
export interface EvalChannels {
  'skills/eval-history': { req: EvalHistoryReq; res: EvalHistoryRes };
  'skills/cancel-eval': { req: CancelEvalReq; res: { cancelled: boolean } };
}

/** Request schemas of the eval channels. */
export const evalRequestSchemas = {
  'skills/eval-history': EvalHistoryReqSchema,
  'skills/cancel-eval': CancelEvalReqSchema,
};

/** Events of a running eval. */
export interface EvalEvents {
  /** One eval of a run with a `run_id` finished. */
  'skills/eval-progressed': {
    run_id: string;
    done: number;
    total: number;
    id: string;
    passed: boolean;
  };
}
