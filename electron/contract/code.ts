/** The `code/*` slice of the API contract: Python run in the sandbox, outside any skill. */
import { z } from 'zod';
import type { ErrorCode } from './errors.js';

/** Largest program `code/run` accepts. */
export const MAX_PROGRAM_CHARS = 4 * 1024 * 1024;

/** `code/run`: one program in the sandbox pool (no template rendering, no model). */
export const RunCodeReqSchema = z
  .object({
    code: z.string().max(MAX_PROGRAM_CHARS, 'is larger than 4 MB'),
    /** Wall-clock limit of this run. */
    timeout_ms: z.number().int().min(1).max(3_600_000).optional(),
  })
  .strict();
/** Request of `code/run`. */
export type RunCodeReq = z.infer<typeof RunCodeReqSchema>;

/** Why a program stopped early: a Python exception, or a limit / sandbox failure with its code. */
export interface CodeErrorView {
  /** Python exception class (`ZeroDivisionError`), or `Timeout`, `MemoryLimit`, `SandboxFault`. */
  type: string;
  message: string;
  code?: ErrorCode | null;
  traceback?: string;
}

/** Reply of `code/run`: the run's outcome as data (a Python exception is not an error reply). */
export interface RunCodeRes {
  /** True when the program ran to its end without raising or breaking a limit. */
  ok: boolean;
  /** What `submit()` received, or null. */
  result: unknown;
  submitted: boolean;
  stdout: string;
  stderr: string;
  error: CodeErrorView | null;
  duration_ms: number;
  llm: { calls: number; input_tokens: number; output_tokens: number; models: string[] };
}

/** The `code/*` channels. */
export interface CodeChannels {
  'code/run': { req: RunCodeReq; res: RunCodeRes };
}

/** Request schemas of the `code/*` channels. */
export const codeRequestSchemas = {
  'code/run': RunCodeReqSchema,
};
