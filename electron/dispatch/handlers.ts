import { type AppErrorData, type ErrorCode, isAppError } from '../contract/errors.js';
import type { Llm } from '../llm/index.js';
import type { SkillArtifact } from '../store/index.js';
import type { PromptEngine } from './prompt-engine.js';
import type {
  ArtifactHandler,
  ArtifactOutput,
  ExecutionContext,
  HandlerResult,
  TraceDraft,
} from './types.js';
import { modelFamily, selectVariant } from './variants.js';

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

/** `description`, `approach`, `example`, `resource`: their text is injected into the model's context. */
export function textHandler<K extends 'description' | 'approach' | 'example' | 'resource'>(
  kind: K,
): ArtifactHandler<K> {
  return {
    kind,
    async execute(artifact) {
      const binary = artifact.metadata?.encoding === 'base64';
      const text = binary
        ? `[binary file ${artifact.name}, ${Buffer.from(artifact.content, 'base64').length} bytes]`
        : artifact.content;
      return succeed({ text, injected: true, raw_output: text });
    },
  };
}

/** Why a handler that needs a model cannot run without one. */
export const NO_LLM: AppErrorData = {
  code: 'LLM_NOT_CONFIGURED',
  message:
    'no model is configured: pass --provider and --model (and a key in the environment), or set one up in Settings',
};

/**
 * Send one rendered prompt to the model. A refusal (the provider's content filter) is an
 * outcome: LLM_REFUSED with what the model said, never an exception.
 */
export async function generateOnce(
  llm: Llm,
  rendered: string,
  signal: AbortSignal | undefined,
  partial: TraceDraft,
): Promise<HandlerResult> {
  partial.model_id = `${llm.provider}:${llm.model}`;
  const r = await settle(() => llm.generate({ messages: [{ role: 'user', content: rendered }], signal }));
  if (!r.ok) return { ok: false, error: r.error, partial };
  const { value } = r;
  const output: ArtifactOutput = {
    text: value.text,
    rendered_input: rendered,
    raw_output: value.text,
    input_tokens: value.usage.input_tokens,
    output_tokens: value.usage.output_tokens,
    model_id: `${value.provider}:${value.model}`,
    estimated_cost: value.estimated_cost,
  };
  if (value.finish_reason === 'content-filter') {
    return fail(
      'LLM_REFUSED',
      `the model declined to answer (${value.provider}:${value.model} stopped on its content filter)`,
      output,
    );
  }
  return succeed(output);
}

/** `prompt_template`: render with MiniJinja, send as a user message, return the reply. */
export function promptTemplateHandler(engine: PromptEngine): ArtifactHandler<'prompt_template'> {
  return {
    kind: 'prompt_template',
    async execute(artifact, ctx) {
      const rendered = await settle(() =>
        engine.renderStr(artifact.content, ctx.variables, { name: artifact.name }),
      );
      if (!rendered.ok) return { ok: false, error: rendered.error, partial: {} };
      const partial: TraceDraft = { rendered_input: rendered.value };
      const { llm, signal } = ctx.scope;
      if (!llm) return { ok: false, error: NO_LLM, partial };
      return generateOnce(llm, rendered.value, signal, partial);
    },
  };
}

/** A handler for a kind whose runtime is not wired in this process. */
export function unavailableHandler<K extends 'code_template' | 'dspy_module'>(
  kind: K,
  why: string,
): ArtifactHandler<K> {
  return {
    kind,
    async execute() {
      return fail('HANDLER_NOT_AVAILABLE', `${kind} artifacts cannot run here: ${why}`);
    },
  };
}

/** A DSPy run as the dspy_module handler needs it. */
export interface DspyRunRequest {
  template_id: string;
  state_blob: unknown;
  params: Record<string, unknown>;
  signature?: string;
}

/** What a DSPy run produced. */
export interface DspyRunOutput {
  output: unknown;
  input_tokens?: number;
  output_tokens?: number;
  model_id?: string | null;
}

/**
 * What the dspy_module handler needs from the sidecar client. SIDECAR_UNAVAILABLE in the error
 * means: run the fallback prompt template instead.
 */
export interface DspyRunner {
  execute(req: DspyRunRequest, ctx: ExecutionContext): Promise<Settled<DspyRunOutput>>;
}

/**
 * `dspy_module`: run in the sidecar; when the sidecar is unavailable, run the artifact's
 * `fallback_artifact` prompt template instead and say so in the output and trace.
 */
export function dspyModuleHandler(
  runner: DspyRunner | null,
  prompt: ArtifactHandler<'prompt_template'>,
): ArtifactHandler<'dspy_module'> {
  return {
    kind: 'dspy_module',
    async execute(artifact, ctx) {
      const content = parseJson<{ template_id: string; signature?: string }>(artifact.content);
      if (content === undefined)
        return fail('INVALID_INPUT', `dspy_module "${artifact.name}": content is not JSON`);
      let state: unknown = null;
      if (artifact.state_blob) {
        state = parseJson(Buffer.from(artifact.state_blob).toString('utf8'));
        if (state === undefined)
          return fail('INVALID_INPUT', `dspy_module "${artifact.name}": state_blob is not JSON`);
      }
      let reason = 'the DSPy sidecar is not available in this process';
      if (runner) {
        const partial: TraceDraft = {
          rendered_input: JSON.stringify({ template_id: content.template_id, params: ctx.variables }),
        };
        const r = await runner.execute(
          {
            template_id: content.template_id,
            signature: content.signature,
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
        if (r.error.code !== 'SIDECAR_UNAVAILABLE') return { ok: false, error: r.error, partial };
        reason = r.error.message;
      }
      const fallbackName = artifact.metadata?.fallback_artifact;
      const candidates = ctx.artifacts.filter((a) => a.kind === 'prompt_template' && a.name === fallbackName);
      const fallback = selectVariant(candidates, modelFamily(ctx.scope.llm?.provider, ctx.scope.llm?.model));
      if (!fallback) {
        return fail(
          'SIDECAR_UNAVAILABLE',
          `dspy_module "${artifact.name}" needs the Python sidecar (${reason}) and has no fallback prompt_template`,
        );
      }
      const note = `[fallback: ran prompt_template "${fallback.name}" because ${reason}]`;
      const r = await prompt.execute(fallback as SkillArtifact, ctx);
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
}

/** Parsed JSON, or undefined when the text is not JSON. */
function parseJson<T = unknown>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
