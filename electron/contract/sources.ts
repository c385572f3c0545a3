/**
 * The `sources/*` slice of the API contract: git repositories and HTTP catalogs a store subscribes
 * to, checked (what changed upstream, scanned, with permissions) and installed only when accepted.
 * The CLI prints these same shapes with `--json`.
 */
import { z } from 'zod';
import type { DiffVersionsRes, SkillScope, TriggerRegressionView } from './skills.js';

/** How much a scan finding matters: `high` needs an explicit accept before install. */
export type Severity = 'high' | 'medium' | 'low';

/** One thing a scan rule found. */
export interface ScanFinding {
  rule: string;
  severity: Severity;
  /** Where: `artifact NAME line N`, or `allowed_tools`, `description`, … */
  where: string;
  message: string;
  /** The matched text, shortened, with invisible characters shown as `<U+XXXX>`. */
  excerpt: string;
}

/** The scan report of one skill. */
export interface ScanReport {
  max_severity: Severity | 'none';
  findings: ScanFinding[];
}

/** A skill's permissions; every list sorted. */
export interface SkillPermissions {
  /** Artifacts that call the configured model (templates, DSPy, code using `llm_query`). */
  model_calls: string[];
  /** The largest number of model calls a run may make, when the package says (`metadata.max_llm_calls`). */
  model_call_budget: number | null;
  /** Workspace page functions its code calls (`get_page`, `workspace_search`, …). */
  pages_read: string[];
  /** MCP tools it declares (`mcp__server__tool` in allowed tools). */
  mcp_tools: string[];
  /** Other allowed tools (Bash(...), WebFetch, …). */
  allowed_tools: string[];
  /** Scripts it bundles and its code artifacts. */
  scripts: string[];
  /** Host functions its WebAssembly components import. */
  component_imports: string[];
  /** Python packages it lists (`requirements.txt`). */
  packages: string[];
  /** Hosts named in URLs of its instructions or code. */
  network_hosts: string[];
  /** What running it may do beyond answering (`network`, `write`). */
  effects: string[];
}

/** One permission that an update adds or drops. */
export interface PermissionChange {
  permission: keyof SkillPermissions;
  added: string[];
  removed: string[];
}

/** What the model said about one skill (`--review`). */
export interface ModelReview {
  model: string;
  verdict: 'safe' | 'suspicious' | 'malicious' | null;
  reasons: string[];
  /** Why there is no verdict. */
  error: string | null;
}

/** A source as listed. */
export interface SourceView {
  id: string;
  kind: 'git' | 'catalog';
  url: string;
  ref: string | null;
  path: string | null;
  scope: SkillScope;
  revision: string | null;
  marketplace_id: string | null;
  sync_etag: string | null;
  checked_at: string | null;
  check_error: string | null;
  installed: string[];
}

/** A skill's state in a check. */
export type SkillStatus = 'added' | 'changed' | 'unchanged' | 'removed' | 'conflict';

/** One skill of a check. */
export interface SkillCheck {
  name: string;
  status: SkillStatus;
  /** What the skill says it does: upstream's for a new or changed skill, the stored one's when removed. */
  description: string | null;
  /**
   * Where its scripts would run, in words (Python in the Pyodide sandbox, CPython in the OS
   * sandbox once accepted when a package has compiled code, other languages not run at all);
   * null when it bundles no scripts or code.
   */
  script_runtime: string | null;
  file: string | null;
  installed_version: string | null;
  upstream_version: string | null;
  /** The stored skill differs from what was accepted (changed outside an accepted update). */
  tampered: boolean;
  tampered_files: string[];
  /** An account skill hidden by a workspace skill of the same name (which is never touched). */
  overridden_by_workspace: boolean;
  /** From the installed skill to the upstream one (from nothing for an added skill). */
  diff: Pick<DiffVersionsRes, 'fields' | 'artifacts'> | null;
  scan: ScanReport | null;
  permissions: SkillPermissions | null;
  permission_changes: PermissionChange[];
  review: ModelReview | null;
  /** High findings: installing needs an explicit accept. */
  needs_risk_acceptance: boolean;
  note: string | null;
}

/** What a check found. */
export interface CheckResult {
  source: SourceView;
  reachable: boolean;
  error: string | null;
  not_modified: boolean;
  revision: string | null;
  installed_revision: string | null;
  skills: SkillCheck[];
  invalid: Array<{ file: string; error: string }>;
  updates_available: number;
}

