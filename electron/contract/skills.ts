/**
 * The `skills/*` slice of the API contract: request schemas (checked once, at the transport edge)
 * and the JSON shapes of the replies. Wire types only: no Buffers, no class instances.
 * The unions here (artifact kinds, scopes, match fields) are defined once; the core imports them.
 */
import { z } from 'zod';
import type { AppErrorData } from './errors.js';
import type { ArtifactKindName } from './kinds.js';

/** Where a skill lives. */
export const SCOPES = ['account', 'workspace'] as const;
/** Zod schema of a scope. */
export const ScopeSchema = z.enum(SCOPES);
/** Where a skill lives: the account store or the open workspace's store. */
export type SkillScope = z.infer<typeof ScopeSchema>;

export { ARTIFACT_KINDS, type ArtifactKindName } from './kinds.js';

/** Where a skill came from. */
export const SKILL_SOURCES = ['system', 'community', 'user'] as const;
export type SkillSource = (typeof SKILL_SOURCES)[number];

/** The indexed fields of a skill a message can match (phase-1 activation). */
export const MATCH_FIELDS = [
  'exact_trigger',
  'name',
  'description',
  'tags',
  'intent_patterns',
  'trigger_phrases',
  // The start of the skill's body and its file names (a low-weight field), so a match always says why.
  'instructions',
  // No field shares a word with the message; the semantic recall stage found the skill.
  'meaning',
] as const;
/** Which indexed field of a skill a message matched (`meaning`: found by embedding alone). */
export type MatchFieldName = (typeof MATCH_FIELDS)[number];

/** Largest package text the API accepts (the import size cap applies on top). */
export const MAX_PACKAGE_CHARS = 16 * 1024 * 1024;

const name = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

/** `skills/list`: the merged catalog, optionally of one scope. */
export const ListSkillsReqSchema = z.object({ scope: ScopeSchema.optional() }).strict();
/** Request of `skills/list`. */
export type ListSkillsReq = z.infer<typeof ListSkillsReqSchema>;

/** One catalog row as the UI lists it. */
export interface SkillListItem {
  id: string;
  name: string;
  scope: SkillScope;
  version: string;
  source: SkillSource;
  description: string;
  tags: string[];
  author: string | null;
  artifact_kinds: ArtifactKindName[];
  trigger_phrases: string[];
  intent_patterns: string[];
  always_on: boolean;
  updated_at: string;
  /**
   * How the skill takes part here (the workspace's switch wins): `on`; `name-only` (listed and
   * started by name, never matched into a prompt unasked); `off` (hidden from the model,
   * matching, the MCP server and the `/` menu).
   */
  switch: SkillSwitchState;
  /** True for an account skill hidden by a workspace skill of the same name. */
  overridden: boolean;
  overridden_by?: 'workspace';
  /** Set on a workspace skill that hides an account skill of the same name. */
  overrides?: 'account';
  /** A skill a feature of the app uses (the Composer's, the eval judge's): kept out of the chat's lists. */
  internal?: true;
  /** Claude Code's `disable-model-invocation: true`: never matched for a message, started by name only. */
  model_invocable?: false;
  /** Claude Code's `user-invocable: false`: left out of the chat's `/` menu. */
  user_invocable?: false;
  /** Claude Code's `argument-hint` ("[file] [format]"): shown next to the skill in the `/` menu. */
  argument_hint?: string;
}
/** A skill's switch. */
export type SkillSwitchState = 'on' | 'name-only' | 'off';

/** `skills/set-switch`: switch a skill on, to name-only or off in one store (default: the workspace's when open). */
export const SetSkillSwitchReqSchema = z
  .object({
    name,
    state: z.enum(['on', 'name-only', 'off']),
    /** The store that keeps the switch; a workspace may switch an account skill. */
    scope: ScopeSchema.optional(),
  })
  .strict();
/** Request of `skills/set-switch`. */
export type SetSkillSwitchReq = z.infer<typeof SetSkillSwitchReqSchema>;
/** Reply of `skills/set-switch`: the switch set, and the skill's switch as it now applies. */
export interface SetSkillSwitchRes {
  name: string;
  scope: SkillScope;
  state: SkillSwitchState;
  effective: SkillSwitchState;
}

/** Reply of `skills/list`: workspace skills first within a name, overridden ones included. */
export interface ListSkillsRes {
  skills: SkillListItem[];
}

/** `skills/get`: one skill with its artifacts; without `scope` the one the name resolves to. */
export const GetSkillReqSchema = z.object({ name, scope: ScopeSchema.optional() }).strict();
/** Request of `skills/get`. */
export type GetSkillReq = z.infer<typeof GetSkillReqSchema>;

/** One artifact as the UI shows it. A DSPy state blob is reported by size only. */
export interface SkillArtifactView {
  id: string;
  kind: ArtifactKindName;
  name: string;
  ordinal: number;
  content: string;
  model_variant: string | null;
  metadata: Record<string, unknown> | null;
  state_blob_bytes: number | null;
}
/** A skill with every field and its artifacts, in ordinal order. */
export interface SkillDetail extends SkillListItem {
  when: string | null;
  modalities: string[];
  requires: string[];
  license: string | null;
  compatibility: string | null;
  metadata: Record<string, string> | null;
  allowed_tools: string | null;
  created_at: string;
  artifacts: SkillArtifactView[];
}
/** Reply of `skills/get`. */
export interface GetSkillRes {
  skill: SkillDetail;
}

/** `skills/match`: phase-1 activation for a message. */
export const MatchSkillsReqSchema = z
  .object({
    message: z.string().max(100_000, 'must be at most 100000 characters'),
    limit: z.number().int().min(1).max(10_000).optional(),
    /** Also say why: the query terms, each candidate's matched stems per field. */
    explain: z.boolean().optional(),
    /** Also say why this skill was or was not matched (implies `explain`). */
    explain_skill: name.optional(),
    /** The scope of `explain_skill` (to ask about an account skill the workspace overrides). */
    explain_scope: ScopeSchema.optional(),
  })
  .strict();
