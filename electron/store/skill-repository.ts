import { randomUUID } from 'node:crypto';
import { AppError } from '../contract/errors.js';
import type { ArtifactKindName as ArtifactKind, SkillSource } from '../contract/skills.js';
import type { Db } from './db.js';
import { FRONTMATTER_SQL, type InvocationFields, invocationFields } from './invocation.js';
import { skillNameKey } from './skill-name.js';
import { writeTransaction } from './write-transaction.js';

/** Catalog metadata of a skill (no artifact content). */
export interface SkillSummary {
  id: string;
  name: string;
  description: string;
  version: string;
  tags: string[] | null;
  source: SkillSource;
  author: string | null;
  intent_patterns: string[] | null;
  trigger_phrases: string[] | null;
  when: string | null;
  modalities: string[] | null;
  requires: string[] | null;
  always_on: boolean;
  license: string | null;
  compatibility: string | null;
  metadata: Record<string, string> | null;
  allowed_tools: string | null;
  marketplace_id: string | null;
  sync_etag: string | null;
  created_at: string;
  updated_at: string;
  /** Kinds of the skill's artifacts, in ordinal order, without duplicates. */
  artifact_kinds: ArtifactKind[];
  /** Claude Code's invocation fields from the SKILL.md it was imported from, when it set any. */
  invocation?: InvocationFields;
}

/** One stored artifact. */
export interface SkillArtifact {
  id: string;
  skill_id: string;
  kind: ArtifactKind;
  name: string;
  ordinal: number;
  content: string;
  model_variant: string | null;
  metadata: Record<string, unknown> | null;
  state_blob: Buffer | null;
  created_at: string;
  updated_at: string;
}

/** An artifact without its content. */
export interface ArtifactHeader {
  id: string;
  kind: ArtifactKind;
  name: string;
  ordinal: number;
  model_variant: string | null;
  metadata: Record<string, unknown> | null;
  /** Characters of content. */
  size: number;
}

/** A skill with all its artifacts. */
export interface Skill extends SkillSummary {
  artifacts: SkillArtifact[];
}

/** Fields to write for a skill (timestamps and kinds are the store's). */
export type SkillInput = Omit<SkillSummary, 'created_at' | 'updated_at' | 'artifact_kinds' | 'invocation'>;
/** Fields to write for an artifact. */
export type ArtifactInput = Omit<SkillArtifact, 'created_at' | 'updated_at'>;

interface SkillRow {
  id: string;
  name: string;
  description: string;
  version: string;
  tags: string | null;
  source: SkillSource;
  author: string | null;
  intent_patterns: string | null;
  trigger_phrases: string | null;
  when_to_use: string | null;
  modalities: string | null;
  requires: string | null;
  always_on: number;
  license: string | null;
  compatibility: string | null;
  metadata: string | null;
  allowed_tools: string | null;
  marketplace_id: string | null;
  sync_etag: string | null;
  created_at: string;
  updated_at: string;
  kinds: string | null;
  frontmatter: string | null;
}

interface ArtifactRow extends Omit<SkillArtifact, 'metadata'> {
  metadata: string | null;
}

const SKILL_COLUMNS = `s.id, s.name, s.description, s.version, s.tags, s.source, s.author, s.intent_patterns,
  s.trigger_phrases, s.when_to_use, s.modalities, s.requires, s.always_on, s.license, s.compatibility,
  s.metadata, s.allowed_tools, s.marketplace_id, s.sync_etag, s.created_at, s.updated_at,
  (SELECT group_concat(kind, ',') FROM (SELECT DISTINCT kind FROM skill_artifacts a WHERE a.skill_id = s.id ORDER BY kind)) AS kinds,
  ${FRONTMATTER_SQL} AS frontmatter`;

/**
 * The design's SkillStorageRepository over one `agents.db`: metadata reads without artifact
 * content, artifacts loaded lazily by kind or id, and writes that keep the match index in step.
 */
export class SkillRepository {
  private readonly stmts;

