import { createHash } from 'node:crypto';
import type { Db } from '../store/index.js';
import {
  FRONTMATTER_SQL,
  invocationFields,
  normalizePhrase,
  skillNameKey,
  writeTransaction,
} from '../store/index.js';
import { quantize, type StaticEmbedding, staticEmbedding } from './embedding.js';
import { STOPWORDS, stem, words } from './text.js';

/**
 * The indexed fields of a skill, in posting order. `description` also holds the skill's "when to
 * use" guidance; `instructions` is the start of its approach and examples, its description
 * artifacts and the names of its artifacts and bundled files (vocabulary a request often shares
 * with the body of a skill, not its summary).
 */
export const INDEX_FIELDS = [
  'name',
  'description',
  'tags',
  'intent_patterns',
  'trigger_phrases',
  'instructions',
] as const;
/** One indexed field. */
export type IndexField = (typeof INDEX_FIELDS)[number];
const F = INDEX_FIELDS.length;

/** BM25F field weights and length normalisation (chosen on the harness's tuning split). */
export const FIELD_WEIGHTS: Readonly<Record<IndexField, number>> = {
  name: 3,
  description: 2,
  tags: 2,
  intent_patterns: 2,
  trigger_phrases: 2.5,
  instructions: 0.4,
};
const FIELD_B: Readonly<Record<IndexField, number>> = {
  name: 0.75,
  description: 0.75,
  tags: 0.3,
  intent_patterns: 0.5,
  trigger_phrases: 0.5,
  instructions: 0.75,
};
const WEIGHTS = INDEX_FIELDS.map((f) => FIELD_WEIGHTS[f]);
const BS = INDEX_FIELDS.map((f) => FIELD_B[f]);

// How much of a skill's body is indexed: the start says what it is for; the rest is procedure.
const BODY_CHARS = { approach: 3000, example: 800, description: 1500 } as const;

/** One skill in the index. */
export interface IndexedSkill {
  id: string;
  name: string;
  /** The name's {@link skillNameKey} (NFKC, case folded): how the workspace hides an account skill. */
  key: string;
  /** Distinct stems per field. */
  terms: string[];
  lengths: number[];
  /** Normalised trigger phrases. */
  triggers: string[];
}

interface SkillRow {
  id: string;
  name: string;
  description: string;
  when_to_use: string | null;
  tags: string | null;
  intent_patterns: string | null;
  trigger_phrases: string | null;
  frontmatter: string | null;
}

/** Columns of a skill the index reads (the skill aliased `s`). */
const INDEX_COLUMNS = `s.id, s.name, s.description, s.when_to_use, s.tags, s.intent_patterns, s.trigger_phrases,
  ${FRONTMATTER_SQL} AS frontmatter`;

/** Whether phase 1 may match a skill: not when its SKILL.md set `disable-model-invocation: true`. */
function modelInvocable(row: SkillRow): boolean {
  return invocationFields(row.frontmatter)?.model_invocable !== false;
}

interface ArtifactRow {
  skill_id: string;
  kind: string;
  name: string;
  head: string;
  path: string | null;
}

const list = (json: string | null): string[] => {
  if (!json) return [];
  const v = JSON.parse(json) as unknown;
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
};

/** The text of each field of a skill, as indexed. */
export function fieldTexts(row: SkillRow, artifacts: ArtifactRow[]): string[] {
  const body: string[] = [];
  for (const a of artifacts) {
    body.push(a.name.replace(/[._/-]+/g, ' '));
    if (a.path) body.push(a.path.replace(/[._/-]+/g, ' '));
    if (a.kind === 'approach' || a.kind === 'example' || a.kind === 'description') body.push(a.head);
  }
  return [
    row.name.replace(/[._-]+/g, ' '),
    [row.description, row.when_to_use ?? ''].join(' \n'),
    list(row.tags).join(' | '),
    list(row.intent_patterns).join(' | '),
    list(row.trigger_phrases).join(' | '),
    body.join(' \n'),
  ];
}