/** Request of `skills/match` (`limit` defaults to 5). */
export type MatchSkillsReq = z.infer<typeof MatchSkillsReqSchema>;
/** One ranked skill: `score` in [0, 1) from BM25 fused with meaning, [1, 2) for a verbatim trigger phrase. */
export interface SkillMatchView {
  name: string;
  scope: SkillScope;
  score: number;
  matched_on: MatchFieldName[];
}
/**
 * Reply of `skills/match`. `took_ms`: the ranking alone; `index_ms`: bringing the in-memory
 * index up to date first (building it on a process's first match, else near zero).
 */
export interface MatchSkillsRes {
  matches: SkillMatchView[];
  /** Everything the call waited for: index upkeep, the message's vector, the ranking. */
  took_ms: number;
  /** Of `took_ms`, bringing the index up to date. */
  index_ms?: number;
  /** Whether e5 ranked these matches and how many skills still wait for a vector. */
  e5?: E5StatusView;
  explain?: MatchExplanationView;
}

/** `skills/embed`: compute the e5 vectors skills lack (after an import), reporting progress. */
export const EmbedSkillsReqSchema = z
  .object({
    /** Names the run for the `skills/embed-progressed` events. */
    run_id: z.string().min(1).max(200).optional(),
  })
  .strict();
/** Request of `skills/embed`. */
export type EmbedSkillsReq = z.infer<typeof EmbedSkillsReqSchema>;
/** Reply of `skills/embed`. */
export interface EmbedSkillsRes {
  /** The e5 model, or null when it is not installed (then nothing was embedded). */
  model: string | null;
  reason?: string;
  /** Skills with a vector now, of all skills. */
  embedded: number;
  total: number;
  /** Vectors this call computed. */
  newly_embedded: number;
  took_ms: number;
  /** The second model (all-MiniLM-L6-v2), embedded after e5 in the same call. */
  second?: { model: string | null; reason?: string; embedded: number; total: number; newly_embedded: number };
}

/**
 * `skills/semantic-status`: whether matching by meaning (the e5 model) is in use, how many skills
 * have their vector, and whether vectors are being computed now (Settings shows it).
 */
export const SemanticStatusReqSchema = z.object({}).strict();
/** Request of `skills/semantic-status`. */
export type SemanticStatusReq = z.infer<typeof SemanticStatusReqSchema>;
/** Reply of `skills/semantic-status`. */
export interface SemanticStatusRes extends E5StatusView {
  /** Vectors are being computed now (after an import, in the background, or asked for). */
  embedding: boolean;
}

/**
 * `skills/warm-match`: build phase 1's in-memory index now, in slices that leave the process free
 * for other requests, so the first match (a server's first `search_skills`) costs what later ones
 * do. A match asked meanwhile builds what is missing at once, as without it.
 */
export const WarmMatchReqSchema = z.object({}).strict();
/** Request of `skills/warm-match`. */
export type WarmMatchReq = z.infer<typeof WarmMatchReqSchema>;
/** Reply of `skills/warm-match`: how long the warm-up took, slices and waits included. */
export interface WarmMatchRes {
  took_ms: number;
}

/** A field of a skill phase 1 searches (`instructions`: the start of its body and file names). */
export type IndexFieldName =
  | 'name'
  | 'description'
  | 'tags'
  | 'intent_patterns'
  | 'trigger_phrases'
  | 'instructions';
/** One term phase 1 looked up: a stem of the message, a synonym of one, or a spelling fix. */
export interface QueryTermView {
  term: string;
  source: 'message' | 'synonym' | 'spelling';
  /** The message's word it stands for. */
  from: string;
  /** Multiplier on its BM25 contribution. */
  weight: number;
  /** Skills containing it. */
  df: number;
}
/** Why one match scored as it did. */
export interface MatchCandidateView {
  name: string;
  scope: SkillScope;
  rank: number;
  score: number;
  bm25: number;
  /** Cosine of the message's and the skill's static embeddings; null without one. */
  semantic: number | null;
  /** Catalog-centred cosine of the e5 vectors; absent when the model is not in use, null when the skill has none yet. */
  dense?: number | null;
  /** The same by the second model (all-MiniLM-L6-v2); absent when it is not in use. */
  dense_second?: number | null;
  exact_trigger: string | null;
  fields: Partial<Record<IndexFieldName, string[]>>;
}
/** Why a named skill was or was not matched. */
export interface SkillVerdictView {
  name: string;
  scope: SkillScope | null;
  rank: number | null;
  score: number | null;
  reason: 'matched' | 'lower_score' | 'no_term_overlap' | 'overridden' | 'switched_off' | 'not_found';
  above: number | null;
}
/** The reasons behind a `skills/match` reply. */
export interface MatchExplanationView {
  query_terms: QueryTermView[];
  candidates: MatchCandidateView[];
  skill?: SkillVerdictView;
  /** The sentence-embedding model: whether it ranked this match, and if not why. */
  e5?: E5StatusView;
}
/** Whether phase 1 fused the e5 model's cosine, and how much of the catalog it has embedded. */
export interface E5StatusView {
  used: boolean;
  /** Why not, when not used (not installed, turned off, no skill embedded yet, …). */
  reason?: string;
  model?: string;
  embedded: number;
  total: number;
  /** The second model, fused beside e5 (all-MiniLM-L6-v2): the same account of it. */
  second?: Omit<E5StatusView, 'second'>;
}

/**
 * `skills/import-package`: one JSON package, as text (a file's content) or an object. Package
 * problems come back as `INVALID_INPUT` whose `details.issues` lists `{path, message}` with the
 * JSON path (`artifacts[0].kind`).
 */
