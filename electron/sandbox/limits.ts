import { z } from 'zod';
import { AppError } from '../contract/errors.js';

/** Per-run limits of the sandbox. Every field has a default and a hard maximum. */
export interface SandboxLimits {
  /** Wall-clock budget; the run is interrupted at the deadline. */
  timeout_ms: number;
  /** After the interrupt, how long before the worker is terminated (C-level loops ignore it). */
  grace_ms: number;
  /** Cap on the interpreter's wasm memory. */
  memory_mb: number;
  /** Cap on each of stdout and stderr; the rest is dropped and marked. */
  output_bytes: number;
  /** Cap on the JSON size of the value given to `submit()`. */
  result_bytes: number;
  /** Python's recursion limit. */
  recursion_limit: number;
  /** Host calls (workspace, llm, checkpoint, submit) per run. */
  host_calls: number;
  /** `llm_query` prompts per run (a batch counts each prompt). */
  llm_calls: number;
}

/** The defaults used when neither the caller nor the artifact says otherwise. */
export const DEFAULT_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  timeout_ms: 10_000,
  grace_ms: 500,
  memory_mb: 256,
  output_bytes: 64 * 1024,
  result_bytes: 1024 * 1024,
  recursion_limit: 1000,
  host_calls: 1000,
  llm_calls: 50,
});

/** Hard maxima: an override above these is clamped down, never refused. */
export const MAX_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  timeout_ms: 300_000,
  grace_ms: 5_000,
  memory_mb: 1024,
  output_bytes: 4 * 1024 * 1024,
  result_bytes: 8 * 1024 * 1024,
  recursion_limit: 5_000,
  host_calls: 10_000,
  llm_calls: 500,
});

const MIN_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  timeout_ms: 10,
  grace_ms: 50,
  memory_mb: 64,
  output_bytes: 0,
  result_bytes: 2,
  recursion_limit: 50,
  host_calls: 0,
  llm_calls: 0,
});

const positive = z.number().finite().nonnegative();

/** Zod schema for limit overrides (from artifact metadata or callers); unknown keys are ignored. */
export const SandboxLimitsOverrideSchema = z
  .object({
    timeout_ms: positive,
    grace_ms: positive,
    memory_mb: positive,
    output_bytes: positive,
    result_bytes: positive,
    recursion_limit: positive,
    host_calls: positive,
    llm_calls: positive,
  })
  .partial();

/** A partial set of limits. */
export type SandboxLimitsOverride = z.infer<typeof SandboxLimitsOverrideSchema>;

/**
 * Merge `overrides` (later wins) onto the defaults, validating each with zod and clamping to
 * [min, max]. Throws `INVALID_INPUT` when a value is not a non-negative number.
 */
export function resolveLimits(...overrides: Array<unknown>): SandboxLimits {
  const out: SandboxLimits = { ...DEFAULT_LIMITS };
  for (const o of overrides) {
    if (o === undefined || o === null) continue;
    const parsed = SandboxLimitsOverrideSchema.safeParse(o);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new AppError(
        'INVALID_INPUT',
        `Invalid sandbox limit ${issue?.path.join('.') ?? ''}: ${issue?.message}`,
        {
          path: issue?.path,
        },
      );
    }
    for (const [k, v] of Object.entries(parsed.data) as Array<[keyof SandboxLimits, number | undefined]>) {
      if (v !== undefined) out[k] = v;
    }
  }
  for (const k of Object.keys(out) as Array<keyof SandboxLimits>) {
    out[k] = Math.round(Math.min(MAX_LIMITS[k], Math.max(MIN_LIMITS[k], out[k])));
  }
  return out;
}