  constructor(readonly db: Db) {
    this.stmts = {
      list: db.prepare(`SELECT ${SKILL_COLUMNS} FROM skills s ORDER BY s.name COLLATE NOCASE, s.name`),
      alwaysOn: db.prepare(`SELECT ${SKILL_COLUMNS} FROM skills s WHERE s.always_on = 1 ORDER BY s.name`),
      byId: db.prepare(`SELECT ${SKILL_COLUMNS} FROM skills s WHERE s.id = ?`),
      idsAfter: db.prepare(`SELECT ${SKILL_COLUMNS} FROM skills s WHERE s.id > ? ORDER BY s.id LIMIT ?`),
      artifactsAfter: db.prepare(
        `SELECT * FROM skill_artifacts WHERE skill_id IN (SELECT id FROM skills WHERE id > ? ORDER BY id LIMIT ?)
          ORDER BY skill_id, ordinal, name, model_variant`,
      ),
      byName: db.prepare(`SELECT ${SKILL_COLUMNS} FROM skills s WHERE s.name = ?`),
      byNameKey: db.prepare(`SELECT ${SKILL_COLUMNS} FROM skills s WHERE s.name_key = ?`),
      hasNameKey: db.prepare('SELECT 1 FROM skills WHERE name_key = ?').pluck(),
      artifactsOf: db.prepare(
        'SELECT * FROM skill_artifacts WHERE skill_id = ? ORDER BY ordinal, name, model_variant',
      ),
      artifact: db.prepare('SELECT * FROM skill_artifacts WHERE id = ?'),
      artifactByName: db.prepare(
        'SELECT * FROM skill_artifacts WHERE skill_id = ? AND name = ? ORDER BY ordinal',
      ),
      headers: db.prepare(
        'SELECT id, kind, name, ordinal, model_variant, metadata, length(content) AS size FROM skill_artifacts WHERE skill_id = ? ORDER BY ordinal, name',
      ),
      insertSkill:
        db.prepare(`INSERT INTO skills (id, name, name_key, description, version, tags, source, author,
        intent_patterns, trigger_phrases, when_to_use, modalities, requires, always_on, license, compatibility,
        metadata, allowed_tools, marketplace_id, sync_etag)
        VALUES (@id, @name, @name_key, @description, @version, @tags, @source, @author, @intent_patterns,
        @trigger_phrases, @when_to_use, @modalities, @requires, @always_on, @license, @compatibility, @metadata,
        @allowed_tools, @marketplace_id, @sync_etag)`),
      updateSkill:
        db.prepare(`UPDATE skills SET name = @name, name_key = @name_key, description = @description,
        version = @version,
        tags = @tags, source = @source, author = @author, intent_patterns = @intent_patterns,
        trigger_phrases = @trigger_phrases, when_to_use = @when_to_use, modalities = @modalities,
        requires = @requires, always_on = @always_on, license = @license, compatibility = @compatibility,
        metadata = @metadata, allowed_tools = @allowed_tools, marketplace_id = @marketplace_id,
        sync_etag = @sync_etag, updated_at = datetime('now') WHERE id = @id`),
      deleteSkill: db.prepare('DELETE FROM skills WHERE id = ?'),
      insertArtifact: db.prepare(`INSERT INTO skill_artifacts (id, skill_id, kind, name, ordinal, content,
        model_variant, metadata, state_blob) VALUES (@id, @skill_id, @kind, @name, @ordinal, @content,
        @model_variant, @metadata, @state_blob)`),
      updateArtifact: db.prepare(`UPDATE skill_artifacts SET kind = @kind, name = @name, ordinal = @ordinal,
        content = @content, model_variant = @model_variant, metadata = @metadata, state_blob = @state_blob,
        updated_at = datetime('now') WHERE id = @id`),
      deleteArtifact: db.prepare('DELETE FROM skill_artifacts WHERE id = ?'),
      deleteArtifactsOf: db.prepare('DELETE FROM skill_artifacts WHERE skill_id = ?'),
      deleteTriggers: db.prepare('DELETE FROM skill_triggers WHERE skill_id = ?'),
      insertTrigger: db.prepare(
        'INSERT OR IGNORE INTO skill_triggers (phrase, skill_id, words) VALUES (?, ?, ?)',
      ),
      count: db.prepare('SELECT count(*) AS n FROM skills'),
    };
  }

  /** All skills in this store, metadata only, ordered by name. */
  listSkills(): SkillSummary[] {
    return (this.stmts.list.all() as SkillRow[]).map(toSummary);
  }

  /** Skills marked always-on (their instructions join every turn). */
  listAlwaysOn(): SkillSummary[] {
    return (this.stmts.alwaysOn.all() as SkillRow[]).map(toSummary);
  }

  /** Number of skills in this store. */
  countSkills(): number {
    return (this.stmts.count.get() as { n: number }).n;
  }

  /** A skill by id with all its artifacts, or null. */
  getSkill(skillId: string): Skill | null {
    const row = this.stmts.byId.get(skillId) as SkillRow | undefined;
    return row ? this.withArtifacts(row) : null;
  }