export const ImportPackageReqSchema = z
  .object({
    package: z.union([z.string().max(MAX_PACKAGE_CHARS, 'is too large'), z.record(z.string(), z.unknown())]),
    /** Shown in messages, e.g. the dropped file's name. */
    file_name: z.string().max(500).optional(),
    /** Default: workspace when a workspace is open, else account. */
    scope: ScopeSchema.optional(),
    force: z.boolean().optional(),
    /** Save even when the change lowers the skill's phase-1 trigger recall or precision. */
    accept_trigger_regression: z.boolean().optional(),
  })
  .strict();
/** Request of `skills/import-package`. */
export type ImportPackageReq = z.infer<typeof ImportPackageReqSchema>;
/** What an import did to one skill. */
export interface ImportOutcomeView {
  name: string;
  scope: SkillScope;
  action: 'created' | 'updated' | 'unchanged';
  version: string;
  previous_version?: string;
  artifacts: number;
  file: string;
  /** SHA-256 of the content installed after the import (ids, versions and etags left out). */
  content_hash: string;
  previous_content_hash?: string;
  /** The content changed and the package's version did not: the installed patch was raised. */
  version_bumped?: boolean;
  /** What an update changes: the skill's fields, and the artifacts added, removed or changed. */
  changes?: {
    fields: Array<{ field: string; from: unknown; to: unknown }>;
    artifacts: Array<{
      name: string;
      kind: string;
      model_variant: string | null;
      change: 'added' | 'removed' | 'changed' | 'unchanged';
      patch: string;
      metadata_changed: string[];
    }>;
  };
}
/** Reply of `skills/import-package`; `dry_run` when nothing was written. */
export interface ImportPackageRes {
  imported: ImportOutcomeView[];
  dry_run?: boolean;
  /**
   * Updates that lower a skill's phase-1 trigger recall or precision. Without
   * `accept_trigger_regression` nothing was imported (`imported` is empty); a dry run reports them.
   */
  trigger_regression?: TriggerRegressionView[];
}

/** `skills/export-package`: the canonical JSON package of a skill. */
export const ExportPackageReqSchema = z.object({ name, scope: ScopeSchema.optional() }).strict();
/** Request of `skills/export-package`. */
export type ExportPackageReq = z.infer<typeof ExportPackageReqSchema>;
/** Reply of `skills/export-package`: the text to save and a suggested file name. */
export interface ExportPackageRes {
  name: string;
  scope: SkillScope;
  file_name: string;
  text: string;
}

/** `skills/delete`: remove a skill and its artifacts from one store. */
export const DeleteSkillReqSchema = z.object({ name, scope: ScopeSchema }).strict();
/** Request of `skills/delete`. */
export type DeleteSkillReq = z.infer<typeof DeleteSkillReqSchema>;
/** Reply of `skills/delete`; `revealed` is the account skill that is active again, if any. */
export interface DeleteSkillRes {
  deleted: { name: string; scope: SkillScope; version: string };
  revealed?: { name: string; scope: 'account'; version: string };
}

/** How a template treats an undefined variable: `semi_strict` fails only when one is printed. */
export const UndefinedModeSchema = z.enum(['strict', 'semi_strict', 'lenient']);
/** How a template treats an undefined variable. */
export type UndefinedMode = z.infer<typeof UndefinedModeSchema>;

/** Largest template text the API renders or checks. */
export const MAX_TEMPLATE_CHARS = 4 * 1024 * 1024;
const templateSource = z.string().max(MAX_TEMPLATE_CHARS, 'is too large');
const variables = z.record(z.string(), z.unknown());
const fileName = z.string().max(1000);

/** `skills/render`: render a MiniJinja template with variables. Template errors exit as TEMPLATE_*. */
export const RenderTemplateReqSchema = z
  .object({
    source: templateSource,
    /** Shown in error messages (e.g. the template's file). */
    name: fileName.optional(),
    context: variables.optional(),
    undefined: UndefinedModeSchema.optional(),
    /** Largest rendered output in UTF-8 bytes (default 1 MiB); more is TOO_LARGE. */
    max_output_bytes: z
      .number()
      .int()
      .positive()
      .max(64 * 1024 * 1024)
      .optional(),
  })
  .strict();
/** Request of `skills/render`. */
export type RenderTemplateReq = z.infer<typeof RenderTemplateReqSchema>;
/** Reply of `skills/render`. */
export interface RenderTemplateRes {
  rendered: string;
}

/** `skills/validate`: check a template's syntax or a package's shape without storing anything. */
export const ValidateReqSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('template'), source: templateSource, name: fileName.optional() }).strict(),
  z
    .object({
      kind: z.literal('package'),
      package: z.union([
        z.string().max(MAX_PACKAGE_CHARS, 'is too large'),
        z.record(z.string(), z.unknown()),
      ]),
      file_name: fileName.optional(),
    })
    .strict(),
]);
/** Request of `skills/validate`. */
export type ValidateReq = z.infer<typeof ValidateReqSchema>;
/** One problem found by validation, at a JSON path (packages) or a line and column (templates). */
export interface ValidationIssue {
  path: string;
  message: string;
}
/** Reply of `skills/validate`: problems are data, not errors. */
export type ValidateRes =
  /** `variables`: for a template, the variables it reads (see `PromptEngine.variables`). */
  /** `warnings`: for a package, problems that do not block a save (a JSON Schema that does not compile). */
  | { ok: true; variables?: string[]; warnings?: ValidationIssue[] }
  | { ok: false; message: string; line?: number; column?: number; issues: ValidationIssue[] };

/** `skills/import-packages`: several validated packages at once, all or nothing. */
export const ImportPackagesReqSchema = z
  .object({
    packages: z
      .array(z.object({ file_name: fileName, package: z.record(z.string(), z.unknown()) }).strict())
      .min(1, 'must hold at least one package')
      .max(10_000),
    scope: ScopeSchema.optional(),
    force: z.boolean().optional(),
    /** Import even when an update lowers a skill's phase-1 trigger recall or precision. */
    accept_trigger_regression: z.boolean().optional(),
    /** Report what the import would do (with each update's diff) and write nothing. */
    dry_run: z.boolean().optional(),
  })
  .strict();
