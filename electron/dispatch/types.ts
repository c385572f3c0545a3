import type { AppErrorData } from '../contract/errors.js';
import type { ArtifactKindName as ArtifactKind } from '../contract/skills.js';
import type { AssertionResult } from '../evals/index.js';
import type { ArtifactOutput, HandlerResult, KindContext } from '../kinds/index.js';
import type { Scope, SkillArtifact } from '../store/index.js';
import type { RunScope } from './run-scope.js';

/** The skill an execution belongs to. */
export interface SkillRef {
  id: string;
  name: string;
  scope: Scope;
  version: string;
}

export type { ArtifactOutput, HandlerResult, TraceDraft } from '../kinds/index.js';

/** Everything a handler may use for one artifact execution. */
export interface ExecutionContext extends KindContext {
  /** The call this execution belongs to (session, model, harness keys, signal), unchanged. */
  scope: RunScope;
  skill: SkillRef;
  /** Every artifact of the skill (for fallbacks and variants); loaded lazily by the caller. */
  artifacts: SkillArtifact[];
  /** Template variables: the model's arguments merged with harness keys, the harness winning. */
  variables: Record<string, unknown>;
}

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
