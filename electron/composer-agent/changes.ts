/**
 * A refinement as a list of per-artifact changes the user accepts or rejects one by one: the
 * skill's own fields are one change, each artifact (the evals file included) another.
 */
import { structuredPatch } from 'diff';
import type { ArtifactChangeView } from '../contract/composer.js';
import { diffPackages, type SkillPackage } from '../skills/index.js';
import type { Draft } from './draft.js';

type ArtifactLike = Record<string, unknown> & { name: string };

/** The key of the skill's own fields (name, description, triggers …). */
export const FIELDS_KEY = 'fields';

/** The change key of an artifact: its name, and model variant when it has one. */
export function artifactChangeKey(a: { name: string; model_variant?: unknown }): string {
  return `artifact:${a.name}${typeof a.model_variant === 'string' && a.model_variant ? `@${a.model_variant}` : ''}`;
}

const artifactsOf = (d: Draft): ArtifactLike[] =>
  Array.isArray(d.artifacts)
    ? (d.artifacts as ArtifactLike[]).filter((a) => a && typeof a === 'object' && typeof a.name === 'string')
    : [];

const fieldsOf = (d: Draft) => {
  const { artifacts: _a, id: _id, ...rest } = d;
  return rest;
};

/** The fields in one order (the editor and the model write keys in different orders). */
const sortedFields = (d: Draft) =>
  Object.fromEntries(Object.entries(fieldsOf(d)).sort(([a], [b]) => a.localeCompare(b)));

/** How `proposed` differs from `base`, artifact by artifact (unchanged ones left out). */
export function diffDrafts(base: Draft, proposed: Draft): ArtifactChangeView[] {
  const asPkg = (d: Draft) =>
    ({
      ...d,
      artifacts: artifactsOf(d).map((a) => ({ ...a, content: String(a.content ?? '') })),
    }) as SkillPackage;
  const diff = diffPackages(asPkg(base), asPkg(proposed));
  const out: ArtifactChangeView[] = [];
  if (diff.fields.length > 0) {
    const before = `${JSON.stringify(sortedFields(base), null, 2)}\n`;
    const after = `${JSON.stringify(sortedFields(proposed), null, 2)}\n`;
    out.push({
      key: FIELDS_KEY,
      name: '(skill fields)',
      kind: null,
      change: 'changed',
      patch: patch(before, after),
    });
  }
  for (const a of diff.artifacts) {
    if (a.change === 'unchanged') continue;
    const meta = a.metadata_changed.length ? `metadata changed: ${a.metadata_changed.join(', ')}\n` : '';
    out.push({
      key: artifactChangeKey(a),
      name: a.name,
      kind: a.kind,
      change: a.change,
      // "\ No newline at end of file" says nothing to an author.
      patch: `${meta}${a.patch
        .split('\n')
        .filter((l) => !l.startsWith('\\'))
        .join('\n')}`,
    });
  }
  return out;
}

function patch(x: string, y: string): string {
  return structuredPatch('a', 'b', x, y, '', '', { context: 3 })
    .hunks.map((h) =>
      [`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines].join('\n'),
    )
    .join('\n');
}

/**
 * Keep the accepted changes of `proposed` over `base`: accepted fields replace the base's
 * fields; an accepted artifact is added, replaced or removed; everything else stays as in `base`.
 * Artifacts keep the proposal's order where it has them, new ones where the proposal put them.
 */
export function applyChanges(base: Draft, proposed: Draft, accept: readonly string[]): Draft {
  const ok = new Set(accept);
  const out: Draft = ok.has(FIELDS_KEY) ? { ...fieldsOf(proposed) } : { ...fieldsOf(base) };
  if (base.id !== undefined) out.id = base.id;
  const before = new Map(artifactsOf(base).map((a) => [artifactChangeKey(a), a]));
  const after = new Map(artifactsOf(proposed).map((a) => [artifactChangeKey(a), a]));
  const result: ArtifactLike[] = [];
  for (const [key, a] of before) {
    if (!after.has(key)) {
      if (!ok.has(key)) result.push(a); // a rejected removal keeps it
      continue;
    }
    result.push(ok.has(key) ? after.get(key)! : a);
  }
  // Accepted additions go after the artifact that precedes them in the proposal.
  const order = [...after.keys()];
  for (const [key, a] of after) {
    if (before.has(key) || !ok.has(key)) continue;
    const prev = order.slice(0, order.indexOf(key)).reverse();
    const anchor = prev.map((k) => result.findIndex((r) => artifactChangeKey(r) === k)).find((i) => i >= 0);
    result.splice(anchor === undefined ? result.length : anchor + 1, 0, a);
  }
  out.artifacts = result.map((a, i) => ({ ...a, ordinal: i }));
  return out;
}