/** Request of `skills/import-packages`. */
export type ImportPackagesReq = z.infer<typeof ImportPackagesReqSchema>;

/** `skills/export-agent-skill`: the files of a skill's Agent Skills folder (`SKILL.md` …). */
export const ExportAgentSkillReqSchema = z.object({ name, scope: ScopeSchema.optional() }).strict();
/** Request of `skills/export-agent-skill`. */
export type ExportAgentSkillReq = z.infer<typeof ExportAgentSkillReqSchema>;
/** Reply of `skills/export-agent-skill`: relative paths and base64 bytes; what the format cannot hold. */
export interface ExportAgentSkillRes {
  name: string;
  scope: SkillScope;
  /** The folder name the skill exports to by default. */
  slug: string;
  /** `executable`: the file had its executable bit (a script); an export sets it again. */
  files: Array<{ path: string; data_base64: string; executable?: boolean }>;
  skipped: string[];
}

const runId = z.string().trim().min(1).max(100);

/**
 * A package sent instead of the stored skill (the Composer's unsaved draft): JSON text or an
 * object, validated as an import is and never saved.
 */
const draftPackage = z.union([
  z.string().max(MAX_PACKAGE_CHARS, 'is too large'),
  z.record(z.string(), z.unknown()),
]);

/** `skills/run`: run a skill's artifacts through the dispatcher (one trace per artifact). */
export const RunSkillReqSchema = z
  .object({
    name,
    scope: ScopeSchema.optional(),
    /** Run only this artifact. */
    artifact: z.string().max(200).optional(),
    /** Variables; the harness keys (`session_id`, `workspace`) win over them. */
    context: variables.optional(),
    /** Recorded in the traces (default: a new `cli-…` id). */
    session_id: z.string().trim().min(1).max(100).optional(),
    /** Names the run in `skills/artifact-ran` events and for `skills/cancel-run`. */
    run_id: runId.optional(),
    /**
     * Run this package (the Composer's unsaved draft) instead of the stored skill: validated as an
     * import is, never saved. Its name must be `name`.
     */
    package: draftPackage.optional(),
  })
  .strict();
/** Request of `skills/run`. */
export type RunSkillReq = z.infer<typeof RunSkillReqSchema>;

/** The outcome of one assertion on an artifact's output. */
export interface AssertionResultView {
  type: 'structural' | 'length' | 'pattern' | 'semantic';
  check: string;
  severity: 'hard' | 'soft';
  passed: boolean;
  skipped?: boolean;
  description: string;
  explanation?: string;
}

/** One artifact run, as `run-skill --json` prints it. */
export interface ArtifactRunView {
  artifact: string;
  kind: ArtifactKindName;
  model_variant: string | null;
  ok: boolean;
  text: string | null;
  data: unknown;
  injected: boolean;
  fallback: { artifact: string; reason: string } | null;
  stdout: string | null;
  error: AppErrorData | null;
  assertions: AssertionResultView[];
  trace_id: string;
  duration_ms: number;
  input_tokens: number | null;
  output_tokens: number | null;
  model_id: string | null;
  estimated_cost: number | null;
}
/** Reply of `skills/run`: `ok` when every artifact ran without error. */
export interface RunSkillRes {
  skill: string;
  scope: SkillScope;
  version: string;
  session_id: string;
  /** What ran: the package sent with the request (`draft`) or the stored skill (`saved`). */
  ran: 'draft' | 'saved';
  ok: boolean;
  results: ArtifactRunView[];
}

/** `skills/cancel-run`: stop a `skills/run` or `skills/optimize` started with this `run_id`. */
export const CancelRunReqSchema = z.object({ run_id: runId }).strict();
/** Request of `skills/cancel-run`. */
export type CancelRunReq = z.infer<typeof CancelRunReqSchema>;
/** Reply of `skills/cancel-run`: false when nothing of that id was running. */
export interface CancelRunRes {
  cancelled: boolean;
}

/** How an optimized program is scored. */
export const OPTIMIZE_METRICS = ['exact_match', 'contains'] as const;
/** DSPy optimizers for small training sets. */
export const OPTIMIZERS = ['bootstrap_few_shot', 'labeled_few_shot'] as const;

/** `skills/optimize`: compile a `dspy_module` on training rows and store its new state blob. */
export const OptimizeSkillReqSchema = z
  .object({
    name,
    scope: ScopeSchema.optional(),
    artifact: name,
    /** Required unless `evals` is set. */
    training_data: z.array(variables).min(1, 'must hold at least one example').max(100_000).optional(),
    // The skill's output evals as the train/validation split, pass rates before and after.
    evals: z.boolean().optional(),
    metric: z.enum(OPTIMIZE_METRICS).optional(),
    optimizer: z.enum(OPTIMIZERS).optional(),
    max_demos: z.number().int().min(1).max(16).optional(),
    evaluate: z.boolean().optional(),
    /** Names the run in `skills/optimize-progressed` events and for `skills/cancel-run`. */
    run_id: runId.optional(),
  })
  .strict()
  .refine((r) => r.evals || r.training_data, {
    message: "give training_data, or evals: true to train on the skill's evals",
    path: ['training_data'],
  });
/** Request of `skills/optimize`. */
export type OptimizeSkillReq = z.infer<typeof OptimizeSkillReqSchema>;
/** Reply of `skills/optimize`. */
export interface OptimizeSkillRes {
  optimized: {
    name: string;
    scope: SkillScope;
    artifact: string;
    examples: number;
    demos: Record<string, number>;
    score: number | null;
    lm_calls: number;
    input_tokens: number;
    output_tokens: number;
    warnings: string[];
    took_ms: number;
    /** With `evals`: the split, the validation pass rates, and the version saved. */
    evals?: {
      train: number;
      validation: number;
      before: { passed: number; total: number; pass_rate: number };
      after: { passed: number; total: number; pass_rate: number };
      version: string;
      previous_version: string;
    };
  };
}

