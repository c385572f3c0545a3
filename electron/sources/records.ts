/**
 * What a store knows about its sources: the subscriptions (`skill_sources`) and, per installed
 * skill, what was accepted (`source_skills`: revision, upstream hash, the SHA-256 of each file as
 * stored, permissions and scan report). Both tables live in the store the source installs into,
 * so a workspace's sources travel with its `agents.db`.
 */
import { createHash } from 'node:crypto';
import { type SkillPackage, skillToAgentFiles, skillToPackage } from '../skills/index.js';
import { type Db, loadMigrations, type Skill, skillNameKey, writeTransaction } from '../store/index.js';
import type { SkillPermissions } from './permissions.js';
import type { ModelReview } from './review.js';
import type { ScanReport } from './scan.js';

/**
 * Migration 0017 creates the source tables; a store opened with an explicit older migration set
 * (tests of earlier migrations) gets them here on first use, from that migration's own SQL (its
 * statements are `IF NOT EXISTS`), so the schema is written down once.
 */
export function ensureSourceTables(db: Db): void {
  const have = db
    .prepare(
      "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('skill_sources', 'source_skills')",
    )
    .get() as { n: number };
  if (have.n === 2) return;
  const migration = loadMigrations().find((m) => m.name === 'skill_sources');
  if (!migration) throw new Error('migration 0017_skill_sources.sql is missing');
  writeTransaction(db, () => db.exec(migration.sql));
}

/** A subscription. */
export interface SourceRow {
  id: string;
  kind: 'git' | 'catalog';
  url: string;
  ref: string | null;
  subdir: string | null;
  marketplace_id: string | null;
  sync_etag: string | null;
  revision: string | null;
  snapshot: string | null;
  checked_at: string | null;
  check_error: string | null;
  created_at: string;
}

/** One skill as fetched by the last check (what `update` installs, so what was shown is what lands). */
export interface Snapshot {
  revision: string;
  etag: string | null;
  marketplace_id: string | null;
  packages: Array<{ file: string; pkg: SkillPackage }>;
  invalid: Array<{ file: string; error: string }>;
  /** Model reviews made at this check (`--review`), by folded skill name, for the package hash reviewed. */
  reviews?: Record<string, ModelReview & { hash: string }>;
}

/** One file of a stored skill: its path in the Agent Skills form and its SHA-256 (SEP-2640). */
export interface FileDigest {
  path: string;
  digest: string;
  size: number;
}

/** What was accepted for one installed skill. */
export interface InstalledRecord {
  source_id: string;
  name: string;
  revision: string;
  upstream_hash: string;
  files: FileDigest[];
  content_hash: string;
  permissions: SkillPermissions;
  scan: ScanReport;
  accepted_risk: boolean;
  installed_at: string;
}

export function listSources(db: Db): SourceRow[] {
  ensureSourceTables(db);
  return db.prepare('SELECT * FROM skill_sources ORDER BY id').all() as SourceRow[];
}

export function getSource(db: Db, id: string): SourceRow | null {
  ensureSourceTables(db);
  return (db.prepare('SELECT * FROM skill_sources WHERE id = ?').get(id) as SourceRow | undefined) ?? null;
}

export function insertSource(db: Db, row: SourceRow): void {
  db.prepare(
    `INSERT INTO skill_sources (id, kind, url, ref, subdir, marketplace_id, sync_etag, revision, snapshot, checked_at, check_error, created_at)
     VALUES (@id, @kind, @url, @ref, @subdir, @marketplace_id, @sync_etag, @revision, @snapshot, @checked_at, @check_error, @created_at)`,
  ).run(row);
}

export function updateSource(db: Db, id: string, patch: Partial<Omit<SourceRow, 'id'>>): void {
  const keys = Object.keys(patch);
  if (keys.length === 0) return;
  db.prepare(`UPDATE skill_sources SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`).run({
    ...patch,
    id,
  });
}

export function deleteSource(db: Db, id: string): void {
  db.prepare('DELETE FROM source_skills WHERE source_id = ?').run(id);
  db.prepare('DELETE FROM skill_sources WHERE id = ?').run(id);
}

