/**
 * The `composer/*` slice of the API contract: the Composer agent writes a whole skill
 * package from a description, repairs it until it validates, and refines it in conversation, one
 * artifact change at a time. Nothing here saves: the client accepts, then saves with
 * `skills/save-package`.
 */
import { z } from 'zod';
import { ProviderRefSchema } from './settings.js';
import { MAX_PACKAGE_CHARS } from './skills.js';

/** The most repair rounds a request may ask for. */
export const MAX_REPAIR_ROUNDS = 10;
/** Repair rounds when the request names none. */
export const DEFAULT_REPAIR_ROUNDS = 3;

/** A package draft as JSON (validated by the core, never trusted from the client). */
const DraftSchema = z.record(z.string(), z.unknown());

const common = {
  /** At most this many validate-and-repair rounds after the first answer (default 3). */
  max_rounds: z.number().int().min(0).max(MAX_REPAIR_ROUNDS).optional(),
  /** Names the run for `composer/cancel` and the `composer/round-finished` events. */
  run_id: z.string().min(1).max(200).optional(),
  /**
   * The model to write with: a configured provider's id and one of its models (default: the
   * default provider's), so a failed run can be tried again with a stronger one.
   */
  model: z
    .object({ provider: ProviderRefSchema, model: z.string().trim().min(1, 'must not be empty').max(200) })
    .strict()
    .optional(),
};

/** `composer/create`: write a package from a description. */
export const ComposeCreateReqSchema = z
  .object({
    description: z.string().trim().min(1, 'describe the skill').max(20_000),
    ...common,
  })
  .strict();
/** Request of `composer/create`. */
export type ComposeCreateReq = z.infer<typeof ComposeCreateReqSchema>;

/** `composer/refine`: change a draft as the feedback asks (the draft carries any hand edits). */
export const ComposeRefineReqSchema = z
  .object({
    draft: DraftSchema,
    feedback: z.string().trim().min(1, 'say what to change').max(20_000),
    ...common,
  })
  .strict()
  .refine((r) => JSON.stringify(r.draft).length <= MAX_PACKAGE_CHARS, { message: 'the draft is too large' });
/** Request of `composer/refine`. */
export type ComposeRefineReq = z.infer<typeof ComposeRefineReqSchema>;

/** `composer/apply-changes`: keep the accepted artifact changes of a proposal, reject the rest. */
export const ApplyChangesReqSchema = z
  .object({
    base: DraftSchema,
    proposed: DraftSchema,
    /** The `key`s of the accepted changes. */
    accept: z.array(z.string().max(500)).max(1000),
  })
  .strict();
/** Request of `composer/apply-changes`. */
export type ApplyChangesReq = z.infer<typeof ApplyChangesReqSchema>;

/** `composer/cancel`: stop a create or refine run. */
export const ComposeCancelReqSchema = z.object({ run_id: z.string().min(1).max(200) }).strict();
/** Request of `composer/cancel`. */
export type ComposeCancelReq = z.infer<typeof ComposeCancelReqSchema>;

/** One problem the validator found in a draft. */
export interface DraftIssueView {
  /** Which check: the package schema, a template's syntax, the evals file, or a dry run. */
  stage: 'json' | 'schema' | 'template' | 'evals' | 'dry_run';
  /** Where: a JSON path or an artifact name (with the eval id for dry runs). */
  path: string;
  message: string;
}

/** One answer of the model and what validation said of it. */
export interface ComposeRoundView {
  /** 0 is the first answer; 1.. are repairs. */
  round: number;
  ok: boolean;
  issues: DraftIssueView[];
  input_tokens: number;
  output_tokens: number;
  estimated_cost: number | null;
  duration_ms: number;
}

/** How one artifact (or the skill's own fields) differs between two drafts. */
export interface ArtifactChangeView {
  /** Stable key: `fields`, or `artifact:<name>` (with `@<model_variant>`). */
  key: string;
  /** `(skill fields)` or the artifact's name. */
  name: string;
  kind: string | null;
  change: 'added' | 'removed' | 'changed';
  /** Unified line diff of the JSON (fields) or the content, with metadata lines. */
  patch: string;
}

/** Reply of `composer/create` and `composer/refine`. */
export interface ComposeRes {
  /** The last draft the model produced (valid when `ok`). */
  draft: Record<string, unknown>;
  /** True when the last draft passed every check. */
  ok: boolean;
  rounds: ComposeRoundView[];
  /** Refine only: the per-artifact changes from the request's draft to this one. */
  changes: ArtifactChangeView[];
  model: string;
}

/** Reply of `composer/apply-changes`. */
export interface ApplyChangesRes {
  draft: Record<string, unknown>;
  /** Problems of the merged draft (empty when it validates). */
  issues: DraftIssueView[];
}

/** The `composer/*` channels. */
export interface ComposerChannels {
  'composer/create': { req: ComposeCreateReq; res: ComposeRes };
  'composer/refine': { req: ComposeRefineReq; res: ComposeRes };
  'composer/apply-changes': { req: ApplyChangesReq; res: ApplyChangesRes };
  'composer/cancel': { req: ComposeCancelReq; res: { cancelled: boolean } };
}

/** Request schemas of the `composer/*` channels. */
export const composerRequestSchemas = {
  'composer/create': ComposeCreateReqSchema,
  'composer/refine': ComposeRefineReqSchema,
  'composer/apply-changes': ApplyChangesReqSchema,
  'composer/cancel': ComposeCancelReqSchema,
};

/** Events of the `composer/*` slice. */
export interface ComposerEvents {
  /** A round of a create or refine run was validated. */
  'composer/round-finished': { run_id: string; max_rounds: number } & ComposeRoundView;
}
