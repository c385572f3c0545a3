import { z } from 'zod';
import type { AppErrorData } from '../../contract/errors.js';
import type { SkillArtifact } from '../../store/index.js';
import { fail, succeed } from '../result.js';
import type { KindIssue, KindModule, TraceDraft } from '../types.js';
import { modelFamily, selectVariant } from '../variants.js';

/**
 * The `content` of a dspy_module artifact: which shipped template runs, and with what signature
 * (`{"template_id": "chain_of_thought", "signature": "claims -> contradictions"}`). The one
 * schema every reader of a dspy_module's content uses: the package check, the executor, optimize.
 */
export const DspyContentSchema = z
  .object({
    template_id: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be a shipped template id such as chain_of_thought'),
    signature: z.string().min(1).max(2000).optional(),
    instructions: z.string().max(100_000).optional(),
    model: z.string().min(1).max(200).optional(),
  })
  .passthrough();

/** A dspy_module's parsed content. */
export type DspyContent = z.infer<typeof DspyContentSchema>;

/** Parse a dspy_module's content: the content, or the issues (at paths under `content`). */
export function parseDspyContent(
  content: string,
): { ok: true; value: DspyContent } | { ok: false; issues: KindIssue[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(content);
  } catch {
    return {
      ok: false,
      issues: [{ path: ['content'], message: 'must be JSON such as {"template_id": "chain_of_thought"}' }],
    };
  }
  const r = DspyContentSchema.safeParse(raw);
  if (r.success) return { ok: true, value: r.data };
  return {
    ok: false,
    issues: r.error.issues.map((i) => ({
      path: ['content', ...i.path.map((p) => p as string | number)],
      message: i.message,
    })),
  };
}

/**
 * Why the program's failure hands over to the fallback, in words for the trace and the chat. A
 * cancelled run is not handed over: the user asked for nothing more to run.
 */
export function fallbackReason(error: { code: string; message: string }): string | null {
  if (error.code === 'CANCELLED') return null;
  if (error.code === 'SIDECAR_UNAVAILABLE') return error.message;
  const detail = error.message.length > 300 ? `${error.message.slice(0, 300)}…` : error.message;
  return `the DSPy program failed (${error.code}: ${detail})`;
}

/**
 * `dspy_module`: a shipped DSPy template run in the sidecar with the run's model; when the sidecar
 * is unavailable or the program fails (the model's reply does not parse, a timeout, a crash), the
 * `fallback_artifact` prompt template runs instead, and the output and trace say so.
 */
export const dspyModuleKind: KindModule<'dspy_module'> = {
  kind: 'dspy_module',
  runs_in: 'sidecar',
  // What `skills/compile` saves: the JSON DSPy writes with save_program=False (its format is
  // checked when the package is read; the sidecar loads it).
  state: {
    problem(blob) {
      try {
        const state = JSON.parse(Buffer.from(blob, 'base64').toString('utf8')) as unknown;
        return typeof state === 'object' && state !== null && !Array.isArray(state)
          ? null
          : 'must decode to a JSON object (DSPy saved state)';
      } catch {
        return 'must decode to a JSON object (DSPy saved state)';
      }
    },
  },
  validate(a, skill) {
    const issues: KindIssue[] = [];
    const content = parseDspyContent(a.content);
    if (!content.ok) issues.push(...content.issues);
    const fallback = a.metadata?.fallback_artifact;
    if (typeof fallback !== 'string') {
      issues.push({
        path: ['metadata', 'fallback_artifact'],
        message: 'a dspy_module needs metadata.fallback_artifact naming a prompt_template of the same skill',
      });
    } else if (!skill.artifacts.some((b) => b.kind === 'prompt_template' && b.name === fallback)) {
      issues.push({
        path: ['metadata', 'fallback_artifact'],
        message: `names "${fallback}", but the skill has no prompt_template of that name`,
      });
    }
    return issues;
  },
  effects: () => [],
  agentSkills: { path: () => null, file: (_a, base) => `templates/${base}.dspy.json` },
  review: () => ({ calls_model: true, code: true }),
  hides: (a) =>
    typeof a.metadata?.fallback_artifact === 'string'
      ? [{ kind: 'prompt_template', name: a.metadata.fallback_artifact }]
      : [],
  async execute(artifact, ctx, runtimes) {
    const content = parseDspyContent(artifact.content);
    if (!content.ok)
      return fail('INVALID_INPUT', `dspy_module "${artifact.name}": content ${content.issues[0]!.message}`);
    let state: unknown = null;
    if (artifact.state_blob) {
      try {
        state = JSON.parse(Buffer.from(artifact.state_blob).toString('utf8'));
      } catch {
        return fail('INVALID_INPUT', `dspy_module "${artifact.name}": state_blob is not JSON`);
      }
    }
    let reason = 'the DSPy sidecar is not available in this process';
    let failed: AppErrorData | null = null;
    const partial: TraceDraft = {
      rendered_input: JSON.stringify({ template_id: content.value.template_id, params: ctx.variables }),
    };
    if (runtimes.sidecar) {
      const r = await runtimes.sidecar.execute(
        {
          template_id: content.value.template_id,
          signature: content.value.signature,
          state_blob: state,
          params: ctx.variables,
        },
        ctx,
      );
      if (r.ok) {
        const { output } = r.value;
        const text = typeof output === 'string' ? output : JSON.stringify(output);
        return succeed({
          text,
          data: output,
          rendered_input: partial.rendered_input,
          raw_output: text,
          input_tokens: r.value.input_tokens ?? null,
          output_tokens: r.value.output_tokens ?? null,
          model_id: r.value.model_id ?? null,
        });
      }
      // A program that fails at run time leaves the user with nothing; its prompt template, written
      // for exactly this, still answers.
      const why = fallbackReason(r.error);
      if (why === null) return { ok: false, error: r.error, partial };
      reason = why;
      if (r.error.code !== 'SIDECAR_UNAVAILABLE') failed = r.error;
    }
    const fallbackName = artifact.metadata?.fallback_artifact;
    const candidates = ctx.artifacts.filter((a) => a.kind === 'prompt_template' && a.name === fallbackName);
    const fallback = selectVariant(candidates, modelFamily(ctx.scope.llm?.provider, ctx.scope.llm?.model));
    if (!fallback) {
      if (failed) return { ok: false, error: failed, partial };
      return fail(
        'SIDECAR_UNAVAILABLE',
        `dspy_module "${artifact.name}" could not run (${reason}) and has no fallback prompt_template`,
      );
    }
    const note = `[fallback: ran prompt_template "${fallback.name}" because ${reason}]`;
    const r = await runtimes.run(fallback as SkillArtifact, ctx);
    const fellBack = { artifact: fallback.name, reason };
    if (!r.ok) {
      return {
        ok: false,
        error: r.error,
        partial: {
          ...r.partial,
          rendered_input: `${note}\n${r.partial.rendered_input ?? ''}`,
          fallback: fellBack,
        },
      };
    }
    return succeed({
      ...r.output,
      rendered_input: `${note}\n${r.output.rendered_input ?? ''}`,
      fallback: fellBack,
    });
  },
};
