import * as crypto from 'node:crypto';
import { createHash } from 'node:crypto';
import type { SkillPackage } from './package-schema.js';

/**
 * Fields that say where a copy came from rather than what the skill is: a changed etag alone is
 * not an update of the skill.
 */
const BOOKKEEPING = new Set(['id', 'version', 'sync_etag', 'artifacts']);

/**
 * JSON with object keys sorted at every depth (for comparing values, not for display). Written
 * as loops over one string: every import hashes each package (and the installed copy on an
 * update), and the entries/filter/map/join arrays this made per object were most of its cost.
 */
export function sortedJson(v: unknown): string {
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out += ',';
      // A hole reads as nothing, as Array.prototype.join renders it.
      if (i in v) out += sortedJson(v[i]);
    }
    return `${out}]`;
  }
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    // Default sort order is by UTF-16 code units, the order `<` gives strings.
    const keys = Object.keys(o).sort();
    let out = '{';
    let first = true;
    for (const k of keys) {
      const x = o[k];
      if (x === undefined) continue;
      if (!first) out += ',';
      first = false;
      out += `${JSON.stringify(k)}:${sortedJson(x)}`;
    }
    return `${out}}`;
  }
  return JSON.stringify(v ?? null);
}

// The one-shot `crypto.hash` (Node 20.12+) skips the Hash object a `createHash` chain builds and
// frees per call: a third of a content hash's cost on a bulk import. Same digest either way.
const oneShot = (crypto as { hash?: (alg: string, data: string, enc: 'hex') => string }).hash;
const sha256Hex = (text: string): string =>
  oneShot ? oneShot('sha256', text, 'hex') : createHash('sha256').update(text).digest('hex');

const emptyToNull = (m: unknown) =>
  m && typeof m === 'object' && !Array.isArray(m) && Object.keys(m).length === 0 ? null : (m ?? null);

/**
 * The SHA-256 of what a package says, not of how it was written down: its id, version and etag
 * left out, defaults applied (`source` "user", an artifact's ordinal its position), absent and
 * empty values (lists, metadata) alike, keys sorted, artifacts in the store's order. An import compares this, so a
 * skill whose content changed is an update whatever its version says, and a re-import of the same
 * content is unchanged whatever its formatting.
 */
export function contentHash(pkg: SkillPackage): string {
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(pkg)) {
    if (BOOKKEEPING.has(k) || v == null) continue;
    if (k === 'always_on' && v === false) continue;
    // An empty list says what no list says (and block-style YAML has no empty list to write).
    if (Array.isArray(v) && v.length === 0) continue;
    if (k === 'metadata' && emptyToNull(v) === null) continue;
    fields[k] = v;
  }
  fields.source = pkg.source ?? 'user';
  const artifacts = pkg.artifacts
    .map((a, i) => ({
      kind: a.kind,
      name: a.name,
      ordinal: a.ordinal ?? i,
      model_variant: a.model_variant ?? null,
      content: a.content,
      metadata: emptyToNull(a.metadata),
      state_blob: a.state_blob ?? null,
    }))
    .sort(
      (a, b) =>
        a.ordinal - b.ordinal ||
        (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
        (a.model_variant ?? '').localeCompare(b.model_variant ?? ''),
    );
  return sha256Hex(sortedJson({ ...fields, artifacts }));
}