/** How much of a skill's instructions its embedding reads (the start says what it is for). */
const EMBED_BODY_CHARS = 400;

/**
 * The text a skill's embedding is computed from: name, description and "when", tags, intent
 * patterns, trigger phrases, the start of its instructions and its file names.
 */
export function embeddingText(row: SkillRow, artifacts: ArtifactRow[]): string {
  const body: string[] = [];
  for (const a of artifacts) {
    if (a.kind === 'approach' || a.kind === 'description') body.push(a.head.slice(0, EMBED_BODY_CHARS));
    else if (a.kind === 'resource' && a.path) body.push(a.path.replace(/[._/-]+/g, ' '));
  }
  return [
    row.name.replace(/[._-]+/g, ' '),
    row.description,
    row.when_to_use ?? '',
    list(row.tags).join(', '),
    list(row.intent_patterns).join('; '),
    list(row.trigger_phrases).join('; '),
    body.join(' '),
  ]
    .filter(Boolean)
    .join('\n');
}

/**
 * An in-memory BM25F index of one store's skills, kept in step with the database through the
 * `skill_index_log` table (written by triggers, so every writer — this connection, another one,
 * another process — is seen). Before each use, {@link sync} reads the log's head (one indexed
 * lookup); when it moved, only the changed skills are reloaded, or everything when many changed.
 */
/** SQL: the skill is not internal (see {@link isInternalSkill}). */
const NOT_INTERNAL = "coalesce(json_extract(s.metadata, '$.internal'), '') <> 'true'";

/** Whether a skill's metadata marks it internal: used by a feature of the app, never matched or listed for users. */
export function isInternalSkill(metadata: Record<string, unknown> | null | undefined): boolean {
  return metadata?.internal === 'true';
}

export class SkillIndex {
  /** Skills by slot; null marks a free slot. */
  readonly docs: Array<IndexedSkill | null> = [];
  /** Stem → flat [slot, field, tf, slot, field, tf, …], ordered by slot. */
  readonly postings = new Map<string, number[]>();
  /** Stem → how many skills contain it. */
  readonly df = new Map<string, number>();
  /** Normalised trigger phrase → slots. */
  readonly triggers = new Map<string, number[]>();
  /**
   * At least the word count of the longest trigger phrase indexed (never lowered until a
   * rebuild): a match builds only message runs that long, not every run of up to twelve words.
   */
  triggerWords = 0;
  /** Lower-cased name → slot. */
  readonly byKey = new Map<string, number>();
  /** Surface word → how many skills use it (for spelling correction). */
  readonly surface = new Map<string, number>();
  /**
   * One-letter deletions of the surface words (and the words themselves) → those words: two
   * words one insertion, deletion, substitution or transposition apart share an entry.
   */
  readonly deletes = new Map<string, string[]>();
  /**
   * Per slot and field: weight / length normalisation, recomputed whenever the index changes
   * (with room for more slots past the last).
   */
  norms = new Float64Array(0);
  /** Per slot: how many words its name has (a typed copy, read on every match). */
  nameLengths = new Float64Array(0);
  live = 0;
  /** The shipped static embedding, or null (phase 1 then ranks lexically). */
  readonly embedding: StaticEmbedding | null;
  /**
   * Per slot: the skill's embedding, `embedding.dims` int8 components (all zero when none), kept
   * contiguous for the semantic recall stage's scan. Set whenever a skill is indexed: its saved
   * vector (`skill_embeddings`) when its text is unchanged, else embedded then and saved, so each
   * skill is embedded once, when it is imported or saved (or on the first index build after).
   */
  vectors = new Int8Array(0);
  private embedded = new Uint8Array(0);
  /** Bumped on every change (caches derived from the index compare it). */
  generation = 0;
  /**
   * The slots each of the last generations changed (null: all of them, a rebuild), so a cache
   * derived from the index can catch up with a change at the cost of the change.
   */
  private journal: Array<{ generation: number; slots: number[] | null }> = [];
  /** The slots the current sync touched (null: a rebuild). */
  private touched: Set<number> | null = null;
  /** Per slot and field: the field's length in words (zero for a free slot), and their sums. */
  private lengthBySlot = new Float64Array(0);
  private readonly lengthTotals = new Float64Array(F);
  private readonly free: number[] = [];
  private readonly bySkillId = new Map<string, number>();
  private lastSeq = -1;
  /** Bumped when a full build starts, so a sliced build sees that another one replaced it. */
  private rebuilds = 0;
  private readonly s;