/** `skills/versions`: a skill's kept versions, oldest first, and its current one. */
export const SkillVersionsReqSchema = z.object({ name, scope: ScopeSchema.optional() }).strict();
/** Request of `skills/versions`. */
export type SkillVersionsReq = z.infer<typeof SkillVersionsReqSchema>;
/** One kept version (number 1 is the oldest). */
export interface SkillVersionView {
  number: number;
  version: string;
  content_hash: string;
  /** What replaced it: `import`, `save`, `restore`, `delete`, `seed` or `fork`. */
  origin: string;
  note: string | null;
  created_at: string;
}
/** Reply of `skills/versions`; `current` is null for a deleted skill whose history remains. */
export interface SkillVersionsRes {
  name: string;
  scope: SkillScope;
  current: { version: string; content_hash: string; updated_at: string } | null;
  versions: SkillVersionView[];
}

/** A version reference: its number in the history, its version string, or `current`. */
const versionRef = z.string().trim().min(1).max(100);

/** `skills/diff-versions`: how two versions of a skill differ (`to` defaults to `current`). */
export const DiffVersionsReqSchema = z
  .object({ name, scope: ScopeSchema.optional(), from: versionRef, to: versionRef.optional() })
  .strict();
/** Request of `skills/diff-versions`. */
export type DiffVersionsReq = z.infer<typeof DiffVersionsReqSchema>;
/** Reply of `skills/diff-versions`: changed fields, then each artifact with a unified line diff. */
export interface DiffVersionsRes {
  name: string;
  scope: SkillScope;
  from: { ref: string; version: string };
  to: { ref: string; version: string };
  fields: Array<{ field: string; from: unknown; to: unknown }>;
  artifacts: Array<{
    name: string;
    kind: string;
    model_variant: string | null;
    change: 'added' | 'removed' | 'changed' | 'unchanged';
    patch: string;
    metadata_changed: string[];
  }>;
}

/** `skills/restore-version`: make a kept version current again (the current one is kept too). */
export const RestoreVersionReqSchema = z
  .object({ name, scope: ScopeSchema.optional(), version: versionRef, note: z.string().max(1000).optional() })
  .strict();
/** Request of `skills/restore-version`. */
export type RestoreVersionReq = z.infer<typeof RestoreVersionReqSchema>;
/** Reply of `skills/restore-version`. */
export interface RestoreVersionRes {
  restored: { name: string; scope: SkillScope; version: string; from_number: number };
}

/** `skills/save-package`: write an edited package (the Composer's save); the replaced one is kept. */
export const SavePackageReqSchema = z
  .object({
    package: z.union([z.string().max(MAX_PACKAGE_CHARS, 'is too large'), z.record(z.string(), z.unknown())]),
    scope: ScopeSchema,
    /** The `content_hash` the editor started from: refused with CONFLICT if the skill changed since. */
    expected_hash: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional(),
    note: z.string().max(1000).optional(),
    /** Save even when the change lowers the skill's phase-1 trigger recall or precision. */
    accept_trigger_regression: z.boolean().optional(),
  })
  .strict();
/** Request of `skills/save-package`. */
export type SavePackageReq = z.infer<typeof SavePackageReqSchema>;
/** Reply of `skills/save-package`. */
export interface SavePackageRes {
  /** Null when the save was held back by `trigger_regression` (nothing written). */
  saved: {
    name: string;
    scope: SkillScope;
    version: string;
    action: 'created' | 'updated' | 'unchanged';
    content_hash: string;
  } | null;
  /** Set when the change lowers the skill's trigger rates: without `accept_trigger_regression` nothing was saved. */
  trigger_regression?: TriggerRegressionView[];
}

/** `skills/eval`: run a skill's evals (its bundled `evals/evals.json`). */
export const EvalSkillReqSchema = z
  .object({
    name,
    scope: ScopeSchema.optional(),
    /** Only trigger evals (those with `should_trigger`) or only output evals. */
    only: z.enum(['trigger', 'output']).optional(),
    /** Pass rate needed (default: the file's `threshold`, else 0.8). */
    threshold: z.number().min(0).max(1).optional(),
    // Progress, cancel and remembered runs.
    /** Names the run for `skills/cancel-eval` and the `skills/eval-progressed` events. */
    run_id: z.string().min(1).max(200).optional(),
    /** Remember the run (pass rate per model) in the skill's store (default true). */
    record: z.boolean().optional(),
    /** Output evals: also run each prompt without the skill (the `without_skill` configuration). */
    baseline: z.boolean().optional(),
    /** Output evals: runs per configuration (default 1); several give a mean and a stddev. */
    runs: z.number().int().min(1).max(20).optional(),
    /**
     * Evaluate this package (the Composer's draft, saved or never saved) instead of the stored
     * skill: the same shape as `skills/run`'s `package`, its name must be `name`. It is tried on
     * in-memory copies of the stores, so nothing is written and the run is not remembered.
     */
    draft: draftPackage.optional(),
  })
  .strict();
/** Request of `skills/eval`. */
export type EvalSkillReq = z.infer<typeof EvalSkillReqSchema>;

/**
 * `skills/improve-triggers`: the model proposes a description and trigger phrases from the trigger
 * evals phase 1 gets wrong (a held-out third it never sees checks the proposal); nothing is saved.
 */
export const ImproveTriggersReqSchema = z
  .object({
    name,
    scope: ScopeSchema.optional(),
    /** Proposals to try at most (default 3). */
    rounds: z.number().int().min(1).max(5).optional(),
  })
  .strict();