  /**
   * Up to `limit` skills with ids after `after`, in id order, with all their artifacts: what
   * {@link getSkill} gives for each, read in two statements instead of two per skill (a listing
   * of 10,000 skills spent a second on per-skill statements).
   */
  getSkillsAfter(after: string, limit: number): Skill[] {
    return this.db.transaction(() => {
      const rows = this.stmts.idsAfter.all(after, limit) as SkillRow[];
      const arts = new Map<string, SkillArtifact[]>();
      for (const a of this.stmts.artifactsAfter.all(after, limit) as ArtifactRow[]) {
        const list = arts.get(a.skill_id);
        if (list) list.push(toArtifact(a));
        else arts.set(a.skill_id, [toArtifact(a)]);
      }
      return rows.map((r) => ({ ...toSummary(r), artifacts: arts.get(r.id) ?? [] }));
    })();
  }

  /**
   * A skill by name with its artifacts, or null. Names compare by {@link skillNameKey} (NFKC, full
   * case folding); an exact match wins, which only matters for two names a store held before they
   * compared equal.
   */
  getSkillByName(name: string): Skill | null {
    const row = this.rowByName(name);
    return row ? this.withArtifacts(row) : null;
  }

  /** Metadata of a skill by name (compared as {@link getSkillByName} does), without artifacts. */
  getSummaryByName(name: string): SkillSummary | null {
    const row = this.rowByName(name);
    return row ? toSummary(row) : null;
  }

  /** True when this store holds a skill of this name (compared by {@link skillNameKey}). */
  hasSkillNamed(name: string): boolean {
    const key = skillNameKey(name);
    return this.stmts.hasNameKey.get(key) !== undefined || this.stmts.byName.get(name) !== undefined;
  }

  private rowByName(name: string): SkillRow | undefined {
    const row = this.stmts.byName.get(name) ?? this.stmts.byNameKey.get(skillNameKey(name));
    return row as SkillRow | undefined;
  }

  /** Artifacts of a skill, optionally only some kinds, in ordinal order. */
  getArtifacts(skillId: string, kinds: readonly ArtifactKind[] = []): SkillArtifact[] {
    const all = (this.stmts.artifactsOf.all(skillId) as ArtifactRow[]).map(toArtifact);
    return kinds.length === 0 ? all : all.filter((a) => kinds.includes(a.kind));
  }

  /** The rows (model variants) of one artifact by name: only these are loaded. */
  getArtifactsByName(skillId: string, name: string): SkillArtifact[] {
    return (this.stmts.artifactByName.all(skillId, name) as ArtifactRow[]).map(toArtifact);
  }

  /** Artifact names, kinds, sizes and metadata without their content (for listings). */
  listArtifactHeaders(skillId: string): ArtifactHeader[] {
    return (
      this.stmts.headers.all(skillId) as Array<Omit<ArtifactHeader, 'metadata'> & { metadata: string | null }>
    ).map((h) => ({
      ...h,
      metadata: parseJson(h.metadata),
    }));
  }

  /** One artifact by id, or null. */
  getArtifact(artifactId: string): SkillArtifact | null {
    const row = this.stmts.artifact.get(artifactId) as ArtifactRow | undefined;
    return row ? toArtifact(row) : null;
  }

  /** Insert a skill row (without artifacts). A name already in the store (by key) is a CONFLICT. */
  createSkill(skill: SkillInput): void {
    this.writeName(skill.name, () => this.stmts.insertSkill.run(toRow(skill)));
    // A row just inserted has no trigger phrases yet (they reference it): nothing to delete first.
    this.insertTriggers(skill.id, skill.trigger_phrases);
  }

  /** Update a skill's metadata. Renaming onto another skill's name (by key) is a CONFLICT. */
  updateSkill(skill: SkillInput): void {
    this.writeName(skill.name, () => this.stmts.updateSkill.run(toRow(skill)));
    this.writeTriggers(skill.id, skill.trigger_phrases);
  }

  /** Delete a skill and (by cascade) its artifacts. Returns whether it existed. */
  deleteSkill(skillId: string): boolean {
    return this.stmts.deleteSkill.run(skillId).changes > 0;
  }

  /** Add an artifact to a skill. */
  addArtifact(artifact: ArtifactInput): void {
    this.stmts.insertArtifact.run(toArtifactRow(artifact));
  }

  /** Update an artifact in place. */
  updateArtifact(artifact: ArtifactInput): void {
    this.stmts.updateArtifact.run(toArtifactRow(artifact));
  }