  private readonly vectorStore: VectorStore | null;

  constructor(
    readonly db: Db,
    embedding: StaticEmbedding | null = staticEmbedding(),
  ) {
    this.embedding = embedding;
    this.vectorStore = embedding ? VectorStore.open(db, embedding) : null;
    this.s = {
      head: db.prepare('SELECT coalesce(max(seq), 0) FROM skill_index_log').pluck(),
      since: db.prepare('SELECT seq, skill_id FROM skill_index_log WHERE seq > ? ORDER BY seq'),
      oldest: db.prepare('SELECT min(seq) FROM skill_index_log').pluck(),
      // Internal skills (metadata `internal: "true"`: the Composer's and the eval judge's own
      // instructions) are loaded by name by their features and never matched for a user's message.
      // A skill whose SKILL.md says `disable-model-invocation: true` (Claude Code's field) is
      // dropped after the read (see modelInvocable): it is started by name only.
      all: db.prepare(`SELECT ${INDEX_COLUMNS} FROM skills s WHERE ${NOT_INTERNAL}`),
      one: db.prepare(`SELECT ${INDEX_COLUMNS} FROM skills s WHERE s.id = ? AND ${NOT_INTERNAL}`),
      allArtifacts: db.prepare(artifactSql('')),
      artifactsOf: db.prepare(artifactSql('WHERE skill_id = ?')),
    };
  }

  /** Bring the index up to date with the database. Returns whether anything changed. */
  sync(): boolean {
    const head = this.s.head.get() as number;
    if (head === this.lastSeq) return false;
    const oldest = (this.s.oldest.get() as number | null) ?? head;
    const changed =
      this.lastSeq < 0 || oldest > this.lastSeq + 1
        ? null
        : new Set((this.s.since.all(this.lastSeq) as Array<{ skill_id: string }>).map((r) => r.skill_id));
    let slots: number[] | null = null;
    if (changed === null || changed.size > Math.max(200, this.live / 10)) this.rebuild();
    else {
      this.touched = new Set();
      for (const id of [...changed].sort()) this.reload(id);
      slots = [...this.touched];
      this.touched = null;
    }
    this.vectorStore?.flush();
    this.lastSeq = head;
    this.renorm();
    this.generation++;
    this.journal.push({ generation: this.generation, slots });
    if (this.journal.length > JOURNAL_LENGTH) this.journal.shift();
    return true;
  }

  /**
   * The slots changed (added, replaced or freed) after generation `since`, in no set order; null
   * when that is not known any more (a rebuild since, or too long ago): then everything may have.
   */
  slotsChangedSince(since: number): number[] | null {
    if (since === this.generation) return [];
    const first = this.journal[0];
    if (!first || since < first.generation - 1 || since > this.generation) return null;
    const out = new Set<number>();
    for (const j of this.journal) {
      if (j.generation <= since) continue;
      if (j.slots === null) return null;
      for (const s of j.slots) out.add(s);
    }
    return [...out];
  }

  /** Empty the index and read every row a rebuild indexes, in a fixed order. */
  private startRebuild(): { rows: SkillRow[]; arts: Map<string, ArtifactRow[]> } {
    this.rebuilds++;
    this.docs.length = 0;
    this.postings.clear();
    this.df.clear();
    this.triggers.clear();
    this.triggerWords = 0;
    this.byKey.clear();
    this.surface.clear();
    this.deletes.clear();
    this.free.length = 0;
    this.bySkillId.clear();
    this.live = 0;
    this.lengthBySlot.fill(0);
    this.lengthTotals.fill(0);
    const arts = new Map<string, ArtifactRow[]>();
    for (const a of this.s.allArtifacts.all() as ArtifactRow[]) {
      let l = arts.get(a.skill_id);
      if (!l) {
        l = [];
        arts.set(a.skill_id, l);
      }
      l.push(a);
    }
    // Insert in a fixed order, so the same catalog always gives the same slots.
    const rows = (this.s.all.all() as SkillRow[]).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { rows, arts };
  }

