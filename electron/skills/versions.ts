/**
 * Skill history (migration 0008): every change keeps the version it replaces, so any earlier
 * version can be listed, compared with another (artifact by artifact, line by line) and restored.
 */
import { createHash } from 'node:crypto';
import { structuredPatch } from 'diff';
import { AppError } from '../contract/errors.js';
import { type Db, type Skill, type SkillStore, skillNameKey } from '../store/index.js';
import { contentHash } from './content-hash.js';
import { packageToRows, skillToPackage } from './convert.js';
import { type SkillPackage, validatePackage } from './package-schema.js';
import { bumpPatch } from './version.js';

/** What made a version. */
export type VersionOrigin = 'import' | 'save' | 'restore' | 'delete' | 'seed' | 'fork';

/** One entry of a skill's history (number 1 is the oldest kept). */
export interface SkillVersionEntry {
  number: number;
  version: string;
  content_hash: string;
  origin: VersionOrigin;
  note: string | null;
  created_at: string;
}

interface Row {
  id: number;
  name: string;
  version: string;
  package: string;
  content_hash: string;
  origin: VersionOrigin;
  note: string | null;
  created_at: string;
}

/** The canonical JSON of a package and its SHA-256. */
export function packageHash(pkg: SkillPackage): string {
  const { id: _id, ...content } = pkg;
  return createHash('sha256').update(JSON.stringify(content)).digest('hex');
}

