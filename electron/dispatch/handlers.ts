/**
 * The dispatcher's handlers for one kind at a time, over the kind modules of `electron/kinds/`
 * (tests and tools that wire their own runtimes use these; the skill runtime uses `kindHandlers`).
 */
import type { ArtifactKindName } from '../contract/kinds.js';
import { type DspyRunner, fail, KINDS, type KindRuntimes } from '../kinds/index.js';
import type { PromptEngine } from '../templates/index.js';
import type { ArtifactHandler, ExecutionContext } from './types.js';

export {
  type DspyRunner,
  type DspyRunOutput,
  type DspyRunRequest,
  fail,
  generateOnce,
  NO_LLM,
  type Settled,
  settle,
  succeed,
} from '../kinds/index.js';

/** Runtimes for handlers that need none of them (text kinds). */
const NO_RUNTIMES: KindRuntimes = {
  render: () => {
    throw new Error('no template engine here');
  },
  sandbox: null,
  sidecar: null,
  run: async () => fail('HANDLER_NOT_AVAILABLE', 'no other kind runs here'),
};

/** `description`, `approach`, `example`, `resource`: their text is injected into the model's context. */
export function textHandler<K extends 'description' | 'approach' | 'example' | 'resource'>(
  kind: K,
): ArtifactHandler<K> {
  return { kind, execute: (a, ctx) => KINDS[kind].execute(a, ctx, NO_RUNTIMES) };
}

/** `prompt_template`: render with MiniJinja, send as a user message, return the reply. */
export function promptTemplateHandler(engine: PromptEngine): ArtifactHandler<'prompt_template'> {
  const runtimes: KindRuntimes = {
    ...NO_RUNTIMES,
    render: (source, variables, name) => engine.renderStr(source, variables, { name }),
  };
  return { kind: 'prompt_template', execute: (a, ctx) => KINDS.prompt_template.execute(a, ctx, runtimes) };
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

/**
 * `dspy_module`: run in the sidecar; when the sidecar is unavailable, run the artifact's
 * `fallback_artifact` prompt template (with `prompt`) instead and say so in the output and trace.
 */
export function dspyModuleHandler(
  runner: DspyRunner | null,
  prompt: ArtifactHandler<'prompt_template'>,
): ArtifactHandler<'dspy_module'> {
  const runtimes: KindRuntimes = {
    ...NO_RUNTIMES,
    sidecar: runner,
    // The kind passes on the dispatcher's own context, which the prompt handler takes.
    run: (a, ctx) => prompt.execute(a, ctx as ExecutionContext),
  };
  return { kind: 'dspy_module', execute: (a, ctx) => KINDS.dspy_module.execute(a, ctx, runtimes) };
}

/** The kinds whose handlers a process may leave unwired. */
export type RuntimeKind = Extract<ArtifactKindName, 'code_template' | 'dspy_module'>;
