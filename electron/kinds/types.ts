import type { AppErrorData } from '../contract/errors.js';
import type { ArtifactKindName } from '../contract/kinds.js';
import type { Llm } from '../llm/index.js';
import type { SandboxPool, SandboxWorkspace } from '../sandbox/index.js';
import type { SkillArtifact } from '../store/index.js';
import type { Settled } from './result.js';

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

/**
 * What an executor may read of the execution it runs in: the part of the call's scope it needs,
 * the skill's artifacts and the template variables (the dispatcher's `KindContext` is one).
 */
export interface KindContext {
  scope: {
    readonly session_id: string;
    readonly llm: Llm | null;
    readonly signal: AbortSignal | undefined;
    /** What the run is doing, in words, for the chat's activity (absent outside a chat). */
    readonly progress?: (message: string) => void;
  };
  /** Every artifact of the skill (for fallbacks and variants). */
  artifacts: SkillArtifact[];
  /** Template variables: the model's arguments merged with harness keys, the harness winning. */
  variables: Record<string, unknown>;
  /** The skill that runs (an LLM skill's secrets and network grants are the skill's). */
  skill?: { readonly id: string; readonly name: string };
}

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
 * The runtimes a process has, one object handed to every kind: each kind builds what it runs from
 * them inside its own folder (the Python sandbox's host functions, a component's run, an LLM
 * skill's tool scripts), so a new kind adds no member here and no wiring in `dispatch/`.
 */
export interface KindRuntimes {
  /** The template engine: render a MiniJinja template; throws an AppError on a template error. */
  render(source: string, variables: Record<string, unknown>, name: string): string;
  /** The Python sandbox (Pyodide processes and the component worker); null when this process has none. */
  sandbox: SandboxRuntime | null;
  /** The DSPy sidecar; null when this process has none (a `dspy_module` then runs its fallback). */
  sidecar: DspyRunner | null;
  /** Run another artifact of the skill by its own kind (a `dspy_module`'s fallback template). */
  run(artifact: SkillArtifact, ctx: KindContext): Promise<HandlerResult>;
  /** What an LLM skill needs of the app beyond the run's model (other providers, secrets, grants). */
  llmSkill?: LlmSkillHost;
}

/** The sandbox as kinds reach it: the pool (started on first use) and what its host functions read. */
export interface SandboxRuntime {
  pool(): SandboxPool;
  /** Where compiled WebAssembly components are cached. */
  componentDir: string;
  /** Workspace pages for the host functions (`get_page`…). */
  workspace?: SandboxWorkspace;
}

/**
 * The DSPy sidecar as the `dspy_module` kind asks it. SIDECAR_UNAVAILABLE in the error means: run
 * the fallback prompt template instead.
 */
export interface DspyRunner {
  execute(req: DspyRunRequest, ctx: KindContext): Promise<Settled<DspyRunOutput>>;
}

/** One tool call of an LLM skill, as a Python script of the skill run in the sandbox. */
export interface ToolScriptRequest {
  /** The skill's `.py` file, relative to the skill folder (the script's working directory). */
  script: string;
  /** Arguments after the script (built by fixed rules from the model's arguments). */
  argv: string[];
  /** Exactly the tool_env variables the user filled in for this skill; nothing else. */
  env: Record<string, string>;
  timeout_ms: number;
  /** Hosts the user granted this skill; `http_request` reaches only these. */
  granted_hosts: string[];
  signal: AbortSignal | undefined;
}

/** What one tool script did. */
export interface ToolScriptResult {
  exit_code: number;
  stdout: string;
  stderr: string;
  /** Every request it made through `http_request` (granted or refused). */
  http: Array<{ method: string; url: string; status: number | null; bytes: number; error?: string }>;
}

/** The app's side of an LLM skill: models of other providers, the skill's secrets and grants. */
export interface LlmSkillHost {
  /**
   * A model of `provider` as the user set it up (Settings' key and base URL, or the environment's
   * key on the command line). Throws an AppError when the provider cannot be used.
   */
  modelFor(provider: import('../llm/index.js').ProviderId, model: string | undefined): Llm;
  /** The skill's secrets among `names` (those the user has not entered are absent). */
  secrets(skill: string, names: readonly string[]): Record<string, string>;
  /** Hosts the user granted the skill. */
  grants(skill: string): string[];
}

/**
 * Everything the app knows about one artifact kind besides the contract's renderer-visible facts:
 * its checks, its effects for the approval check, its place in an Agent Skills folder, and how it
 * runs. One per kind, in `electron/kinds/<kind>/`, registered in `KINDS`.
 */
export interface KindModule<K extends ArtifactKindName> {
  readonly kind: K;
  /**
   * What running it needs started: the Python sandbox, the DSPy sidecar, only the model, or
   * nothing. Warm-up policies read it (the sandbox starts ahead for those who run its kinds).
   */
  readonly runs_in: 'sandbox' | 'sidecar' | 'model' | 'nothing';
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
  /** How an Agent Skills export writes it (its file, and whether it is SKILL.md's body). */
  readonly agentSkills: AgentSkillsRule;
  /**
   * What a source review lists about the artifact before install: whether it calls the model, the
   * script it is, the page-reading host functions it calls, its component imports, the packages it
   * declares; and how the scanner reads it (as code, or not at all when binary). `hostEffects` as
   * for {@link effects}.
   */
  review(artifact: KindArtifact, hostEffects: Readonly<Record<string, readonly KindEffect[]>>): KindReview;
  /**
   * Artifacts of the same skill this one keeps out of a run's pipeline: a `dspy_module`'s fallback
   * prompt template runs only as its fallback. Absent: none.
   */
  hides?(artifact: KindArtifact): Array<{ kind: ArtifactKindName; name: string }>;
  /**
   * When a run holds an artifact of this kind, it alone runs: an LLM skill's model calls the
   * skill's scripts as its tools, never one after another as a pipeline. Absent: false.
   */
  readonly takes_over?: boolean;
  /**
   * State a run of this kind compiles and keeps with the artifact (`state_blob`: a DSPy program's
   * optimized demos and instructions): what is wrong with a given one (base64 text), or null.
   * Absent: the kind keeps no state, and an artifact of it carrying one is refused.
   */
  readonly state?: { problem(blob: string): string | null };
  /**
   * The access an artifact declares for its runs, which the user grants apart (an LLM skill's
   * `network` hosts and `tool_env` secrets): the skill page's grants and the import's notices
   * read it. Absent: the kind declares none.
   */
  declares?(artifact: KindArtifact): { network: string[]; tool_env: string[] };
  /** Run (or inject) the artifact. Outcomes are data; only a bug throws. */
  execute(artifact: SkillArtifact, ctx: KindContext, runtimes: KindRuntimes): Promise<HandlerResult>;
}

/** Where an Agent Skills export puts an artifact of one kind. */
export interface AgentSkillsRule {
  /**
   * The file the artifact is in an Agent Skills folder, one an import reads back as this kind
   * without the manifest (`scripts/x.py`, a bundled file's own path); null: it has no such place.
   */
  path(artifact: KindArtifact, slug: (name: string) => string): string | null;
  /**
   * Otherwise, the file it is written to, which the folder's manifest maps back (`base` is its
   * slugged name with the model variant). A template keeps a template's extension (`.py.j2`):
   * written as `.py` it would be neither valid Python nor a script.
   */
  file(artifact: KindArtifact, base: string): string;
  /**
   * How strongly it claims SKILL.md's body: the lowest rank wins, the first artifact among equals;
   * null or absent: it never does.
   */
  body?(artifact: KindArtifact): number | null;
  /**
   * SKILL.md frontmatter keys of its own when it is the body (an LLM skill's settings); present
   * means the header is always written from the skill, never an imported author's header.
   */
  frontmatter?(artifact: KindArtifact): Record<string, unknown>;
  /**
   * An import of a folder without SkillDesk's manifest: whether SKILL.md is this kind, read from
   * its frontmatter (an LLM skill says `mode: llm`), as the artifact's content and metadata; null
   * when it is not. Throws (an AppError naming the file) for a frontmatter that asks for this kind
   * wrongly.
   */
  fromSkillMd?(
    frontmatter: Record<string, unknown>,
    body: string,
    file: string,
  ): { content: string; metadata: Record<string, unknown> } | null;
  /**
   * Bundled files such an import reads as this kind (by their path in the folder), and whether
   * their bytes are kept as base64. Absent: none (a bundled file is a plain file).
   */
  reads?: { path: RegExp; binary: boolean };
}

/** What a source review lists of one artifact; see {@link KindModule.review}. Absent fields: none. */
export interface KindReview {
  /** It asks the model (a prompt, a program, Python calling `llm_query`). */
  calls_model?: boolean;
  /** It is a script that runs, listed under this name (a bundled file's path, a code artifact's name). */
  script?: string;
  /** Page-reading host functions it calls. */
  pages?: string[];
  /** Host functions a component imports, by their WIT name. */
  imports?: string[];
  /** Python packages it declares (a requirements file). */
  packages?: string[];
  /** The scanner reads it as code (run) rather than prose (read by the model). */
  code?: boolean;
  /** Binary: neither scanned for patterns nor searched for hosts. */
  binary?: boolean;
}
