/**
 * A Composer draft is a skill package as JSON whose evals travel inside it as the resource
 * `evals/evals.json` (the Agent Skills form). The model answers `{package, evals}`; this module
 * turns that answer into a draft, and back into the form the model reads.
 */
import { z } from 'zod';
import type { DraftIssueView } from '../contract/composer.js';
import { BUNDLED_FILE_KIND } from '../contract/kinds.js';
import { EVALS_PATH, EvalsFileSchema } from '../skills/index.js';

/** A draft: package JSON, not yet trusted. */
export type Draft = Record<string, unknown>;

/** What the model must answer: a package and its evals. */
export const AgentAnswerSchema = z
  .object({
    package: z.record(z.string(), z.unknown()),
    evals: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]),
  })
  .strict();

type ArtifactLike = Record<string, unknown>;

const artifactsOf = (d: Draft): ArtifactLike[] =>
  Array.isArray(d.artifacts) ? (d.artifacts as ArtifactLike[]).filter((a) => a && typeof a === 'object') : [];

/** Whether an artifact is the bundled evals file. */
export function isEvalsArtifact(a: ArtifactLike): boolean {
  const meta = a.metadata as Record<string, unknown> | null | undefined;
  return a.kind === BUNDLED_FILE_KIND && (meta?.path === EVALS_PATH || a.name === EVALS_PATH);
}

/**
 * The JSON object in a model's reply: the whole text, or the first `{…}` block (models wrap JSON
 * in code fences or a sentence despite being asked not to).
 */
export function extractJson(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  const trimmed = text.trim();
  const candidates = [trimmed];
  const fence = /```(?:json)?\s*([\s\S]*?)```/i.exec(trimmed);
  if (fence) candidates.push(fence[1]!.trim());
  const start = trimmed.indexOf('{');
  const end = trimmed.lastIndexOf('}');
  if (start >= 0 && end > start) candidates.push(trimmed.slice(start, end + 1));
  let last = 'the reply is empty';
  for (const c of candidates) {
    if (!c) continue;
    try {
      return { ok: true, value: JSON.parse(c) };
    } catch (e) {
      last = (e as Error).message;
    }
  }
  return { ok: false, message: `the reply is not a JSON object (${last})` };
}

/** Turn the model's `{package, evals}` into a draft, or say why it cannot. */
export function draftFromAnswer(value: unknown): { draft: Draft | null; issues: DraftIssueView[] } {
  const r = AgentAnswerSchema.safeParse(value);
  if (!r.success) {
    return {
      draft: null,
      issues: r.error.issues.map((i) => ({
        stage: 'json' as const,
        path: i.path.join('.') || '(reply)',
        message:
          i.code === 'unrecognized_keys'
            ? `unknown key(s) ${i.keys.join(', ')}: reply with {"package": …, "evals": …} only`
            : i.message,
      })),
    };
  }
  const evals = Array.isArray(r.data.evals) ? { evals: r.data.evals } : r.data.evals;
  const pkg = { ...r.data.package };
  const artifacts = artifactsOf(pkg).filter((a) => !isEvalsArtifact(a));
  artifacts.push({
    kind: BUNDLED_FILE_KIND,
    name: EVALS_PATH,
    ordinal: artifacts.length,
    content: `${JSON.stringify(evals, null, 2)}\n`,
    metadata: { path: EVALS_PATH },
  });
  pkg.artifacts = artifacts;
  return { draft: pkg, issues: [] };
}

/** The draft as the model reads it: `{package, evals}` with the evals file unpacked. */
export function answerFromDraft(draft: Draft): { package: Draft; evals: unknown } {
  const artifacts = artifactsOf(draft);
  const file = artifacts.find(isEvalsArtifact);
  let evals: unknown = { evals: [] };
  if (file && typeof file.content === 'string') {
    try {
      evals = JSON.parse(file.content);
    } catch {
      evals = file.content;
    }
  }
  const { id: _id, ...rest } = draft;
  return { package: { ...rest, artifacts: artifacts.filter((a) => !isEvalsArtifact(a)) }, evals };
}

/** The evals file of a draft, parsed, or the problems with it. */
export function draftEvals(
  draft: Draft,
): { ok: true; value: z.infer<typeof EvalsFileSchema> } | { ok: false; issues: DraftIssueView[] } {
  const file = artifactsOf(draft).find(isEvalsArtifact);
  if (!file || typeof file.content !== 'string') {
    return {
      ok: false,
      issues: [{ stage: 'evals', path: EVALS_PATH, message: 'the skill has no evals: give 3 to 5' }],
    };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(file.content);
  } catch (e) {
    return { ok: false, issues: [{ stage: 'evals', path: EVALS_PATH, message: (e as Error).message }] };
  }
  const r = EvalsFileSchema.safeParse(raw);
  if (!r.success) {
    return {
      ok: false,
      issues: r.error.issues.map((i) => ({
        stage: 'evals' as const,
        path: `${EVALS_PATH}:${i.path.join('.') || '(file)'}`,
        message: i.message,
      })),
    };
  }
  return { ok: true, value: r.data };
}