/** Request of `skills/improve-triggers`. */
export type ImproveTriggersReq = z.infer<typeof ImproveTriggersReqSchema>;
/** A description and trigger phrases, with the phase-1 rates they give on the train evals. */
export interface TriggerProposalView {
  description: string;
  trigger_phrases: string[];
  train: TriggerRates;
}
/** Reply of `skills/improve-triggers`. */
export interface ImproveTriggersRes {
  name: string;
  scope: SkillScope;
  model: string;
  /** How many trigger evals the model saw (train) and how many were kept from it (held out). */
  train: number;
  held_out: number;
  /** Phase 1 with the stored description and phrases. */
  before: { train: TriggerRates; held_out: TriggerRates };
  /** The proposal that decided the most train evals rightly, if one beat the stored fields. */
  best: (TriggerProposalView & { held_out: TriggerRates }) | null;
  rounds: TriggerProposalView[];
  /**
   * `better`: the best proposal gains on the train evals and on the held-out ones (or those were
   * all right and stay so); `not_confirmed`: it gains on train but the held-out evals it got wrong
   * stay wrong (fitted to what it saw); `held_out_worse`: it decides more held-out evals wrongly;
   * `no_better`: no proposal beat the stored fields, or none was wrong to begin with.
   */
  verdict: 'better' | 'not_confirmed' | 'held_out_worse' | 'no_better';
  input_tokens: number;
  output_tokens: number;
  estimated_cost: number | null;
  duration_ms: number;
}

/** `skills/trigger-eval`: whether skills fire for their trigger evals, by phase 1 and (with a model) the turn. */
export const TriggerEvalReqSchema = z
  .object({
    /** Skills to measure (default: every skill that has trigger evals). */
    names: z.array(name).max(1000).optional(),
    scope: ScopeSchema.optional(),
    /** Also ask the configured model, for each query phase 1 lists, whether it would use the skill. */
    with_model: z.boolean().optional(),
    /** With a model: refuse to start when the estimated cost is above this many USD (default 1). */
    max_cost: z.number().min(0).max(10_000).optional(),
    /** Remember each skill's run (per model) in its store (default true). */
    record: z.boolean().optional(),
    /**
     * Measure this draft package instead of the stored skill of its name (its name, description
     * and trigger evals replace the saved ones for this run; nothing is written or remembered).
     * `names`, when given, must name only it.
     */
    draft: draftPackage.optional(),
  })
  .strict();
/** Request of `skills/trigger-eval`. */
export type TriggerEvalReq = z.infer<typeof TriggerEvalReqSchema>;
/** Counts of one way of deciding (phase 1, or the whole turn) against `should_trigger`. */
export interface TriggerRates {
  true_positives: number;
  false_positives: number;
  false_negatives: number;
  true_negatives: number;
  /** Of the queries that should fire, the share that did; null when none should. */
  recall: number | null;
  /** Of the queries that fired, the share that should have; null when none fired. */
  precision: number | null;
}
/**
 * A save or update that would lower a skill's phase-1 trigger recall or precision, measured on
 * its trigger evals against the catalog as it is, before and after the change (nothing written).
 */
export interface TriggerRegressionView {
  name: string;
  scope: SkillScope;
  version_before: string;
  version_after: string;
  recall_before: number | null;
  recall_after: number | null;
  precision_before: number | null;
  precision_after: number | null;
  /** The queries phase 1 gets wrong after the change; `newly` when it got them right before. */
  failing: Array<{ query: string; should_trigger: boolean; newly: boolean }>;
}
/** One trigger eval's outcome. */
export interface TriggerEvalQueryView {
  id: string;
  query: string;
  should_trigger: boolean;
  /** The file it came from (`evals/trigger-evals.json` or `evals/evals.json`). */
  source: string;
  /** Phase 1's rank of the skill for this query, and its score. */
  rank: number | null;
  score: number | null;
  /** Phase 1 put the skill into the prompt (top 5 and at or above the prompt's cut). */
  phase1: boolean;
  /** With a model: whether it chose this skill among those listed (null: not asked). */
  model_chose: boolean | null;
  model_choice: string | null;
  /** With a model: phase 1 listed it and the model chose it. Null without a model. */
  turn: boolean | null;
  /** The decision (the turn's with a model, else phase 1's) agrees with `should_trigger`. */
  passed: boolean;
}
/** One skill's trigger evals. */
export interface TriggerEvalSkillView {
  name: string;
  scope: SkillScope;
  version: string;
  total: number;
  /** Queries that should fire, and queries that should not. */
  positives: number;
  negatives: number;
  phase1: TriggerRates;
  /** With a model; else null. */
  turn: TriggerRates | null;
  /** The last remembered run of this skill with the same model, for comparison (null: none). */
  previous: { phase1: TriggerRates; turn: TriggerRates | null; version: string; at: string } | null;
  results: TriggerEvalQueryView[];
}
/** Reply of `skills/trigger-eval`. */
export interface TriggerEvalRes {
  /** `provider:model` when the model was asked, else null. */
  model: string | null;
  /** With a model: the calls it was going to take and their estimated cost (null: no price known). */
  estimate: { calls: number; input_tokens: number; output_tokens: number; cost: number | null } | null;
  skills: TriggerEvalSkillView[];
  /** Named skills that have no trigger evals. */
  skipped: Array<{ name: string; reason: string }>;
  duration_ms: number;
  input_tokens: number;
  output_tokens: number;
  estimated_cost: number;
}
/** The outcome of one eval. */
export interface EvalResultView {
  id: string;
  /** The eval's `name` in evals.json, when it has one. */
  name?: string;
  kind: 'trigger' | 'output';
  prompt: string;
  passed: boolean;
  /** Why it failed, in words (null when it passed). */
  reason: string | null;
  /** Trigger evals: whether the message should activate the skill, and its phase-1 rank. */
  should_trigger?: boolean;
  rank?: number | null;
  /** Trigger evals ranked in the top 5, with a model: whether it chose this skill. */
  model_chose?: boolean | null;
  /** The skill the model chose instead, or null for none. */
  model_choice?: string | null;
  /**
   * Output evals: each check of the first run with the skill (`passed: null` when it could not be
   * graded: no model to run the prompt or to judge a statement).
   */
  checks: Array<{ check: string; passed: boolean | null; explanation: string }>;
  /** Output evals: false when a check could not be graded (the eval then neither passes nor fails). */
  graded?: boolean;
  /** Output evals: each run of the prompt through the model, with and (`baseline`) without the skill. */
  runs?: EvalRunView[];
  duration_ms: number;
  input_tokens: number;
  output_tokens: number;
  estimated_cost: number;
}
/** One graded check of a run, in skill-creator's `grading.json` shape plus whether it was graded. */
export interface EvalExpectationView {
  text: string;
  passed: boolean;
  evidence: string;
  graded: boolean;
}
/** One run of an output eval's prompt: a chat turn with the skill, or without it. */
export interface EvalRunView {
  configuration: 'with_skill' | 'without_skill';
  run_number: number;
  /** Every check graded and passed. */
  passed: boolean;
  graded: boolean;
  expectations: EvalExpectationView[];
  /** The model's final reply. */
  reply: string;
  /** The tools the model called, in order (the skill given up front is not among them). */
  tool_calls: Array<{ name: string; args: unknown; ok: boolean; result: unknown }>;
  /**
   * Files the scripts the model ran wrote (run_script), graded with the reply; their bytes
   * (base64) only in the command's reply, not in the remembered run.
   */
  files: Array<{ path: string; media_type: string; size: number; data_base64?: string }>;
  /** Why the turn failed (the model could not be reached, …), or null. */
  error: { code: string; message: string } | null;
  /** The turn alone (the judge not counted), and the judge's time. */
  duration_ms: number;
  judge_duration_ms: number;
  input_tokens: number;
  output_tokens: number;
}
/** Reply of `skills/eval`: `ok` when the pass rate reaches the threshold. */
export interface EvalSkillRes {
  name: string;
  scope: SkillScope;
  model: string | null;
  threshold: number;
  total: number;
  passed: number;
  pass_rate: number;
  /** The pass rate reached, and every check graded. */
  ok: boolean;
  /** Output evals with a check that could not be graded (no model configured, the judge failed). */
  not_graded: number;
  /** Runs per configuration of each output eval. */
  runs_per_configuration: number;
  /** With `baseline`: the output evals run without the skill, counted as the skill's are. */
  baseline: { total: number; passed: number; pass_rate: number } | null;
  results: EvalResultView[];
  // Totals of the run, and its id among the remembered runs (null when not recorded).
  duration_ms: number;
  input_tokens: number;
  output_tokens: number;
  estimated_cost: number;
  recorded: number | null;
  /** What ran: the draft sent with the request, or the stored skill. */
  ran: 'draft' | 'saved';
  /**
   * The last remembered run of this skill's evals with the same model (before this one), for a
   * comparison per eval; null when there is none.
   */
  previous: {
    id: number;
    version: string;
    pass_rate: number;
    at: string;
    results: Array<{ id: string; passed: boolean; graded?: boolean }>;
  } | null;
}

