/**
 * The dry run of a draft's code templates: rendered with an eval's variables and run in the
 * sandbox pool without a model (a `llm_query` call is not a failure of the dry run; it only
 * means the code needs the model at run time).
 */
import type { SkillRuntime } from '../dispatch/index.js';
import { renderCodeTemplate } from '../sandbox/index.js';
import type { SkillStore } from '../store/index.js';
import type { CodeDryRunner } from './validate.js';

const NO_MODEL = 'the Composer dry run has no model';

/** A dry runner over the open session's sandbox. */
export function createCodeDryRunner(session: {
  writeStore(): SkillStore;
  runtime(store: SkillStore): SkillRuntime;
}): CodeDryRunner {
  return async (artifact, variables) => {
    const code =
      artifact.metadata?.template === false
        ? artifact.content
        : renderCodeTemplate(artifact.content, variables);
    const r = await session
      .runtime(session.writeStore())
      .runCode(code, { timeout_ms: 15_000, noModelMessage: NO_MODEL });
    if (!r.ok && r.error?.message.includes(NO_MODEL)) return { ok: true };
    return { ok: r.ok, error: r.error ? { type: r.error.type, message: r.error.message } : null };
  };
}