  private rebuild(): void {
    const { rows, arts } = this.startRebuild();
    // Saved vectors in one read, not one query per skill.
    this.vectorStore?.preload();
    try {
      for (const r of rows) if (modelInvocable(r)) this.add(r, arts.get(r.id) ?? []);
    } finally {
      this.vectorStore?.release();
    }
  }

  /**
   * Build the index in slices of about `sliceMs`, letting the event loop run between them, so a
   * server can have it ready for its first search without keeping other requests waiting for the
   * whole build. A caller that needs the index meanwhile builds it at once as before (`sync`),
   * which this build then gives way to. On an index already built it is a plain `sync`.
   */
  async warm(sliceMs = 15): Promise<void> {
    if (this.lastSeq >= 0) {
      this.sync();
      return;
    }
    const head = this.s.head.get() as number;
    const { rows, arts } = this.startRebuild();
    const mine = this.rebuilds;
    this.vectorStore?.preload();
    try {
      let t = performance.now();
      for (const r of rows) {
        if (modelInvocable(r)) this.add(r, arts.get(r.id) ?? []);
        if (performance.now() - t > sliceMs) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          if (this.rebuilds !== mine) return;
          t = performance.now();
        }
      }
    } finally {
      if (this.rebuilds === mine) this.vectorStore?.release();
    }
    this.vectorStore?.flush();
    this.lastSeq = head;
    this.renorm();
    this.generation++;
    this.journal.push({ generation: this.generation, slots: null });
    if (this.journal.length > JOURNAL_LENGTH) this.journal.shift();
    // What changed while the slices ran comes from the change log, at the cost of the change.
    this.sync();
  }

  private reload(id: string): void {
    const slot = this.bySkillId.get(id);
    if (slot !== undefined) this.remove(slot);
    const row = this.s.one.get(id) as SkillRow | undefined;
    if (row && modelInvocable(row)) this.add(row, this.s.artifactsOf.all(id) as ArtifactRow[]);
  }

  /** Whether a skill has an embedding in {@link vectors} (false when none ships or none of its words is known). */
  hasVector(slot: number): boolean {
    return this.embedded[slot] === 1;
  }

  private add(row: SkillRow, artifacts: ArtifactRow[]): void {
    const slot = this.free.length ? this.free.pop()! : this.docs.length;
    this.touched?.add(slot);
    const texts = fieldTexts(row, artifacts);
    const lengths: number[] = [];
    // Counts per (distinct stem, field), flat: the build touches ~40 stems per skill.
    const local = new Map<string, number>();
    const counts: number[] = [];
    const seenSurface = new Set<string>();
    texts.forEach((text, f) => {
      // Stopwords are not indexed: a message's "one" (stem "on") must not match every "on".
      let n = 0;
      for (const w of words(text)) {
        if (STOPWORDS.has(w)) continue;
        n++;
        seenSurface.add(w);
        const s = stem(w);
        let at = local.get(s);
        if (at === undefined) {
          at = counts.length;
          local.set(s, at);
          for (let i = 0; i < F; i++) counts.push(0);
        }
        counts[at + f]!++;
      }
      lengths.push(n);
    });
    for (const [s, at] of local) {
      let p = this.postings.get(s);
      if (!p) {
        p = [];
        this.postings.set(s, p);
      }
      // Keep slot order (a reused slot lands in the middle), so lookups can bisect.
      if (p.length === 0 || p[p.length - 3]! < slot) {
        for (let f = 0; f < F; f++) if (counts[at + f]! > 0) p.push(slot, f, counts[at + f]!);
      } else {
        const entries: number[] = [];
        for (let f = 0; f < F; f++) if (counts[at + f]! > 0) entries.push(slot, f, counts[at + f]!);
        p.splice(lowerBound(p, slot) * 3, 0, ...entries);
      }
      this.df.set(s, (this.df.get(s) ?? 0) + 1);
    }
    for (const w of seenSurface) {
      const n = this.surface.get(w) ?? 0;
      this.surface.set(w, n + 1);
      if (n === 0 && spellable(w)) {
        for (const v of deletions(w)) {
          const l = this.deletes.get(v);
          if (!l) this.deletes.set(v, [w]);
          else l.push(w);
        }
      }
    }
    const triggers = [
      ...new Set(
        list(row.trigger_phrases)
          .map(normalizePhrase)
          .filter((x) => x.length > 0),
      ),
    ];
    for (const t of triggers) {
      this.triggerWords = Math.max(this.triggerWords, t.split(' ').length);
      let l = this.triggers.get(t);
      if (!l) {
        l = [];
        this.triggers.set(t, l);
      }
      l.push(slot);
    }
    if (this.embedding && this.embedded.length <= slot) {
      const grown = new Uint8Array(Math.max(slot + 1, this.embedded.length * 2, 64));
      grown.set(this.embedded);
      this.embedded = grown;
    }
    if (this.lengthBySlot.length < (slot + 1) * F) {
      const grown = new Float64Array(Math.max((slot + 1) * F, this.lengthBySlot.length * 2, 64 * F));
      grown.set(this.lengthBySlot);
      this.lengthBySlot = grown;
    }
    for (let f = 0; f < F; f++) {
      this.lengthBySlot[slot * F + f] = lengths[f]!;
      this.lengthTotals[f] = this.lengthTotals[f]! + lengths[f]!;
    }
    const doc: IndexedSkill = {
      id: row.id,
      name: row.name,
      key: skillNameKey(row.name),
      terms: [...local.keys()],
      lengths,
      triggers,
    };
    this.docs[slot] = doc;
    if (this.embedding) this.embedded[slot] = this.setVector(slot, row, artifacts, this.embedding) ? 1 : 0;
    this.byKey.set(doc.key, slot);
    this.bySkillId.set(row.id, slot);
    this.live++;
    // Remember the surface words for removal.
    surfaceOf.set(doc, [...seenSurface]);
  }

  /** Put a skill's vector in its slot; false when it has none (no word the embedding knows). */
  private setVector(slot: number, row: SkillRow, artifacts: ArtifactRow[], e: StaticEmbedding): boolean {
    const dims = e.dims;
    if (this.vectors.length < (slot + 1) * dims) {
      const grown = new Int8Array(Math.max((slot + 1) * dims, this.vectors.length * 2, 64 * dims));
      grown.set(this.vectors);
      this.vectors = grown;
    }
    const text = embeddingText(row, artifacts);
    const hash = createHash('sha1').update(text).digest('hex');
    let v = this.vectorStore?.get(row.id, hash) ?? null;
    if (!v) {
      const f = e.embed(text);
      v = f ? quantize(f) : new Int8Array(dims);
      this.vectorStore?.put(row.id, hash, v);
    }
    this.vectors.set(v, slot * dims);
    return v.some((x) => x !== 0);
  }

  private remove(slot: number): void {
    const doc = this.docs[slot];
    if (!doc) return;
    this.touched?.add(slot);
    for (const s of doc.terms) {
      const p = this.postings.get(s);
      if (!p) continue;
      const kept: number[] = [];
      for (let i = 0; i < p.length; i += 3) if (p[i] !== slot) kept.push(p[i]!, p[i + 1]!, p[i + 2]!);
      if (kept.length) this.postings.set(s, kept);
      else this.postings.delete(s);
      const n = (this.df.get(s) ?? 1) - 1;
      if (n > 0) this.df.set(s, n);
      else this.df.delete(s);
    }
    for (const t of doc.triggers) {
      const l = this.triggers.get(t)?.filter((x) => x !== slot);
      if (l?.length) this.triggers.set(t, l);
      else this.triggers.delete(t);
    }
    for (const w of surfaceOf.get(doc) ?? []) {
      const n = (this.surface.get(w) ?? 1) - 1;
      if (n > 0) this.surface.set(w, n);
      else {
        this.surface.delete(w);
        if (spellable(w)) {
          for (const v of deletions(w)) {
            const l = this.deletes.get(v)?.filter((x) => x !== w);
            if (l?.length) this.deletes.set(v, l);
            else this.deletes.delete(v);
          }
        }
      }
    }
    if (this.byKey.get(doc.key) === slot) this.byKey.delete(doc.key);
    this.bySkillId.delete(doc.id);
    this.docs[slot] = null;
    for (let f = 0; f < F; f++) {
      this.lengthTotals[f] = this.lengthTotals[f]! - this.lengthBySlot[slot * F + f]!;
      this.lengthBySlot[slot * F + f] = 0;
    }
    if (this.embedding) {
      this.embedded[slot] = 0;
      this.vectors.fill(0, slot * this.embedding.dims, (slot + 1) * this.embedding.dims);
    }
    this.free.push(slot);
    this.live--;
  }

  // Field length normalisation against the store's average lengths: a function of the catalog
  // alone (not of the order of changes), so the same catalog always scores the same.
  private renorm(): void {
    // Integer totals kept as skills come and go (exact, so order-free); one pass over typed arrays.
    const avg = new Float64Array(F);
    for (let f = 0; f < F; f++) avg[f] = this.live ? Math.max(1, this.lengthTotals[f]! / this.live) : 1;
    const n = this.docs.length;
    // Rewritten in place (matches read them, nothing keeps them across generations), grown by
    // doubling: an import at 100k adds a slot, and must not allocate 5.6 MB for it each time.
    const norms =
      this.norms.length >= n * F ? this.norms : new Float64Array(Math.max(n * F, this.norms.length * 2));
    const nameLengths =
      this.nameLengths.length >= n
        ? this.nameLengths
        : new Float64Array(Math.max(n, this.nameLengths.length * 2));
    const len = this.lengthBySlot;
    for (let slot = 0; slot < n; slot++) {
      const o = slot * F;
      if (!this.docs[slot]) {
        nameLengths[slot] = 0;
        norms.fill(0, o, o + F);
        continue;
      }
      nameLengths[slot] = Math.max(1, len[o]!);
      for (let f = 0; f < F; f++)
        norms[o + f] = WEIGHTS[f]! / (1 - BS[f]! + (BS[f]! * len[o + f]!) / avg[f]!);
    }
    this.norms = norms;
    this.nameLengths = nameLengths;
  }
}

