import { type AppErrorData, type ErrorCode, isAppError } from '../contract/errors.js';
import type { ArtifactOutput, HandlerResult, TraceDraft } from './types.js';

/** A successful handler result. */
export function succeed(output: ArtifactOutput): HandlerResult {
  return { ok: true, output };
}

/** A failed handler result carrying what was known before the failure. */
export function fail(
  code: ErrorCode,
  message: string,
  partial: TraceDraft = {},
  details?: Record<string, unknown>,
): HandlerResult {
  return { ok: false, error: details ? { code, message, details } : { code, message }, partial };
}

/** The outcome of a call into a runtime that reports failures by throwing (the AI SDK, MiniJinja, the sidecar). */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: AppErrorData };

/**
 * Turn a call into a throwing runtime into data at the edge. Only AppErrors are outcomes; anything
 * else is a bug and keeps propagating (the dispatcher records it as INTERNAL).
 */
export async function settle<T>(run: () => T | Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (e) {
    if (isAppError(e)) return { ok: false, error: e.toData() };
    throw e;
  }
}

/** Why a handler that needs a model cannot run without one. */
export const NO_LLM: AppErrorData = {
  code: 'LLM_NOT_CONFIGURED',
  message:
    'no model is configured: pass --provider and --model (and a key in the environment), or set one up in Settings',
};