/** What an update did. */
export interface UpdateResult {
  source: string;
  revision: string;
  installed: Array<{
    name: string;
    action: 'created' | 'updated' | 'unchanged';
    version: string;
    permissions: SkillPermissions;
  }>;
  skipped: Array<{ name: string; reason: string }>;
  /** Skills whose high findings were not accepted: nothing was installed. */
  needs_risk_acceptance: Array<{ name: string; findings: ScanFinding[] }>;
  /**
   * Skills not installed because their update lowers their phase-1 trigger recall or precision
   * (the others were): review the figures, then accept them with `accept_regression`.
   */
  held_for_review: TriggerRegressionView[];
  removed_upstream: string[];
}

const ScopeSchema = z.enum(['account', 'workspace']);
const SourceId = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'a source name');

/** `sources/list`: the sources of both stores, each with its last check (when one was made). */
export const ListSourcesReqSchema = z.object({}).strict();
export type ListSourcesReq = z.infer<typeof ListSourcesReqSchema>;
export interface ListSourcesRes {
  sources: Array<{ source: SourceView; last_check: CheckResult | null }>;
  /** Whether the app checks sources on launch and periodically. */
  background_checks: boolean;
}

/** `sources/check`: fetch one source and compare; writes only its snapshot. */
export const CheckSourceReqSchema = z.object({ id: SourceId, scope: ScopeSchema }).strict();
export type CheckSourceReq = z.infer<typeof CheckSourceReqSchema>;
export type CheckSourceRes = CheckResult;

/** `sources/update`: accept skills of the last check (named, or all added and changed). */
export const UpdateSourceReqSchema = z
  .object({
    id: SourceId,
    scope: ScopeSchema,
    skills: z.array(z.string().min(1).max(200)).max(1000).optional(),
    all: z.boolean().optional(),
    accept_risk: z.boolean().optional(),
    accept_regression: z.boolean().optional(),
  })
  .strict();
export type UpdateSourceReq = z.infer<typeof UpdateSourceReqSchema>;
export type UpdateSourceRes = UpdateResult;

/** `sources/set-background-checks`: switch the checks on launch and every few hours. */
export const SetBackgroundChecksReqSchema = z.object({ enabled: z.boolean() }).strict();
export type SetBackgroundChecksReq = z.infer<typeof SetBackgroundChecksReqSchema>;
export interface SetBackgroundChecksRes {
  background_checks: boolean;
}

/** `sources/add`: subscribe a store to a source; fetched and checked at once, nothing installed. */
export const AddSourceReqSchema = z
  .object({
    url: z.string().trim().min(1).max(2000),
    scope: ScopeSchema,
    kind: z.enum(['git', 'catalog']).optional(),
    ref: z.string().trim().min(1).max(200).optional(),
    path: z.string().trim().min(1).max(500).optional(),
    id: SourceId.optional(),
  })
  .strict();
export type AddSourceReq = z.infer<typeof AddSourceReqSchema>;
export type AddSourceRes = CheckResult;

/** `sources/remove`: forget a source; the skills it installed stay. */
export const RemoveSourceReqSchema = z.object({ id: SourceId, scope: ScopeSchema }).strict();
export type RemoveSourceReq = z.infer<typeof RemoveSourceReqSchema>;
export interface RemoveSourceRes {
  removed: string;
  kept_skills: string[];
}

/**
 * The app's background check of its sources finished (on launch, then every few hours): the
 * window reads `sources/list` again to tell the user what needs a look without opening Settings.
 */
export interface SourcesEvents {
  'sources/checked': { checked: number };
}

/** The channels of this slice. */
export type SourcesChannels = {
  'sources/list': { req: ListSourcesReq; res: ListSourcesRes };
  'sources/add': { req: AddSourceReq; res: AddSourceRes };
  'sources/remove': { req: RemoveSourceReq; res: RemoveSourceRes };
  'sources/check': { req: CheckSourceReq; res: CheckSourceRes };
  'sources/update': { req: UpdateSourceReq; res: UpdateSourceRes };
  'sources/set-background-checks': { req: SetBackgroundChecksReq; res: SetBackgroundChecksRes };
};

/** The request schemas of this slice. */
export const sourcesRequestSchemas = {
  'sources/list': ListSourcesReqSchema,
  'sources/add': AddSourceReqSchema,
  'sources/remove': RemoveSourceReqSchema,
  'sources/check': CheckSourceReqSchema,
  'sources/update': UpdateSourceReqSchema,
  'sources/set-background-checks': SetBackgroundChecksReqSchema,
};