const surfaceOf = new WeakMap<IndexedSkill, string[]>();
/** How many generations' changed slots an index remembers. */
const JOURNAL_LENGTH = 16;

/**
 * Skills' embeddings saved in the store (`skill_embeddings`, one row per skill and model), keyed by the
 * table's id and a hash of the text embedded: an index build reads every saved vector at once
 * instead of embedding the catalog again, and a skill whose text changed is embedded anew. Without the table (an older schema) or on a read-only connection, vectors are
 * computed and kept in memory.
 */
class VectorStore {
  private pending: Array<[string, string, Int8Array]> = [];
  /** Every saved vector of this model, while an index is being built. */
  private all: Map<string, { hash: string; vector: Int8Array }> | null = null;
  private constructor(
    private readonly db: Db,
    private readonly model: string,
    private readonly dims: number,
  ) {}

  static open(db: Db, e: StaticEmbedding): VectorStore | null {
    const has = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'skill_embeddings'")
      .pluck()
      .get();
    return has ? new VectorStore(db, e.id, e.dims) : null;
  }

  /** Read every saved vector of this model at once (an index build asks for all of them). */
  preload(): void {
    this.all = new Map();
    const rows = this.db
      .prepare('SELECT skill_id, text_hash, vector FROM skill_embeddings WHERE model = ?')
      .raw()
      .iterate(this.model) as IterableIterator<[string, string, Buffer]>;
    for (const [id, hash, v] of rows) {
      if (v.length === this.dims)
        this.all.set(id, { hash, vector: new Int8Array(v.buffer, v.byteOffset, this.dims) });
    }
  }