  /** Delete one artifact. Returns whether it existed. */
  deleteArtifact(artifactId: string): boolean {
    return this.stmts.deleteArtifact.run(artifactId).changes > 0;
  }

  /** Replace every artifact of a skill (used by import updates). */
  replaceArtifacts(skillId: string, artifacts: ArtifactInput[]): void {
    this.stmts.deleteArtifactsOf.run(skillId);
    for (const a of artifacts) this.addArtifact(a);
  }

  /**
   * Run `fn` in one write transaction holding the write lock from the start (nested calls become
   * savepoints); see {@link writeTransaction}.
   */
  transaction<T>(fn: () => T): T {
    return writeTransaction(this.db, fn);
  }

  private writeName(name: string, write: () => unknown): void {
    try {
      write();
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      if (code === 'SQLITE_CONSTRAINT_UNIQUE' && /skills\.name/.test((e as Error).message)) {
        throw new AppError(
          'CONFLICT',
          `A skill named "${name}" (or one that differs only in letter case or width) is already in this store; choose another name`,
          { name },
        );
      }
      throw e;
    }
  }

  private withArtifacts(row: SkillRow): Skill {
    return { ...toSummary(row), artifacts: this.getArtifacts(row.id) };
  }

  private writeTriggers(skillId: string, phrases: string[] | null): void {
    this.stmts.deleteTriggers.run(skillId);
    this.insertTriggers(skillId, phrases);
  }

  private insertTriggers(skillId: string, phrases: string[] | null): void {
    for (const p of phrases ?? []) {
      const norm = normalizePhrase(p);
      if (norm) this.stmts.insertTrigger.run(norm, skillId, norm.split(' ').length);
    }
  }
}

/** Lower-case words joined by single spaces: how trigger phrases and messages are compared. */
export function normalizePhrase(text: string): string {
  return (
    text
      .toLowerCase()
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .match(/[\p{L}\p{N}]+/gu) ?? []
  ).join(' ');
}

/** A new random id for a skill or artifact. */
export function newId(): string {
  return randomUUID();
}

const parseJson = <T>(s: string | null): T | null => (s == null ? null : (JSON.parse(s) as T));
const toJson = (v: unknown): string | null => (v == null ? null : JSON.stringify(v));

function toSummary(r: SkillRow): SkillSummary {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    version: r.version,
    tags: parseJson(r.tags),
    source: r.source,
    author: r.author,
    intent_patterns: parseJson(r.intent_patterns),
    trigger_phrases: parseJson(r.trigger_phrases),
    when: r.when_to_use,
    modalities: parseJson(r.modalities),
    requires: parseJson(r.requires),
    always_on: r.always_on === 1,
    license: r.license,
    compatibility: r.compatibility,
    metadata: parseJson(r.metadata),
    allowed_tools: r.allowed_tools,
    marketplace_id: r.marketplace_id,
    sync_etag: r.sync_etag,
    created_at: r.created_at,
    updated_at: r.updated_at,
    artifact_kinds: (r.kinds ? r.kinds.split(',') : []) as ArtifactKind[],
    ...invocationOf(r.frontmatter),
  };
}

function invocationOf(frontmatter: string | null): { invocation?: InvocationFields } {
  const f = invocationFields(frontmatter);
  return f ? { invocation: f } : {};
}

function toRow(s: SkillInput) {
  return {
    id: s.id,
    name: s.name,
    name_key: skillNameKey(s.name),
    description: s.description,
    version: s.version,
    tags: toJson(s.tags),
    source: s.source,
    author: s.author,
    intent_patterns: toJson(s.intent_patterns),
    trigger_phrases: toJson(s.trigger_phrases),
    when_to_use: s.when,
    modalities: toJson(s.modalities),
    requires: toJson(s.requires),
    always_on: s.always_on ? 1 : 0,
    license: s.license,
    compatibility: s.compatibility,
    metadata: toJson(s.metadata),
    allowed_tools: s.allowed_tools,
    marketplace_id: s.marketplace_id,
    sync_etag: s.sync_etag,
  };
}

function toArtifact(r: ArtifactRow): SkillArtifact {
  return { ...r, metadata: parseJson(r.metadata) };
}

function toArtifactRow(a: ArtifactInput) {
  return {
    id: a.id,
    skill_id: a.skill_id,
    kind: a.kind,
    name: a.name,
    ordinal: a.ordinal,
    content: a.content,
    model_variant: a.model_variant,
    metadata: toJson(a.metadata),
    state_blob: a.state_blob,
  };
}
