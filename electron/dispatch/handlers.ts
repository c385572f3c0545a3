import { AppError, isAppError } from '../contract/errors.js';
import type { SkillArtifact } from '../store/skill-repository.js';
import type { PromptEngine } from './prompt-engine.js';
import type { ArtifactHandler, ArtifactOutput, ExecutionContext } from './types.js';
import { modelFamily, selectVariant } from './variants.js';

/** `description`, `approach`, `example`, `resource`: their text is injected into the model's context. */
export function textHandler(kind: 'description' | 'approach' | 'example' | 'resource'): ArtifactHandler {
  return {
    kind,
    async execute(artifact) {
      const binary = artifact.metadata?.encoding === 'base64';
      const text = binary
        ? `[binary file ${artifact.name}, ${Buffer.from(artifact.content, 'base64').length} bytes]`
        : artifact.content;
      return { text, injected: true, raw_output: text };
    },
  };
}

/** Fails with a clear message when no model is configured. */
export function requireLlm(ctx: ExecutionContext) {
  if (!ctx.llm) {
    throw new AppError(
      'LLM_NOT_CONFIGURED',
      'no model is configured: pass --provider and --model (and a key in the environment), or set one up in Settings',
    );
  }
  return ctx.llm;
}

/** `prompt_template`: render with MiniJinja, send as a user message, return the reply. */
export function promptTemplateHandler(engine: PromptEngine): ArtifactHandler {
  return {
    kind: 'prompt_template',
    async execute(artifact, ctx, draft) {
      const rendered = engine.renderStr(artifact.content, ctx.variables, { name: artifact.name });
      draft.rendered_input = rendered;
      const llm = requireLlm(ctx);
      draft.model_id = `${llm.provider}:${llm.model}`;
      const r = await llm.generate({ messages: [{ role: 'user', content: rendered }], signal: ctx.signal });
      return {
        text: r.text,
        rendered_input: rendered,
        raw_output: r.text,
        input_tokens: r.usage.input_tokens,
        output_tokens: r.usage.output_tokens,
        model_id: `${r.provider}:${r.model}`,
        estimated_cost: r.estimated_cost,
      };
    },
  };
}

/** A handler for a kind whose runtime is not wired in this process. */
export function unavailableHandler(kind: 'code_template' | 'dspy_module', why: string): ArtifactHandler {
  return {
    kind,
    async execute() {
      throw new AppError('HANDLER_NOT_AVAILABLE', `${kind} artifacts cannot run here: ${why}`);
    },
  };
}

/** What the dspy_module handler needs from the sidecar client. */
export interface DspyRunner {
  execute(
    req: { template_id: string; state_blob: unknown; params: Record<string, unknown>; signature?: string },
    ctx: ExecutionContext,
  ): Promise<{ output: unknown; input_tokens?: number; output_tokens?: number; model_id?: string | null }>;
}

/**
 * `dspy_module`: run in the sidecar; when the sidecar is unavailable, run the artifact's
 * `fallback_artifact` prompt template instead and say so in the output and trace.
 */
export function dspyModuleHandler(runner: DspyRunner | null, prompt: ArtifactHandler): ArtifactHandler {
  return {
    kind: 'dspy_module',
    async execute(artifact, ctx, draft) {
      let content: { template_id: string; signature?: string } & Record<string, unknown>;
      try {
        content = JSON.parse(artifact.content);
      } catch {
        throw new AppError('INVALID_INPUT', `dspy_module "${artifact.name}": content is not JSON`);
      }
      let state: unknown = null;
      if (artifact.state_blob) {
        try {
          state = JSON.parse(Buffer.from(artifact.state_blob).toString('utf8'));
        } catch {
          throw new AppError('INVALID_INPUT', `dspy_module "${artifact.name}": state_blob is not JSON`);
        }
      }
      let reason: string;
      if (runner) {
        try {
          draft.rendered_input = JSON.stringify({ template_id: content.template_id, params: ctx.variables });
          const r = await runner.execute(
            {
              template_id: content.template_id,
              signature: content.signature,
              state_blob: state,
              params: ctx.variables,
            },
            ctx,
          );
          const text = typeof r.output === 'string' ? r.output : JSON.stringify(r.output);
          return {
            text,
            data: r.output,
            rendered_input: draft.rendered_input,
            raw_output: text,
            input_tokens: r.input_tokens ?? null,
            output_tokens: r.output_tokens ?? null,
            model_id: r.model_id ?? null,
          };
        } catch (e) {
          if (!isAppError(e, 'SIDECAR_UNAVAILABLE')) throw e;
          reason = e.message;
        }
      } else {
        reason = 'the DSPy sidecar is not available in this process';
      }
      const fallbackName = artifact.metadata?.fallback_artifact;
      const candidates = ctx.artifacts.filter((a) => a.kind === 'prompt_template' && a.name === fallbackName);
      const fallback = selectVariant(candidates, modelFamily(ctx.llm?.provider, ctx.llm?.model));
      if (!fallback) {
        throw new AppError(
          'SIDECAR_UNAVAILABLE',
          `dspy_module "${artifact.name}" needs the Python sidecar (${reason}) and has no fallback prompt_template`,
        );
      }
      const out: ArtifactOutput = await prompt.execute(fallback as SkillArtifact, ctx, draft);
      const note = `[fallback: ran prompt_template "${fallback.name}" because ${reason}]`;
      return {
        ...out,
        rendered_input: `${note}\n${out.rendered_input ?? ''}`,
        fallback: { artifact: fallback.name, reason },
      };
    },
  };
}
