import { AppError, type AppErrorData } from '../contract/errors.js';
import { assertionsOf, runAssertions } from '../evals/index.js';
import { modelFamily, resolveVariants, runnableArtifacts } from '../kinds/index.js';
import { modelId } from '../llm/index.js';
import type { SkillArtifact } from '../store/index.js';
import type { TraceStore } from '../traces/index.js';
import type { RunScope } from './run-scope.js';
import type {
  ArtifactHandlers,
  DispatchResult,
  ExecutionContext,
  HandlerResult,
  SkillRef,
  TraceDraft,
} from './types.js';

export { EXECUTABLE_KINDS } from '../contract/kinds.js';

/**
 * Merge the model's variables with the harness-owned keys; the harness always wins, so a model
 * cannot spoof the session, workspace or attachments a skill sees.
 */
export function mergeContext(
  fromModel: Record<string, unknown>,
  harness: Record<string, unknown>,
): Record<string, unknown> {
  const safe = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of Object.entries(fromModel ?? {}))
    if (k !== '__proto__' && k !== 'constructor') safe[k] = v;
  return { ...safe, ...harness };
}

/** Options for running a whole skill. */
export interface RunSkillOptions {
  skill: SkillRef;
  artifacts: SkillArtifact[];
  /** Variables from the model or the user; the scope's harness keys win over them. */
  variables?: Record<string, unknown>;
  /** Run only this artifact (by name). */
  artifact?: string;
}

/**
 * Routes each artifact to the handler of its kind, writes one trace row per execution (even on
 * failure or cancel) and runs the artifact's assertions.
 */
export class ArtifactDispatcher {
  constructor(
    private readonly handlers: ArtifactHandlers,
    private readonly traces: TraceStore,
  ) {}

  /** Execute one artifact. Never throws: the result carries the error. */
  async dispatch(artifact: SkillArtifact, ctx: ExecutionContext): Promise<DispatchResult> {
    const { scope } = ctx;
    const trace = this.traces.start({
      session_id: scope.session_id,
      skill_id: ctx.skill.id,
      artifact_id: artifact.id,
      artifact_kind: artifact.kind,
      model_id: modelId(scope.llm),
    });
    const t0 = performance.now();
    const ref = {
      id: artifact.id,
      name: artifact.name,
      kind: artifact.kind,
      model_variant: artifact.model_variant,
    };
    const failed = (error: AppErrorData, partial: TraceDraft): DispatchResult => {
      const err: AppErrorData =
        scope.signal?.aborted && error.code !== 'CANCELLED'
          ? { code: 'CANCELLED', message: 'cancelled' }
          : error;
      this.traces.finish(trace, { ...pickTrace(partial), error: err.message, error_code: err.code });
      return {
        trace_id: trace.id,
        artifact: ref,
        ok: false,
        output: null,
        error: err,
        assertions: [],
        aborted: true,
        duration_ms: Math.round(performance.now() - t0),
      };
    };
    if (scope.signal?.aborted)
      return failed({ code: 'CANCELLED', message: 'cancelled before it started' }, {});
    let result: HandlerResult;
    try {
      result = await this.handlers[artifact.kind].execute(artifact, ctx);
    } catch (e) {
      // A handler returns its outcomes; what it throws is a bug, recorded as INTERNAL.
      result = {
        ok: false,
        error: { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e) },
        partial: {},
      };
    }
    if (!result.ok) return failed(result.error, result.partial);
    const { output } = result;
    const assertions = await runAssertions(
      assertionsOf(artifact.metadata),
      { text: output.text, data: output.data },
      { llm: scope.llm, signal: scope.signal },
    );
    const run = assertions.filter((a) => !a.skipped);
    const failedHard = run.find((a) => !a.passed && a.severity === 'hard');
    const error: AppErrorData | null = failedHard
      ? {
          code: 'ASSERTION_FAILED',
          message: `assertion failed: ${failedHard.description}${failedHard.explanation ? ` (${failedHard.explanation})` : ''}`,
        }
      : null;
    this.traces.finish(trace, {
      ...pickTrace(output),
      error: error?.message ?? null,
      error_code: error?.code ?? null,
      assertions_run: run.length,
      assertions_passed: run.filter((a) => a.passed).length,
    });
    return {
      trace_id: trace.id,
      artifact: ref,
      ok: !failedHard,
      output,
      error,
      assertions,
      aborted: Boolean(failedHard),
      duration_ms: Math.round(performance.now() - t0),
    };
  }

  /**
   * Run a skill: one variant per artifact (chosen for the model), in ordinal order; a prompt
   * template that only serves as a dspy_module's fallback runs only as that fallback. Structured
   * output of an artifact (e.g. what a code_template submitted) becomes variables for the next
   * ones; harness keys still win. Stops at the first failure or hard assertion.
   */
  async runSkill(scope: RunScope, o: RunSkillOptions): Promise<DispatchResult[]> {
    const family = modelFamily(scope.llm?.provider, scope.llm?.model);
    let chosen = resolveVariants(o.artifacts, family);
    if (o.artifact) {
      chosen = chosen.filter((a) => a.name === o.artifact);
      if (chosen.length === 0) {
        throw new AppError(
          'NOT_FOUND',
          `skill "${o.skill.name}" has no artifact named "${o.artifact}"; it has: ${[...new Set(o.artifacts.map((a) => a.name))].join(', ')}`,
        );
      }
    } else {
      // The kinds say which run: a fallback only as its program's fallback, an LLM skill alone.
      chosen = runnableArtifacts(chosen, o.artifacts);
    }
    const harness = scope.harness;
    let variables = mergeContext(o.variables ?? {}, harness);
    const results: DispatchResult[] = [];
    for (const artifact of chosen) {
      const r = await this.dispatch(artifact, { scope, skill: o.skill, artifacts: o.artifacts, variables });
      results.push(r);
      scope.trace(r);
      if (!r.ok) break;
      const data = r.output?.data;
      if (data && typeof data === 'object' && !Array.isArray(data)) {
        variables = mergeContext({ ...variables, ...(data as Record<string, unknown>) }, harness);
      }
    }
    return results;
  }
}

function pickTrace(o: TraceDraft) {
  return {
    rendered_input: o.rendered_input ?? null,
    raw_output: o.raw_output ?? (o.data !== undefined ? JSON.stringify(o.data) : null),
    input_tokens: o.input_tokens ?? null,
    output_tokens: o.output_tokens ?? null,
    model_id: o.model_id ?? null,
    estimated_cost: o.estimated_cost ?? null,
  };
}