/** Keep `skill` as it is now, before a change made by `origin`. */
export function recordVersion(db: Db, skill: Skill, origin: VersionOrigin, note?: string | null): void {
  const pkg = skillToPackage(skill);
  db.prepare(
    `INSERT INTO skill_versions (name_key, name, version, package, content_hash, origin, note, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    skillNameKey(skill.name),
    skill.name,
    skill.version,
    JSON.stringify(pkg),
    packageHash(pkg),
    origin,
    note ?? null,
    new Date().toISOString(),
  );
}

function rows(db: Db, name: string): Row[] {
  return db
    .prepare('SELECT * FROM skill_versions WHERE name_key = ? ORDER BY id')
    .all(skillNameKey(name)) as Row[];
}

/** The kept versions of a skill, oldest first (the current one is not among them). */
export function listVersions(db: Db, name: string): SkillVersionEntry[] {
  return rows(db, name).map((r, i) => ({
    number: i + 1,
    version: r.version,
    content_hash: r.content_hash,
    origin: r.origin,
    note: r.note,
    created_at: r.created_at,
  }));
}

/**
 * One kept version: `ref` is its number in the history (`3`), or the package's version string
 * (`1.2.0`, the newest kept one of that string).
 */
export function readVersion(
  db: Db,
  name: string,
  ref: string,
): { entry: SkillVersionEntry; package: SkillPackage } {
  const all = rows(db, name);
  let index = -1;
  if (/^\d+$/.test(ref)) index = Number(ref) - 1;
  if (index < 0 || index >= all.length) {
    for (let i = all.length - 1; i >= 0; i--) {
      if (all[i]!.version === ref) {
        index = i;
        break;
      }
    }
  }
  const row = all[index];
  if (!row) {
    throw new AppError(
      'NOT_FOUND',
      all.length === 0
        ? `"${name}" has no earlier versions`
        : `"${name}" has no version ${ref}: give a number from 1 to ${all.length} or a version string from its history`,
    );
  }
  return {
    entry: {
      number: index + 1,
      version: row.version,
      content_hash: row.content_hash,
      origin: row.origin,
      note: row.note,
      created_at: row.created_at,
    },
    package: JSON.parse(row.package) as SkillPackage,
  };
}

/** How one artifact differs between two packages. */
export interface ArtifactDiff {
  name: string;
  kind: string;
  model_variant: string | null;
  change: 'added' | 'removed' | 'changed' | 'unchanged';
  /** Unified line diff of the content (`@@` hunks), empty when unchanged. */
  patch: string;
  /** Names of metadata keys that differ. */
  metadata_changed: string[];
}

/** How two packages differ: the skill's fields, then artifact by artifact. */
export interface PackageDiff {
  fields: Array<{ field: string; from: unknown; to: unknown }>;
  artifacts: ArtifactDiff[];
}

const artifactKey = (a: SkillPackage['artifacts'][number]) =>
  `${skillNameKey(a.name)}\u0000${a.model_variant ?? ''}`;

/** Compare two packages (from → to). */
export function diffPackages(from: SkillPackage, to: SkillPackage): PackageDiff {
  const fields: PackageDiff['fields'] = [];
  const keys = new Set([...Object.keys(from), ...Object.keys(to)]);
  for (const k of keys) {
    if (k === 'artifacts' || k === 'id') continue;
    const a = (from as Record<string, unknown>)[k];
    const b = (to as Record<string, unknown>)[k];
    if (JSON.stringify(a) !== JSON.stringify(b)) fields.push({ field: k, from: a ?? null, to: b ?? null });
  }
  const before = new Map(from.artifacts.map((a) => [artifactKey(a), a]));
  const after = new Map(to.artifacts.map((a) => [artifactKey(a), a]));
  const artifacts: ArtifactDiff[] = [];
  const patch = (x: string, y: string, name: string) =>
    structuredPatch(name, name, x, y, '', '', { context: 3 })
      .hunks.map((h) =>
        [`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines].join('\n'),
      )
      .join('\n');
  for (const [key, a] of before) {
    const b = after.get(key);
    if (!b) {
      artifacts.push({
        name: a.name,
        kind: a.kind,
        model_variant: a.model_variant ?? null,
        change: 'removed',
        patch: patch(a.content, '', a.name),
        metadata_changed: [],
      });
      continue;
    }
    const metaKeys = new Set([...Object.keys(a.metadata ?? {}), ...Object.keys(b.metadata ?? {})]);
    const metadata_changed = [...metaKeys].filter(
      (k) => JSON.stringify(a.metadata?.[k]) !== JSON.stringify(b.metadata?.[k]),
    );
    const same =
      a.content === b.content &&
      a.kind === b.kind &&
      metadata_changed.length === 0 &&
      a.state_blob === b.state_blob;
    artifacts.push({
      name: b.name,
      kind: b.kind,
      model_variant: b.model_variant ?? null,
      change: same ? 'unchanged' : 'changed',
      patch: a.content === b.content ? '' : patch(a.content, b.content, b.name),
      metadata_changed:
        a.state_blob === b.state_blob ? metadata_changed : [...metadata_changed, 'state_blob'],
    });
  }
  for (const [key, b] of after) {
    if (before.has(key)) continue;
    artifacts.push({
      name: b.name,
      kind: b.kind,
      model_variant: b.model_variant ?? null,
      change: 'added',
      patch: patch('', b.content, b.name),
      metadata_changed: [],
    });
  }
  return { fields, artifacts };
}

/** What {@link restoreVersion} and {@link forkSkill} wrote. */
export interface WrittenSkill {
  name: string;
  version: string;
}

/**
 * Make a kept version current again, in one transaction: the current skill (if any) is kept as a
 * version first, so a restore can itself be undone.
 */
export function restoreVersion(
  store: SkillStore,
  name: string,
  ref: string,
  note?: string,
): WrittenSkill & { from_number: number } {
  const { entry, package: raw } = readVersion(store.db, name, ref);
  const checked = validatePackage(raw);
  if (!checked.ok) {
    const first = checked.issues[0];
    throw new AppError(
      'INVALID_INPUT',
      `"${name}" version ${entry.number} is no longer a valid package (${first?.path}: ${first?.message})`,
    );
  }
  const pkg = checked.value;
  return store.repo.transaction(() => {
    const current = store.repo.getSkillByName(name);
    if (current) recordVersion(store.db, current, 'restore', note ?? `restored version ${entry.number}`);
    const rows = packageToRows(
      pkg,
      current?.id ?? (pkg.id && !store.repo.getSkill(pkg.id) ? pkg.id : undefined),
    );
    if (current) {
      store.repo.updateSkill(rows.skill);
      store.repo.replaceArtifacts(current.id, rows.artifacts);
    } else {
      store.repo.createSkill(rows.skill);
      for (const a of rows.artifacts) store.repo.addArtifact(a);
    }
    return { name: pkg.name, version: pkg.version, from_number: entry.number };
  });
}