/** `skills/fork`: copy an account skill into the workspace store, where it then overrides it. */
export const ForkSkillReqSchema = z.object({ name, to: z.literal('workspace') }).strict();
/** Request of `skills/fork`. */
export type ForkSkillReq = z.infer<typeof ForkSkillReqSchema>;
/** Reply of `skills/fork`. */
export interface ForkSkillRes {
  forked: { name: string; scope: 'workspace'; version: string; from_scope: 'account' };
}

/**
 * `skills/changes`: what changed in the catalog since a cursor, read from each store's change log
 * (the one phase 1 follows), so a cache of the catalog (the MCP server's) stays current at the
 * cost of the change, whoever made it (this process, the app, another CLI).
 */
export const CatalogChangesReqSchema = z
  .object({ since: z.string().max(4096).optional(), limit: z.number().int().min(1).max(100_000).optional() })
  .strict();
/**
 * Request of `skills/changes`: without `since`, everything. With `limit`, a scope listed whole comes
 * in pages of at most that many skills (`more` says another page follows: ask again with `cursor`),
 * so a caller serving other requests meanwhile never waits on one long listing.
 */
export type CatalogChangesReq = z.infer<typeof CatalogChangesReqSchema>;
/** The changes of one store. */
export interface ScopeChanges {
  scope: SkillScope;
  /** True: `upserted` is every skill of this scope and anything not in it is gone. */
  reset: boolean;
  /** Skills added or changed (every skill on a reset). */
  upserted: SkillDetail[];
  /** Ids of skills no longer in the store. */
  removed: string[];
}
/** Reply of `skills/changes`. */
export interface CatalogChangesRes {
  /** Opaque; pass it back as `since`. */
  cursor: string;
  /** False when nothing changed since `since` (then `changes` is empty). */
  changed: boolean;
  /** The scopes open now; a scope that is not listed has nothing in it. */
  scopes: SkillScope[];
  changes: ScopeChanges[];
  /** A paged listing (`limit`) is not finished: ask again with `cursor` for the next page. */
  more?: boolean;
  /** With `more`: how many skills the remaining pages hold. */
  remaining?: number;
}