  /** Forget the preloaded vectors. */
  release(): void {
    this.all = null;
  }

  get(skillId: string, hash: string): Int8Array | null {
    if (this.all) {
      const r = this.all.get(skillId);
      return r && r.hash === hash ? r.vector : null;
    }
    const r = this.db
      .prepare('SELECT text_hash, vector FROM skill_embeddings WHERE skill_id = ? AND model = ?')
      .get(skillId, this.model) as { text_hash: string; vector: Buffer } | undefined;
    if (!r || r.text_hash !== hash || r.vector.length !== this.dims) return null;
    return new Int8Array(r.vector.buffer, r.vector.byteOffset, this.dims);
  }

  put(skillId: string, hash: string, v: Int8Array): void {
    this.pending.push([skillId, hash, v]);
  }

  /** Save the vectors computed since the last flush, in one transaction. */
  flush(): void {
    if (this.pending.length === 0) return;
    const rows = this.pending;
    this.pending = [];
    try {
      const put = this.db.prepare(
        `INSERT INTO skill_embeddings (skill_id, model, text_hash, vector) VALUES (?, ?, ?, ?)
         ON CONFLICT (skill_id, model) DO UPDATE SET text_hash = excluded.text_hash,
         vector = excluded.vector`,
      );
      writeTransaction(
        this.db,
        () => {
          for (const [id, hash, v] of rows)
            put.run(id, this.model, hash, Buffer.from(v.buffer, v.byteOffset, v.length));
          // A cache: never make a match wait for another writer (SQLite's busy timeout still applies).
        },
        { waitMs: 0 },
      );
    } catch {
      // A read-only connection, or the skill went away meanwhile: the vectors stay in memory.
    }
  }
}