interface RecordRow {
  source_id: string;
  name_key: string;
  name: string;
  revision: string;
  upstream_hash: string;
  files: string;
  content_hash: string;
  permissions: string;
  scan: string;
  accepted_risk: number;
  installed_at: string;
}

const fromRow = (r: RecordRow): InstalledRecord => ({
  source_id: r.source_id,
  name: r.name,
  revision: r.revision,
  upstream_hash: r.upstream_hash,
  files: JSON.parse(r.files) as FileDigest[],
  content_hash: r.content_hash,
  permissions: JSON.parse(r.permissions) as SkillPermissions,
  scan: JSON.parse(r.scan) as ScanReport,
  accepted_risk: r.accepted_risk === 1,
  installed_at: r.installed_at,
});

/** The installed skills of a source (or of every source), by folded name. */
export function listRecords(db: Db, sourceId?: string): InstalledRecord[] {
  ensureSourceTables(db);
  const rows = (
    sourceId
      ? db.prepare('SELECT * FROM source_skills WHERE source_id = ? ORDER BY name_key').all(sourceId)
      : db.prepare('SELECT * FROM source_skills ORDER BY name_key').all()
  ) as RecordRow[];
  return rows.map(fromRow);
}

/** The record of the skill named `name`, from whichever source installed it. */
export function recordOf(db: Db, name: string): InstalledRecord | null {
  // Read on every run of a skill: a store that never had a source is not written to here.
  if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'source_skills'").get())
    return null;
  const r = db.prepare('SELECT * FROM source_skills WHERE name_key = ? LIMIT 1').get(skillNameKey(name)) as
    | RecordRow
    | undefined;
  return r ? fromRow(r) : null;
}

export function upsertRecord(db: Db, rec: InstalledRecord): void {
  db.prepare(
    `INSERT INTO source_skills (source_id, name_key, name, revision, upstream_hash, files, content_hash, permissions, scan, accepted_risk, installed_at)
     VALUES (@source_id, @name_key, @name, @revision, @upstream_hash, @files, @content_hash, @permissions, @scan, @accepted_risk, @installed_at)
     ON CONFLICT (source_id, name_key) DO UPDATE SET name = excluded.name, revision = excluded.revision,
       upstream_hash = excluded.upstream_hash, files = excluded.files, content_hash = excluded.content_hash,
       permissions = excluded.permissions, scan = excluded.scan, accepted_risk = excluded.accepted_risk,
       installed_at = excluded.installed_at`,
  ).run({
    ...rec,
    name_key: skillNameKey(rec.name),
    files: JSON.stringify(rec.files),
    permissions: JSON.stringify(rec.permissions),
    scan: JSON.stringify(rec.scan),
    accepted_risk: rec.accepted_risk ? 1 : 0,
  });
}

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/**
 * The SHA-256 of every file of a stored skill in its Agent Skills form — the digests `mcp serve`
 * publishes (SEP-2640) — and one hash over them all. A skill that cannot be written as files (an
 * unsafe path) is digested as its JSON package, so it is still pinned.
 */
export function skillDigests(skill: Skill): { files: FileDigest[]; content_hash: string } {
  let files: FileDigest[];
  try {
    const asFiles = skillToAgentFiles(skill).files;
    files = [...asFiles]
      .map(([path, bytes]) => ({ path, digest: `sha256:${sha256(bytes)}`, size: bytes.length }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  } catch {
    const json = Buffer.from(JSON.stringify(skillToPackage(skill)));
    files = [{ path: 'package.json', digest: `sha256:${sha256(json)}`, size: json.length }];
  }
  const content_hash = sha256(files.map((f) => `${f.path}\u0000${f.digest}\n`).join(''));
  return { files, content_hash };
}

/** The paths whose digest differs between an accepted record and the skill as stored now. */
export function changedFiles(accepted: FileDigest[], now: FileDigest[]): string[] {
  const before = new Map(accepted.map((f) => [f.path, f.digest]));
  const after = new Map(now.map((f) => [f.path, f.digest]));
  const out = new Set<string>();
  for (const [p, d] of before) if (after.get(p) !== d) out.add(p);
  for (const p of after.keys()) if (!before.has(p)) out.add(p);
  return [...out].sort();
}