/** The `skills/*` channels. */
export interface SkillsChannels {
  'skills/versions': { req: SkillVersionsReq; res: SkillVersionsRes };
  'skills/diff-versions': { req: DiffVersionsReq; res: DiffVersionsRes };
  'skills/restore-version': { req: RestoreVersionReq; res: RestoreVersionRes };
  'skills/fork': { req: ForkSkillReq; res: ForkSkillRes };
  'skills/save-package': { req: SavePackageReq; res: SavePackageRes };
  'skills/eval': { req: EvalSkillReq; res: EvalSkillRes };
  'skills/trigger-eval': { req: TriggerEvalReq; res: TriggerEvalRes };
  'skills/improve-triggers': { req: ImproveTriggersReq; res: ImproveTriggersRes };
  'skills/list': { req: ListSkillsReq; res: ListSkillsRes };
  'skills/get': { req: GetSkillReq; res: GetSkillRes };
  'skills/changes': { req: CatalogChangesReq; res: CatalogChangesRes };
  'skills/match': { req: MatchSkillsReq; res: MatchSkillsRes };
  'skills/set-switch': { req: SetSkillSwitchReq; res: SetSkillSwitchRes };
  'skills/embed': { req: EmbedSkillsReq; res: EmbedSkillsRes };
  'skills/warm-match': { req: WarmMatchReq; res: WarmMatchRes };
  'skills/semantic-status': { req: SemanticStatusReq; res: SemanticStatusRes };
  'skills/import-package': { req: ImportPackageReq; res: ImportPackageRes };
  'skills/export-package': { req: ExportPackageReq; res: ExportPackageRes };
  'skills/delete': { req: DeleteSkillReq; res: DeleteSkillRes };
  'skills/import-packages': { req: ImportPackagesReq; res: ImportPackageRes };
  'skills/export-agent-skill': { req: ExportAgentSkillReq; res: ExportAgentSkillRes };
  'skills/render': { req: RenderTemplateReq; res: RenderTemplateRes };
  'skills/validate': { req: ValidateReq; res: ValidateRes };
  'skills/run': { req: RunSkillReq; res: RunSkillRes };
  'skills/cancel-run': { req: CancelRunReq; res: CancelRunRes };
  'skills/optimize': { req: OptimizeSkillReq; res: OptimizeSkillRes };
}

/** Request schemas of the `skills/*` channels. */
export const skillsRequestSchemas = {
  'skills/versions': SkillVersionsReqSchema,
  'skills/diff-versions': DiffVersionsReqSchema,
  'skills/restore-version': RestoreVersionReqSchema,
  'skills/fork': ForkSkillReqSchema,
  'skills/save-package': SavePackageReqSchema,
  'skills/eval': EvalSkillReqSchema,
  'skills/trigger-eval': TriggerEvalReqSchema,
  'skills/improve-triggers': ImproveTriggersReqSchema,
  'skills/list': ListSkillsReqSchema,
  'skills/get': GetSkillReqSchema,
  'skills/changes': CatalogChangesReqSchema,
  'skills/match': MatchSkillsReqSchema,
  'skills/set-switch': SetSkillSwitchReqSchema,
  'skills/embed': EmbedSkillsReqSchema,
  'skills/warm-match': WarmMatchReqSchema,
  'skills/semantic-status': SemanticStatusReqSchema,
  'skills/import-package': ImportPackageReqSchema,
  'skills/export-package': ExportPackageReqSchema,
  'skills/delete': DeleteSkillReqSchema,
  'skills/import-packages': ImportPackagesReqSchema,
  'skills/export-agent-skill': ExportAgentSkillReqSchema,
  'skills/render': RenderTemplateReqSchema,
  'skills/validate': ValidateReqSchema,
  'skills/run': RunSkillReqSchema,
  'skills/cancel-run': CancelRunReqSchema,
  'skills/optimize': OptimizeSkillReqSchema,
};

/** The `skills/*` events. */
export interface SkillsEvents {
  /** The catalog changed (import or delete, from this or another window). */
  'skills/catalog-changed': {
    reason: 'imported' | 'deleted' | 'restored' | 'forked' | 'saved' | 'switched';
    names: string[];
  };
  /** One artifact of a `skills/run` that was given a `run_id` finished. */
  'skills/artifact-ran': { run_id: string; result: ArtifactRunView };
  /**
   * Progress of a `skills/embed` given a `run_id`: skills with a vector, of all (with two models,
   * vectors of both over two, so the count rises once through both runs).
   */
  'skills/embed-progressed': { run_id: string; embedded: number; total: number };
  /** Progress of a `skills/optimize` that was given a `run_id`: `done` of `total` examples. */
  'skills/optimize-progressed': {
    run_id: string;
    phase: 'compile' | 'evaluate';
    done: number;
    total: number;
  };
}

// Importing what is dropped on the Composer (JSON packages, Agent Skills folders, zips).
/** Most bytes of base64 one `skills/import-files` call carries (the import limits apply on top). */
export const MAX_DROPPED_BASE64 = 64 * 1024 * 1024;

/** `skills/import-files`: dropped or picked files, sorted into packages and imported all or nothing. */
export const ImportFilesReqSchema = z
  .object({
    files: z
      .array(
        z
          .object({
            /** Relative to what was dropped: `a.json`, `tone-check/SKILL.md`, `skills.zip`. */
            path: z.string().trim().min(1).max(1000),
            data_base64: z.string().max(MAX_DROPPED_BASE64, 'is too large'),
          })
          .strict(),
      )
      .min(1, 'must hold at least one file')
      .max(2000),
    scope: ScopeSchema.optional(),
    force: z.boolean().optional(),
  })
  .strict();
/** Request of `skills/import-files`. */
export type ImportFilesReq = z.infer<typeof ImportFilesReqSchema>;
/** What an import of dropped files did to one package. */
export interface DroppedPackageOutcome {
  /** The file, folder or `zip:entry` the package came from. */
  source: string;
  name: string | null;
  outcome: 'created' | 'updated' | 'unchanged' | 'refused' | 'not_imported';
  version?: string;
  previous_version?: string;
  /** An update whose version the import raised (the content changed, the package's version did not). */
  version_bumped?: boolean;
  /** What an update changed: field names, and artifacts as `name (added|removed|changed)`. */
  changed?: string[];
  /** Why it was refused or not imported. */
  reason?: string;
  /** Problems at JSON paths (refused packages). */
  issues: ValidationIssue[];
  /** What did not stop the import: an Agent Skills name off the standard, a schema that does not compile. */
  warnings: ValidationIssue[];
}
/** Reply of `skills/import-files`: one row per package; `written` false when any was refused. */
export interface ImportFilesRes {
  written: boolean;
  scope: SkillScope;
  packages: DroppedPackageOutcome[];
}
/** The channels of the import of dropped files. */
export type SkillFilesChannels = {
  'skills/import-files': { req: ImportFilesReq; res: ImportFilesRes };
};
/** Request schemas of {@link SkillFilesChannels}. */
export const skillFilesRequestSchemas = { 'skills/import-files': ImportFilesReqSchema };
