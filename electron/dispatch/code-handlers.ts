import type { HandlersFor } from '../contract/channels.js';
import type { RunCodeRes } from '../contract/code.js';
import type { SandboxRunResult } from '../sandbox/index.js';
import type { SkillStore } from '../store/index.js';
import type { SkillRuntime } from './runtime.js';

/** What the code slice needs. */
export interface CodeHandlerDeps {
  /** The open workspace: code runs in the runtime of the store it writes to. */
  session: { writeStore(): SkillStore; runtime(store: SkillStore): SkillRuntime };
}

/** A sandbox run as the contract reports it (times rounded to 0.1 ms). */
export function toRunCodeRes(r: SandboxRunResult): RunCodeRes {
  return {
    ok: r.ok,
    result: r.result,
    submitted: r.submitted,
    stdout: r.stdout,
    stderr: r.stderr,
    error: r.error
      ? {
          type: r.error.type,
          message: r.error.message,
          ...(r.error.code ? { code: r.error.code } : {}),
          ...(r.error.traceback ? { traceback: r.error.traceback } : {}),
        }
      : null,
    duration_ms: Math.round(r.duration_ms * 10) / 10,
    llm: r.llm,
  };
}

/**
 * The `code/*` slice: Python in the sandbox pool of the session's store, with the workspace pages
 * as host functions and no model. A Python exception is a result, not an error reply.
 */
export function createCodeHandlers(deps: CodeHandlerDeps) {
  return {
    'code/run': async (req) => {
      const runtime = deps.session.runtime(deps.session.writeStore());
      const r = await runtime.runCode(req.code, {
        timeout_ms: req.timeout_ms,
        noModelMessage: 'no model configured: pass --provider … (run-code has no model)',
      });
      return toRunCodeRes(r);
    },
  } satisfies HandlersFor<'code'>;
}