/**
 * Copy a skill into another store as a skill of its own (a new id; a built-in skill becomes the
 * user's). Refused when the target already holds a skill of that name.
 */
export function forkSkill(skill: Skill, target: SkillStore): WrittenSkill {
  if (target.repo.hasSkillNamed(skill.name)) {
    throw new AppError(
      'CONFLICT',
      `The ${target.scope} store already has a skill named "${skill.name}": it already overrides the account one`,
      { name: skill.name, scope: target.scope },
    );
  }
  const { id: _id, ...pkg } = skillToPackage(skill);
  const copy = { ...pkg, source: pkg.source === 'system' ? 'user' : pkg.source } as SkillPackage;
  return target.repo.transaction(() => {
    const rows = packageToRows(copy);
    target.repo.createSkill(rows.skill);
    for (const a of rows.artifacts) target.repo.addArtifact(a);
    return { name: copy.name, version: copy.version };
  });
}

/** Options of {@link savePackage}. */
export interface SaveOptions {
  /** The content hash the editor started from: a skill changed since (elsewhere) is not overwritten. */
  expectedHash?: string;
  note?: string;
}

/**
 * Save an edited package into a store (the Composer's save), in one transaction: the skill it
 * replaces (same id, else same name) is kept as a version first. Saving a built-in skill makes it
 * the user's (`source: "user"`). Changed content under an unchanged version raises the patch
 * version (`version_bumped`), so each kept version is told apart; a version the user changed is
 * kept as written. Returns what was written and its new content hash; saving content equal to the
 * current one changes nothing.
 */
export function savePackage(
  store: SkillStore,
  pkg: SkillPackage,
  opts: SaveOptions = {},
): WrittenSkill & {
  action: 'created' | 'updated' | 'unchanged';
  content_hash: string;
  version_bumped?: boolean;
} {
  let clean: SkillPackage = pkg.source === 'system' ? { ...pkg, source: 'user' } : pkg;
  return store.repo.transaction(() => {
    const byId = clean.id ? store.repo.getSkill(clean.id) : null;
    const existing = byId ?? store.repo.getSkillByName(clean.name);
    const hashOf = (id: string) => {
      const s = store.repo.getSkill(id);
      return s ? packageHash(skillToPackage(s)) : '';
    };
    if (!existing) {
      const rows = packageToRows(clean, clean.id && !store.repo.getSkill(clean.id) ? clean.id : undefined);
      store.repo.createSkill(rows.skill);
      for (const a of rows.artifacts) store.repo.addArtifact(a);
      return {
        name: clean.name,
        version: clean.version,
        action: 'created' as const,
        content_hash: hashOf(rows.skill.id),
      };
    }
    const before = packageHash(skillToPackage(existing));
    const bump =
      clean.version === existing.version &&
      contentHash(clean) !== contentHash(skillToPackage(existing) as SkillPackage);
    if (bump) clean = { ...clean, version: bumpPatch(existing.version) };
    if (opts.expectedHash && opts.expectedHash !== before) {
      throw new AppError(
        'CONFLICT',
        `"${existing.name}" was changed elsewhere since you opened it; reload it (your edit is kept as a draft) and save again`,
        { name: existing.name, content_hash: before },
      );
    }
    recordVersion(store.db, existing, 'save', opts.note);
    const recorded = (store.db.prepare('SELECT last_insert_rowid() AS id').get() as { id: number }).id;
    const rows = packageToRows(clean, existing.id);
    store.repo.updateSkill(rows.skill);
    store.repo.replaceArtifacts(existing.id, rows.artifacts);
    const after = hashOf(existing.id);
    if (after === before) {
      store.db.prepare('DELETE FROM skill_versions WHERE id = ?').run(recorded);
      return { name: clean.name, version: clean.version, action: 'unchanged' as const, content_hash: after };
    }
    return {
      name: clean.name,
      version: clean.version,
      action: 'updated' as const,
      content_hash: after,
      ...(bump ? { version_bumped: true } : {}),
    };
  });
}