/** Words spelling correction may suggest: letters only, at least three. */
const spellable = (w: string) => w.length >= 3 && !/\d/.test(w);

/** A word and every form of it with one letter left out. */
export function deletions(w: string): string[] {
  const out = [w];
  for (let i = 0; i < w.length; i++) out.push(w.slice(0, i) + w.slice(i + 1));
  return out;
}

/** The first entry (of three numbers) of a slot-ordered posting list whose slot is ≥ `slot`. */
export function lowerBound(p: readonly number[], slot: number): number {
  let lo = 0;
  let hi = p.length / 3;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (p[mid * 3]! < slot) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function artifactSql(where: string): string {
  return `SELECT skill_id, kind, name, json_extract(metadata, '$.path') AS path,
    CASE kind WHEN 'approach' THEN substr(content, 1, ${BODY_CHARS.approach})
      WHEN 'example' THEN substr(content, 1, ${BODY_CHARS.example})
      WHEN 'description' THEN substr(content, 1, ${BODY_CHARS.description}) ELSE '' END AS head
    FROM skill_artifacts ${where} ORDER BY skill_id, ordinal, name, model_variant`;
}

const perDb = new WeakMap<Db, SkillIndex>();

/**
 * The index of a store's database, built on first use (by `make`, default the shipped embedding)
 * and kept in sync on every later use.
 */
export function skillIndex(db: Db, make: (db: Db) => SkillIndex = (d) => new SkillIndex(d)): SkillIndex {
  const ix = indexOf(db, make);
  ix.sync();
  return ix;
}

function indexOf(db: Db, make: (db: Db) => SkillIndex): SkillIndex {
  let ix = perDb.get(db);
  if (!ix) {
    ix = make(db);
    perDb.set(db, ix);
  }
  return ix;
}

/** Build (or catch up) a store's index in slices, ahead of its first use (see {@link SkillIndex.warm}). */
export function warmSkillIndex(db: Db): Promise<void> {
  return indexOf(db, (d) => new SkillIndex(d)).warm();
}
