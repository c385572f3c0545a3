import type { AppErrorData } from '../contract/errors.js';
import type { ArtifactKindName as ArtifactKind } from '../contract/skills.js';
import type { Scope, SkillArtifact } from '../store/index.js';
import type { AssertionResult } from './assertions.js';
import type { RunScope } from './run-scope.js';

/** The skill an execution belongs to. */
export interface SkillRef {
  id: string;
  name: string;
  scope: Scope;
  version: string;
}

/** Everything a handler may use for one artifact execution. */
export interface ExecutionContext {
  /** The call this execution belongs to (session, model, harness keys, signal), unchanged. */
  scope: RunScope;
  skill: SkillRef;
  /** Every artifact of the skill (for fallbacks and variants); loaded lazily by the caller. */
  artifacts: SkillArtifact[];
  /** Template variables: the model's arguments merged with harness keys, the harness winning. */
  variables: Record<string, unknown>;
}

/** What a handler produced. */
export interface ArtifactOutput {
  /** Text for the user or the model (LLM reply, injected instructions …), or null. */
  text: string | null;
  /** Structured output (what `submit()` received, a DSPy prediction), when there is one. */
  data?: unknown;
  /** True for kinds whose text is context to inject, not something that ran. */
  injected?: boolean;
  rendered_input?: string | null;
  raw_output?: string | null;
  input_tokens?: number | null;
  output_tokens?: number | null;
  model_id?: string | null;
  estimated_cost?: number | null;
  stdout?: string;
  stderr?: string;
  /** Set when a dspy_module ran its fallback prompt_template instead. */
  fallback?: { artifact: string; reason: string };
}

/** Trace fields a handler fills in as it goes, so a failure still records what was known. */
export type TraceDraft = Partial<ArtifactOutput>;

/**
 * What a handler returns: its output, or the error with whatever it learnt before failing (the
 * rendered input, tokens, stdout …) so the trace still records it. A Python exception, a template
 * error, a model refusal or an unavailable runtime is an outcome, returned here; only a bug throws.
 */
export type HandlerResult =
  | { ok: true; output: ArtifactOutput }
  | { ok: false; error: AppErrorData; partial: TraceDraft };

/** One handler per artifact kind (the design's ArtifactHandler). */
export interface ArtifactHandler<K extends ArtifactKind = ArtifactKind> {
  readonly kind: K;
  execute(artifact: SkillArtifact, ctx: ExecutionContext): Promise<HandlerResult>;
}

/** Every kind's handler, keyed by kind: leaving one out fails `tsc`. */
export type ArtifactHandlers = { readonly [K in ArtifactKind]: ArtifactHandler<K> };

/** The outcome of one artifact execution: always data, never an exception. */
export interface DispatchResult {
  trace_id: string;
  artifact: { id: string; name: string; kind: ArtifactKind; model_variant: string | null };
  ok: boolean;
  output: ArtifactOutput | null;
  error: AppErrorData | null;
  assertions: AssertionResult[];
  /** A hard assertion failed: the skill stops here. */
  aborted: boolean;
  duration_ms: number;
}
