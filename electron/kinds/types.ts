import type { ArtifactKindName } from '../contract/kinds.js';
import type { ExecutionContext, HandlerResult } from '../dispatch/index.js';
import type { CodeTemplateResult } from '../sandbox/index.js';
import type { SkillArtifact } from '../store/index.js';
import type { Settled } from './result.js';

/** A side effect a skill's run may have (what the approval check asks about). */
export type KindEffect = 'network' | 'write';

/** An artifact as the kind's checks see it (a package's or a stored one). */
export interface KindArtifact {
  kind: string;
  name: string;
  content: string;
  metadata?: Record<string, unknown> | null;
  state_blob?: unknown;
}

/** A problem with one artifact, at a path under it (`['content']`, `['metadata', 'x']`). */
export interface KindIssue {
  path: Array<string | number>;
  message: string;
}

/** A DSPy run as the `dspy_module` executor asks the runtime for it. */
export interface DspyRunRequest {
  template_id: string;
  state_blob: unknown;
  params: Record<string, unknown>;
  signature?: string;
}

/** What one DSPy run produced. */
export interface DspyRunOutput {
  output: unknown;
  input_tokens?: number;
  output_tokens?: number;
  model_id?: string | null;
}

/**
 * The runtimes executors reach, supplied by the skill runtime that owns them (the sandbox pool,
 * the sidecar client, the template engine); a kind module imports none of them itself.
 */
export interface KindServices {
  /** Render a MiniJinja template; throws an AppError on a template error. */
  render(source: string, variables: Record<string, unknown>, name: string): string;
  /** Run a `code_template` in the sandbox; null when this process has no sandbox. */
  sandbox: ((artifact: SkillArtifact, ctx: ExecutionContext) => Promise<CodeTemplateResult>) | null;
  /** Run a DSPy program in the sidecar; null when this process has none (the fallback runs). */
  dspy: ((req: DspyRunRequest, ctx: ExecutionContext) => Promise<Settled<DspyRunOutput>>) | null;
  /** Run a `dspy_module`'s fallback prompt template (the runtime's prompt_template handler). */
  fallback(artifact: SkillArtifact, ctx: ExecutionContext): Promise<HandlerResult>;
}

/**
 * Everything the app knows about one artifact kind besides the contract's renderer-visible facts:
 * its checks, its effects for the approval check, its place in an Agent Skills folder, and how it
 * runs. One per kind, in `electron/kinds/<kind>/`, registered in `KINDS`.
 */
export interface KindModule<K extends ArtifactKindName> {
  readonly kind: K;
  /**
   * Checks of one artifact of this kind in a package, beyond the fields every artifact has;
   * `skill` is the whole package (for checks across artifacts, as a fallback's name).
   */
  validate(artifact: KindArtifact, skill: { artifacts: readonly KindArtifact[] }): KindIssue[];
  /**
   * What running the artifact may do beyond computing an answer, each with why (the approval
   * card says it). `hostEffects` classifies the sandbox's host functions.
   */
  effects(
    artifact: KindArtifact,
    hostEffects: Readonly<Record<string, readonly KindEffect[]>>,
  ): Array<{ effects: readonly KindEffect[]; why: string }>;
  /** Where an Agent Skills export writes the artifact as a file (null: it is not a file). */
  agentSkillsPath(artifact: KindArtifact, slug: (name: string) => string): string | null;
  /** Run (or inject) the artifact. Outcomes are data; only a bug throws. */
  execute(artifact: SkillArtifact, ctx: ExecutionContext, services: KindServices): Promise<HandlerResult>;
}
