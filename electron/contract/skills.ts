/**
 * The `skills/*` slice of the API contract: request schemas (checked once, at the transport edge)
 * and the JSON shapes of the replies. Wire types only: no Buffers, no class instances.
 */
import { z } from 'zod';

/** Where a skill lives. Mirrors `Scope` of the store (checked in the skills handler slice). */
export const ScopeSchema = z.enum(['account', 'workspace']);
/** Where a skill lives: the account store or the open workspace's store. */
export type SkillScope = z.infer<typeof ScopeSchema>;

/** The seven artifact kinds (mirrors `ARTIFACT_KINDS` of the skills package; checked there). */
export type ArtifactKindName =
  | 'description'
  | 'prompt_template'
  | 'code_template'
  | 'dspy_module'
  | 'approach'
  | 'example'
  | 'resource';

/** Which indexed field of a skill a message matched (mirrors phase-1 activation). */
export type MatchFieldName =
  | 'exact_trigger'
  | 'name'
  | 'description'
  | 'tags'
  | 'intent_patterns'
  | 'trigger_phrases';

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
  source: 'system' | 'community' | 'user';
  description: string;
  tags: string[];
  author: string | null;
  artifact_kinds: ArtifactKindName[];
  trigger_phrases: string[];
  intent_patterns: string[];
  always_on: boolean;
  updated_at: string;
  /** True for an account skill hidden by a workspace skill of the same name. */
  overridden: boolean;
  overridden_by?: 'workspace';
  /** Set on a workspace skill that hides an account skill of the same name. */
  overrides?: 'account';
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
    message: z.string().max(20_000, 'must be at most 20000 characters'),
    limit: z.number().int().min(1).max(50).optional(),
  })
  .strict();
/** Request of `skills/match` (`limit` defaults to 5). */
export type MatchSkillsReq = z.infer<typeof MatchSkillsReqSchema>;
/** One ranked skill: `score` in [0, 1) from BM25, [1, 2) for a verbatim trigger phrase. */
export interface SkillMatchView {
  name: string;
  scope: SkillScope;
  score: number;
  matched_on: MatchFieldName[];
}
/** Reply of `skills/match`; `took_ms` is the time of the match alone. */
export interface MatchSkillsRes {
  matches: SkillMatchView[];
  took_ms: number;
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
}
/** Reply of `skills/import-package`. */
export interface ImportPackageRes {
  imported: ImportOutcomeView[];
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

/** The `skills/*` channels. */
export interface SkillsChannels {
  'skills/list': { req: ListSkillsReq; res: ListSkillsRes };
  'skills/get': { req: GetSkillReq; res: GetSkillRes };
  'skills/match': { req: MatchSkillsReq; res: MatchSkillsRes };
  'skills/import-package': { req: ImportPackageReq; res: ImportPackageRes };
  'skills/export-package': { req: ExportPackageReq; res: ExportPackageRes };
  'skills/delete': { req: DeleteSkillReq; res: DeleteSkillRes };
}

/** Request schemas of the `skills/*` channels. */
export const skillsRequestSchemas = {
  'skills/list': ListSkillsReqSchema,
  'skills/get': GetSkillReqSchema,
  'skills/match': MatchSkillsReqSchema,
  'skills/import-package': ImportPackageReqSchema,
  'skills/export-package': ExportPackageReqSchema,
  'skills/delete': DeleteSkillReqSchema,
};

/** The `skills/*` events. */
export interface SkillsEvents {
  /** The catalog changed (import or delete, from this or another window). */
  'skills/catalog-changed': { reason: 'imported' | 'deleted'; names: string[] };
}
