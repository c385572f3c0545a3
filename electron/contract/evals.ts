/**
 * Remembered eval runs and eval progress: a skill's pass rate per model, with tokens,
 * cost and time, and the before/after of an optimization.
 */
import { z } from 'zod';
import { ScopeSchema } from './skills.js';

/** One eval of `evals/evals.json` (skill-creator's shape; unknown fields are kept). */
export const EvalSchema = z
  .object({
    id: z.union([z.number(), z.string().max(200)]),
    name: z.string().max(500).optional(),
    prompt: z.string().min(1).max(100_000),
    expected_output: z.string().max(100_000).optional(),
    files: z.array(z.string().max(1000)).max(100).optional(),
    /** Statements about the output (judged by the model), or `{type: contains|not_contains, value}`. */
    assertions: z
      .array(
        z.union([
          z.string().min(1).max(2000),
          z
            .object({
              type: z.enum(['contains', 'not_contains']),
              value: z.string().max(10_000),
              name: z.string().max(200).optional(),
            })
            .passthrough(),
        ]),
      )
      .max(100)
      .optional(),
    /** skill-creator's checks: statements about the output, each graded by the judge model. */
    expectations: z.array(z.string().min(1).max(2000)).max(100).optional(),
    /** A trigger eval: whether this message should activate the skill (phase 1, top 5). */
    should_trigger: z.boolean().optional(),
    /** Variables for the skill's templates (default: the prompt as `input`, `text` and `message`). */
    context: z.record(z.string(), z.unknown()).optional(),
  })
  .passthrough();

/**
 * An `evals/evals.json` file: the main process reads skills' evals with it and the Composer's
 * rows editor checks what it writes back.
 */
export const EvalsFileSchema = z
  .object({
    skill_name: z.string().max(200).optional(),
    /** The pass rate below which `skills eval` fails (default 0.8). */
    threshold: z.number().min(0).max(1).optional(),
    evals: z.array(EvalSchema).min(1).max(1000),
  })
  .passthrough();

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
