import { createSandboxHost, runCodeTemplate } from '../../sandbox/index.js';
import { fail, settle, succeed } from '../result.js';
import { runHostDeps } from '../sandbox-host.js';
import type { KindModule, TraceDraft } from '../types.js';

/**
 * `code_template`: Python (a MiniJinja template unless `template: false`) run in the sandbox. Its
 * effects are those of the `skilldesk` host functions its source calls.
 */
export const codeTemplateKind: KindModule<'code_template'> = {
  kind: 'code_template',
  runs_in: 'sandbox',
  validate: () => [],
  effects(artifact, hostEffects) {
    return Object.entries(hostEffects).flatMap(([fn, effects]) =>
      effects.length > 0 && new RegExp(`\\b${fn}\\s*\\(`).test(artifact.content)
        ? [{ effects, why: `artifact ${artifact.name} calls skilldesk.${fn}` }]
        : [],
    );
  },
  agentSkills: {
    // A template is never written as a `.py` of its own: only plain Python is a script.
    path: (a, slug) =>
      typeof a.metadata?.path === 'string'
        ? a.metadata.path
        : a.metadata?.template === false
          ? `scripts/${slug(a.name)}.py`
          : null,
    file: (_a, base) => `templates/${base}.py.j2`,
  },
  review(artifact, hostEffects) {
    const pages = Object.keys(hostEffects).filter(
      (f) => !f.startsWith('llm_') && new RegExp(`\\b${f}\\s*\\(`).test(artifact.content),
    );
    return {
      calls_model: /\bllm_query(?:_batched)?\s*\(/.test(artifact.content),
      script: artifact.name,
      pages,
      code: true,
    };
  },
  async execute(artifact, ctx, runtimes) {
    const sandbox = runtimes.sandbox;
    if (!sandbox) return fail('HANDLER_NOT_AVAILABLE', 'the Python sandbox is turned off');
    // A bad template or metadata is an AppError from the renderer: an outcome, like a traceback.
    // Runs queue fairly per chat: one chat's burst never starves another's run.
    const ran = await settle(() =>
      runCodeTemplate(sandbox.pool(), artifact, ctx.variables, {
        host: createSandboxHost(runHostDeps(sandbox, ctx)),
        queue: ctx.scope.session_id,
        signal: ctx.scope.signal,
      }),
    );
    if (!ran.ok) return { ok: false, error: ran.error, partial: {} };
    const r = ran.value;
    const partial: TraceDraft = {
      rendered_input: r.rendered_code,
      raw_output: r.submitted ? JSON.stringify(r.result) : r.stdout,
      input_tokens: r.llm.input_tokens,
      output_tokens: r.llm.output_tokens,
      stdout: r.stdout,
      stderr: r.stderr,
    };
    if (!r.ok) {
      const e = r.error!;
      return fail(e.code ?? 'SANDBOX_FAILED', `${e.type}: ${e.message}`, partial, {
        traceback: e.traceback,
        stdout: r.stdout,
      });
    }
    return succeed({
      text: r.submitted ? null : r.stdout,
      data: r.submitted ? r.result : undefined,
      rendered_input: r.rendered_code,
      raw_output: partial.raw_output,
      input_tokens: r.llm.calls ? r.llm.input_tokens : null,
      output_tokens: r.llm.calls ? r.llm.output_tokens : null,
      model_id: r.llm.models[0] ?? null,
      stdout: r.stdout,
      stderr: r.stderr,
    });
  },
};
