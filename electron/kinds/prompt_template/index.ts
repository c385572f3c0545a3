import type { Llm } from '../../llm/index.js';
import { fail, NO_LLM, settle, succeed } from '../result.js';
import type { ArtifactOutput, HandlerResult, KindModule, TraceDraft } from '../types.js';

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

/** `prompt_template`: render with MiniJinja, send as a user message to the run's model, return the reply. */
export const promptTemplateKind: KindModule<'prompt_template'> = {
  kind: 'prompt_template',
  runs_in: 'model',
  validate: () => [],
  effects: () => [],
  agentSkills: { path: () => null, file: (_a, base) => `templates/${base}.md.j2` },
  review: () => ({ calls_model: true }),
  async execute(artifact, ctx, runtimes) {
    const rendered = await settle(() => runtimes.render(artifact.content, ctx.variables, artifact.name));
    if (!rendered.ok) return { ok: false, error: rendered.error, partial: {} };
    const partial: TraceDraft = { rendered_input: rendered.value };
    const { llm, signal } = ctx.scope;
    if (!llm) return { ok: false, error: NO_LLM, partial };
    return generateOnce(llm, rendered.value, signal, partial);
  },
};
