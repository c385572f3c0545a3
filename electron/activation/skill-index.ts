import { hash } from 'node:crypto';
import { INDEXED_BODY_CHARS, indexedForEmbedding } from '../contract/kinds.js';
import type { Db } from '../store/index.js';
import {
  FRONTMATTER_SQL,
  invocationFields,
  normalizePhrase,
  skillNameKey,
  writeTransaction,
} from '../store/index.js';
import { type DenseTextFields, denseText, denseTextHash } from './dense-text.js';
import { quantize, type StaticEmbedding, staticEmbedding } from './embedding.js';
import { checksum, decodeSections, encodeSections, fingerprint, type Section } from './index-cache.js';
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
const BODY_CHARS: Readonly<Record<string, number>> = INDEXED_BODY_CHARS;

/** One skill in the index. */
export interface IndexedSkill {
  id: string;
  name: string;
  /** The name's {@link skillNameKey} (NFKC, case folded): how the workspace hides an account skill. */
  key: string;
  /**
   * The hash of the skill's e5 text ({@link denseText}), made from the row this index read: the
   * e5 vectors follow it, and a process that loads the saved index need not read every skill's row
   * again to know which saved vectors are current.
   */
  denseHash: string;
}

/** What removing a skill from the index undoes: where it was posted. */
interface Footprint {
  /** Its distinct stems. */
  terms: string[];
  /** Its normalised trigger phrases. */
  triggers: string[];
  /** Its distinct surface words (spelling correction's counts). */
  surface: string[];
}

/**
 * The footprints of the skills a saved copy held, left in the copy's typed arrays until one is
 * needed (a skill changed, or the index saved): a load makes no 30,000 small arrays it rarely reads.
 */
interface SavedFootprints {
  stems: string[];
  triggers: string[];
  surface: string[];
  termOff: Int32Array;
  terms: Int32Array;
  trigOff: Int32Array;
  trig: Int32Array;
  surfOff: Int32Array;
  surf: Int32Array;
}

interface SkillRow extends DenseTextFields {
  id: string;
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
    if (BODY_CHARS[a.kind]) body.push(a.head);
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
    const reads = indexedForEmbedding(a.kind);
    if (reads === 'head') body.push(a.head.slice(0, EMBED_BODY_CHARS));
    else if (reads === 'path' && a.path) body.push(a.path.replace(/[._/-]+/g, ' '));
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
  /**
   * Stem → flat [slot, field, tf, slot, field, tf, …], ordered by slot. A list loaded from the
   * saved copy stays the typed view it was read as until a change to it makes it an array.
   */
  readonly postings = new Map<string, number[] | Int32Array>();
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
   * words one insertion, deletion, substitution or transposition apart share an entry. Built
   * from {@link surface} when first asked for (only a message with a word no skill has needs it),
   * then kept in step; the lists' order does not matter (corrections are ranked by use).
   */
  get deletes(): Map<string, string[]> {
    if (!this.deletesMap) {
      const m = new Map<string, string[]>();
      for (const w of this.surface.keys()) if (spellable(w)) addDeletions(m, w);
      this.deletesMap = m;
    }
    return this.deletesMap;
  }
  private deletesMap: Map<string, string[]> | null = null;
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
   * How the index was last filled: built from the store's skills, or loaded from its saved copy
   * (then caught up through the change log); null before its first sync.
   */
  origin: 'built' | 'saved' | null = null;
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
  /** Per slot: the skill's footprint, when made here (see {@link footprint}). */
  private footprints: Array<Footprint | undefined> = [];
  private saved: SavedFootprints | null = null;
  private lastSeq = -1;
  /**
   * A sliced build under way ({@link warm}): the rows it read at log `head` and the next to add. A
   * match arriving meanwhile finishes it at once (see {@link sync}) instead of starting over.
   */
  private warming: { rows: SkillRow[]; arts: Map<string, ArtifactRow[]>; next: number; head: number } | null =
    null;
  private readonly s;

  private readonly vectorStore: VectorStore | null;
  /** The store's saved copy of this index (`skill_index_cache`); null without the table. */
  private readonly cache: IndexCache | null;
  /** Whether this index looked for a saved copy yet (once, on its first sync). */
  private cacheTried = false;
  /** The log head of the saved copy last read or written (-1: none). */
  private savedSeq = -1;
  /** A saved copy was loaded and not caught up yet: the next change saves it again. */
  private loadedBehind = false;

  constructor(
    readonly db: Db,
    embedding: StaticEmbedding | null = staticEmbedding(),
  ) {
    this.embedding = embedding;
    this.vectorStore = embedding ? VectorStore.open(db, embedding) : null;
    this.cache = IndexCache.open(db, embedding);
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

  /**
   * Bring the index up to date with the database. Returns whether anything changed. A new index
   * first loads the store's saved copy (when it matches this code and the log still reaches
   * back to it) and catches up from there; whatever it had to build is saved for the next process.
   */
  sync(): boolean {
    const finished = this.warming !== null && this.finishWarm();
    const head = this.s.head.get() as number;
    if (head === this.lastSeq) return finished;
    const first = this.lastSeq < 0;
    if (first && this.loadSaved(head) && head === this.lastSeq) return true;
    const oldest = (this.s.oldest.get() as number | null) ?? head;
    const changed =
      this.lastSeq < 0 || oldest > this.lastSeq + 1
        ? null
        : new Set((this.s.since.all(this.lastSeq) as Array<{ skill_id: string }>).map((r) => r.skill_id));
    let slots: number[] | null = null;
    const rebuilt = changed === null || changed.size > Math.max(200, this.live / 10);
    if (rebuilt) this.rebuild();
    else {
      this.touched = new Set();
      for (const id of [...changed].sort()) this.reload(id);
      slots = first ? null : [...this.touched];
      this.touched = null;
    }
    this.vectorStore?.flush();
    this.lastSeq = head;
    this.renorm();
    this.generation++;
    this.journal.push({ generation: this.generation, slots });
    if (this.journal.length > JOURNAL_LENGTH) this.journal.shift();
    // Saved after a build, after catching up a saved copy (what the next process would redo),
    // and, in a long-lived process, once it is SAVE_LAG changes behind: never on every change.
    if (rebuilt || first || this.loadedBehind || head - this.savedSeq >= SAVE_LAG) this.save();
    this.loadedBehind = false;
    return true;
  }

  /**
   * Replace the (empty) index by the store's saved copy when there is one for this code and
   * embedding, intact (its CRC), not ahead of the log's `head`; on any doubt the copy is ignored
   * and the index stays empty (to be built). Returns whether it was loaded.
   */
  private loadSaved(head: number): boolean {
    if (this.cacheTried || !this.cache) return false;
    this.cacheTried = true;
    const row = this.cache.read();
    if (!row || row.seq > head || row.seq < 0) return false;
    try {
      this.restore(decodeSections(row.data));
    } catch {
      this.reset();
      return false;
    }
    this.lastSeq = row.seq;
    this.savedSeq = row.seq;
    this.loadedBehind = row.seq !== head;
    this.origin = 'saved';
    this.renorm();
    this.generation++;
    this.journal.push({ generation: this.generation, slots: null });
    if (this.journal.length > JOURNAL_LENGTH) this.journal.shift();
    return true;
  }

  /** Write this index to the store's cache row (best effort: a read-only or busy store keeps none). */
  private save(): void {
    if (!this.cache || this.lastSeq < 0) return;
    if (this.cache.write(this.lastSeq, this.serialize())) this.savedSeq = this.lastSeq;
  }

  /** The index as one buffer (see {@link restore}). */
  private serialize(): Buffer {
    const slots = this.docs.length;
    const stems = [...this.postings.keys()];
    const surface = [...this.surface.keys()];
    const triggers = [...this.triggers.keys()];
    const stemAt = new Map(stems.map((x, i) => [x, i]));
    const surfaceAt = new Map(surface.map((x, i) => [x, i]));
    const triggerAt = new Map(triggers.map((x, i) => [x, i]));
    let total = 0;
    for (const p of this.postings.values()) total += p.length;
    const postOff = new Int32Array(stems.length + 1);
    const post = new Int32Array(total);
    const df = new Int32Array(stems.length);
    let at = 0;
    stems.forEach((x, i) => {
      const p = this.postings.get(x)!;
      post.set(p, at);
      at += p.length;
      postOff[i + 1] = at;
      df[i] = this.df.get(x) ?? 0;
    });
    const surfaceCount = Int32Array.from(surface, (w) => this.surface.get(w)!);
    const trigOff = new Int32Array(triggers.length + 1);
    const trigSlots: number[] = [];
    triggers.forEach((t, i) => {
      trigSlots.push(...this.triggers.get(t)!);
      trigOff[i + 1] = trigSlots.length;
    });
    const ids: string[] = [];
    const names: string[] = [];
    const keys: string[] = [];
    const denseHashes: string[] = [];
    const present = new Uint8Array(slots);
    const keyed = new Uint8Array(slots);
    const lists = (pick: (f: Footprint) => string[], at: Map<string, number>) => {
      const off = new Int32Array(slots + 1);
      const all: number[] = [];
      for (let slot = 0; slot < slots; slot++) {
        if (this.docs[slot]) for (const x of pick(this.footprint(slot))) all.push(at.get(x)!);
        off[slot + 1] = all.length;
      }
      return [off, Int32Array.from(all)] as const;
    };
    for (let slot = 0; slot < slots; slot++) {
      const d = this.docs[slot];
      ids.push(d?.id ?? '');
      names.push(d?.name ?? '');
      keys.push(d?.key ?? '');
      denseHashes.push(d?.denseHash ?? '');
      if (!d) continue;
      present[slot] = 1;
      if (this.byKey.get(d.key) === slot) keyed[slot] = 1;
    }
    const [termOff, terms] = lists((f) => f.terms, stemAt);
    const [surfOff, surf] = lists((f) => f.surface, surfaceAt);
    const [docTrigOff, docTrig] = lists((f) => f.triggers, triggerAt);
    const dims = this.embedding?.dims ?? 0;
    const sections: Record<string, Section> = {
      postOff,
      post,
      df,
      surfaceCount,
      trigOff,
      trigSlots: Int32Array.from(trigSlots),
      present,
      keyed,
      termOff,
      terms,
      surfOff,
      surf,
      docTrigOff,
      docTrig,
      lengths: this.lengthBySlot.slice(0, slots * F),
    };
    if (this.embedding) {
      sections.vectors = this.vectors.slice(0, slots * dims);
      sections.embedded = this.embedded.slice(0, slots);
    }
    const header: SavedHeader = {
      slots,
      dims,
      live: this.live,
      triggerWords: this.triggerWords,
      free: [...this.free],
      lengthTotals: [...this.lengthTotals],
      stems,
      surface,
      triggers,
      ids,
      names,
      keys,
      denseHashes,
    };
    return encodeSections(header, sections);
  }

  /**
   * Fill the index from a {@link serialize}d buffer, checking every count, offset and reference
   * as it goes: a malformed copy throws (and the caller empties the index again).
   */
  private restore({ header, sections }: ReturnType<typeof decodeSections>): void {
    this.reset();
    const h = header as SavedHeader;
    const bad = (what: string): never => {
      throw new Error(`saved index: ${what}`);
    };
    const isStrings = (a: unknown, n?: number) =>
      Array.isArray(a) && (n === undefined || a.length === n) && a.every((x) => typeof x === 'string');
    const slots = h?.slots;
    if (!Number.isInteger(slots) || slots < 0) bad('slots');
    const dims = this.embedding?.dims ?? 0;
    if (h.dims !== dims) bad('dims');
    if (!isStrings(h.stems) || !isStrings(h.surface) || !isStrings(h.triggers)) bad('strings');
    if (!isStrings(h.ids, slots) || !isStrings(h.names, slots) || !isStrings(h.keys, slots)) bad('names');
    if (!isStrings(h.denseHashes, slots)) bad('dense hashes');
    if (!Array.isArray(h.lengthTotals) || h.lengthTotals.length !== F) bad('totals');
    if (!Number.isInteger(h.triggerWords) || !Number.isInteger(h.live)) bad('counts');
    const sec = <T extends Section>(name: string, type: new (n: number) => T, length?: number): T => {
      const a = sections.get(name);
      if (!(a instanceof type) || (length !== undefined && a.length !== length)) bad(`section ${name}`);
      return a as T;
    };
    /** An offsets section: starts at 0, never falls, ends at `end`'s length. */
    const offsets = (name: string, n: number, end: Section): Int32Array => {
      const o = sec(name, Int32Array, n + 1);
      if (o[0] !== 0 || o[n] !== end.length) bad(`section ${name}`);
      for (let i = 0; i < n; i++) if (o[i + 1]! < o[i]!) bad(`section ${name}`);
      return o;
    };
    /** Every entry an index below `n`. */
    const refs = (a: Int32Array, n: number, what: string) => {
      if (!allBelow(a, n)) bad(what);
    };
    const present = sec('present', Uint8Array, slots);
    const keyed = sec('keyed', Uint8Array, slots);
    const post = sec('post', Int32Array);
    const postOff = offsets('postOff', h.stems.length, post);
    const df = sec('df', Int32Array, h.stems.length);
    const surfaceCount = sec('surfaceCount', Int32Array, h.surface.length);
    const trigSlots = sec('trigSlots', Int32Array);
    const trigOff = offsets('trigOff', h.triggers.length, trigSlots);
    refs(trigSlots, slots, 'trigger slot');
    const terms = sec('terms', Int32Array);
    const termOff = offsets('termOff', slots, terms);
    refs(terms, h.stems.length, 'term');
    const surf = sec('surf', Int32Array);
    const surfOff = offsets('surfOff', slots, surf);
    refs(surf, h.surface.length, 'surface word');
    const docTrig = sec('docTrig', Int32Array);
    const docTrigOff = offsets('docTrigOff', slots, docTrig);
    refs(docTrig, h.triggers.length, 'trigger');
    const lengths = sec('lengths', Float64Array, slots * F);
    const vectors = this.embedding ? sec('vectors', Int8Array, slots * dims) : null;
    const embedded = this.embedding ? sec('embedded', Uint8Array, slots) : null;
    let live = 0;
    for (let slot = 0; slot < slots; slot++) if (present[slot]) live++;
    if (live !== h.live) bad('live');
    for (let i = 0; i < trigSlots.length; i++) if (!present[trigSlots[i]!]) bad('trigger slot');
    if (h.lengthTotals.some((x) => typeof x !== 'number' || !Number.isFinite(x))) bad('totals');
    if (
      !Array.isArray(h.free) ||
      h.free.some((x) => !Number.isInteger(x) || x < 0 || x >= slots || present[x])
    )
      bad('free slots');

    if (!postingsSound(post, postOff, df, present)) bad('postings');
    for (let i = 0; i < h.stems.length; i++) {
      const from = postOff[i]!;
      const to = postOff[i + 1]!;
      // Views into one buffer: a 10,000-skill index has about a million entries to not copy.
      this.postings.set(h.stems[i]!, post.subarray(from, to));
      this.df.set(h.stems[i]!, df[i]!);
    }
    for (let i = 0; i < h.surface.length; i++) this.surface.set(h.surface[i]!, surfaceCount[i]!);
    for (let i = 0; i < h.triggers.length; i++)
      this.triggers.set(h.triggers[i]!, Array.from(trigSlots.subarray(trigOff[i]!, trigOff[i + 1]!)));
    this.lengthBySlot = new Float64Array(Math.max(slots * F, 64 * F));
    this.lengthBySlot.set(lengths);
    h.lengthTotals.forEach((x, f) => {
      this.lengthTotals[f] = x;
    });
    if (vectors && embedded) {
      this.vectors = new Int8Array(Math.max(slots * dims, 64 * dims));
      this.vectors.set(vectors);
      this.embedded = new Uint8Array(Math.max(slots, 64));
      this.embedded.set(embedded);
    }
    for (let slot = 0; slot < slots; slot++) {
      if (!present[slot]) {
        this.docs.push(null);
        continue;
      }
      if (!/^[0-9a-f]{40}$/.test(h.denseHashes[slot]!)) bad('dense hash');
      const doc: IndexedSkill = {
        id: h.ids[slot]!,
        name: h.names[slot]!,
        key: h.keys[slot]!,
        denseHash: h.denseHashes[slot]!,
      };
      if (this.bySkillId.has(doc.id)) bad('duplicate skill');
      this.docs.push(doc);
      if (keyed[slot]) this.byKey.set(doc.key, slot);
      this.bySkillId.set(doc.id, slot);
    }
    this.saved = {
      stems: h.stems,
      triggers: h.triggers,
      surface: h.surface,
      termOff,
      terms,
      trigOff: docTrigOff,
      trig: docTrig,
      surfOff,
      surf,
    };
    this.free.push(...h.free);
    this.live = live;
    this.triggerWords = h.triggerWords;
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

  /** Empty the index. */
  private reset(): void {
    this.docs.length = 0;
    this.postings.clear();
    this.df.clear();
    this.triggers.clear();
    this.triggerWords = 0;
    this.byKey.clear();
    this.surface.clear();
    this.deletesMap = null;
    this.free.length = 0;
    this.bySkillId.clear();
    this.live = 0;
    this.lengthBySlot.fill(0);
    this.lengthTotals.fill(0);
    this.embedded.fill(0);
    this.footprints = [];
    this.saved = null;
  }

  /** Where a live skill was posted (from the saved copy's arrays when it was loaded). */
  private footprint(slot: number): Footprint {
    const had = this.footprints[slot];
    if (had) return had;
    const s = this.saved;
    if (!s) return { terms: [], triggers: [], surface: [] };
    const pick = (a: Int32Array, off: Int32Array, table: string[]): string[] => {
      const out: string[] = [];
      for (let i = off[slot]!; i < off[slot + 1]!; i++) out.push(table[a[i]!]!);
      return out;
    };
    const f = {
      terms: pick(s.terms, s.termOff, s.stems),
      triggers: pick(s.trig, s.trigOff, s.triggers),
      surface: pick(s.surf, s.surfOff, s.surface),
    };
    this.footprints[slot] = f;
    return f;
  }

  /** Empty the index and read every row a rebuild indexes, in a fixed order. */
  private startRebuild(): { rows: SkillRow[]; arts: Map<string, ArtifactRow[]> } {
    this.warming = null;
    this.reset();
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
    this.origin = 'built';
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
    const head = this.s.head.get() as number;
    if (this.lastSeq >= 0 || this.loadSaved(head)) {
      this.sync();
      return;
    }
    if (this.warming) return;
    const { rows, arts } = this.startRebuild();
    this.origin = 'built';
    this.vectorStore?.preload();
    const w = { rows, arts, next: 0, head };
    this.warming = w;
    let t = performance.now();
    while (w.next < rows.length) {
      const r = rows[w.next++]!;
      if (modelInvocable(r)) this.add(r, arts.get(r.id) ?? []);
      if (performance.now() - t > sliceMs) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        // Finished by a match meanwhile, or replaced by another build: nothing left to do here.
        if (this.warming !== w) return;
        // A server closing its store while it warms (mcp serve ended by its client) stops here.
        if (!this.db.open) {
          this.warming = null;
          this.vectorStore?.release();
          return;
        }
        t = performance.now();
      }
    }
    this.finishWarm();
    // What changed while the slices ran comes from the change log, at the cost of the change.
    this.sync();
  }

  /**
   * Add what the sliced build has not added yet, at once, and make it the index at the log head it
   * read (a match needs the index now: the rows already added are kept, not read again). Saved
   * like any build; later changes come from the log.
   */
  private finishWarm(): boolean {
    const w = this.warming!;
    this.warming = null;
    while (w.next < w.rows.length) {
      const r = w.rows[w.next++]!;
      if (modelInvocable(r)) this.add(r, w.arts.get(r.id) ?? []);
    }
    this.vectorStore?.release();
    this.vectorStore?.flush();
    this.lastSeq = w.head;
    this.renorm();
    this.generation++;
    this.journal.push({ generation: this.generation, slots: null });
    if (this.journal.length > JOURNAL_LENGTH) this.journal.shift();
    this.save();
    return true;
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
      const had = this.postings.get(s);
      const p = had ? (Array.isArray(had) ? had : Array.from(had)) : [];
      if (p !== had) this.postings.set(s, p);
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
      if (n === 0 && this.deletesMap && spellable(w)) addDeletions(this.deletesMap, w);
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
      denseHash: denseTextHash(denseText(row)),
    };
    this.docs[slot] = doc;
    this.footprints[slot] = { terms: [...local.keys()], triggers, surface: [...seenSurface] };
    if (this.embedding) this.embedded[slot] = this.setVector(slot, row, artifacts, this.embedding) ? 1 : 0;
    this.byKey.set(doc.key, slot);
    this.bySkillId.set(row.id, slot);
    this.live++;
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
    // The one-shot hash: a Hash object per skill cost 2-4 times as much on a 10,000-skill build.
    const digest = hash('sha1', text, 'hex');
    let v = this.vectorStore?.get(row.id, digest) ?? null;
    if (!v) {
      const f = e.embed(text);
      v = f ? quantize(f) : new Int8Array(dims);
      this.vectorStore?.put(row.id, digest, v);
    }
    this.vectors.set(v, slot * dims);
    return v.some((x) => x !== 0);
  }

  private remove(slot: number): void {
    const doc = this.docs[slot];
    if (!doc) return;
    this.touched?.add(slot);
    const footprint = this.footprint(slot);
    this.footprints[slot] = undefined;
    for (const s of footprint.terms) {
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
    for (const t of footprint.triggers) {
      const l = this.triggers.get(t)?.filter((x) => x !== slot);
      if (l?.length) this.triggers.set(t, l);
      else this.triggers.delete(t);
    }
    for (const w of footprint.surface) {
      const n = (this.surface.get(w) ?? 1) - 1;
      if (n > 0) this.surface.set(w, n);
      else {
        this.surface.delete(w);
        if (this.deletesMap && spellable(w)) {
          for (const v of deletions(w)) {
            const l = this.deletesMap.get(v)?.filter((x) => x !== w);
            if (l?.length) this.deletesMap.set(v, l);
            else this.deletesMap.delete(v);
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

/** How many generations' changed slots an index remembers. */
const JOURNAL_LENGTH = 16;
/**
 * How many changes a long-lived process lets its saved copy fall behind before saving again: the
 * next process catches up with that many skills (each a few ms at 10,000), and a save (tens of
 * ms) is not paid on every edit.
 */
const SAVE_LAG = 32;

/** Whether every entry of `a` is in [0, n). (Small and alone, so it is optimised on its first run.) */
function allBelow(a: Int32Array, n: number): boolean {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    if (x < 0 || x >= n) return false;
  }
  return true;
}

/**
 * Whether saved posting lists are well formed: each non-empty, whole (slot, field, tf) entries in
 * slot order, of a live slot, a known field and a positive frequency, with a positive df.
 */
function postingsSound(post: Int32Array, off: Int32Array, df: Int32Array, present: Uint8Array): boolean {
  const slots = present.length;
  for (let i = 0; i + 1 < off.length; i++) {
    const from = off[i]!;
    const to = off[i + 1]!;
    if ((to - from) % 3 !== 0 || to === from || df[i]! <= 0) return false;
    let last = -1;
    for (let j = from; j < to; j += 3) {
      const slot = post[j]!;
      const f = post[j + 1]!;
      if (slot < last || slot >= slots || present[slot] !== 1 || f < 0 || f >= F || post[j + 2]! <= 0)
        return false;
      last = slot;
    }
  }
  return true;
}

/** Add a surface word under each of its one-letter deletions. */
function addDeletions(m: Map<string, string[]>, w: string): void {
  for (const v of deletions(w)) {
    const l = m.get(v);
    if (!l) m.set(v, [w]);
    else l.push(w);
  }
}

/** The JSON part of a saved index (the rest is typed sections; see `SkillIndex.serialize`). */
interface SavedHeader {
  slots: number;
  dims: number;
  live: number;
  triggerWords: number;
  free: number[];
  lengthTotals: number[];
  stems: string[];
  surface: string[];
  triggers: string[];
  ids: string[];
  names: string[];
  keys: string[];
  /** Per slot, {@link IndexedSkill.denseHash} ('' for a free slot). */
  denseHashes: string[];
}

/**
 * Bump when the saved layout or what the index holds changes. The code that decides the index's
 * contents is also fingerprinted (see {@link indexFormat}), so an edit to it invalidates saved
 * copies even when this is forgotten.
 */
const INDEX_FORMAT = 2;
/** Words whose stems fingerprint the stemmer (a dependency whose source is not ours to hash). */
const STEM_PROBE =
  'running generalization skills documents tables presentations happily relational conditional agreed'.split(
    ' ',
  );

let formatBase: string | null = null;

/** The key a saved index is stored under: this indexing code's fingerprint and the embedding's. */
function indexFormat(embedding: StaticEmbedding | null): string {
  formatBase ??= fingerprint([
    String(INDEX_FORMAT),
    INDEX_COLUMNS,
    NOT_INTERNAL,
    artifactSql(''),
    JSON.stringify(BODY_CHARS),
    [...STOPWORDS].join(' '),
    STEM_PROBE.map(stem).join(' '),
    ...[
      fieldTexts,
      embeddingText,
      denseText,
      words,
      stem,
      normalizePhrase,
      skillNameKey,
      invocationFields,
      modelInvocable,
    ].map((fn) => fn.toString()),
    ...['add', 'setVector', 'serialize', 'restore'].map((m) =>
      String((SkillIndex.prototype as unknown as Record<string, unknown>)[m]),
    ),
  ]);
  return `${formatBase}:${embedding ? `${embedding.id}/${embedding.dims}` : 'none'}`;
}

/** How many saved copies of other index formats (other builds of SkillDesk) a store keeps. */
const OTHER_FORMATS_KEPT = 2;

/** A store's `skill_index_cache` row for one index format. */
class IndexCache {
  private constructor(
    private readonly db: Db,
    private readonly format: string,
  ) {}

  static open(db: Db, embedding: StaticEmbedding | null): IndexCache | null {
    const has = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'skill_index_cache'")
      .pluck()
      .get();
    return has ? new IndexCache(db, indexFormat(embedding)) : null;
  }

  /** The saved copy when its CRC holds; null when none, or damaged. */
  read(): { seq: number; data: Buffer } | null {
    try {
      const row = this.db
        .prepare('SELECT seq, crc, data FROM skill_index_cache WHERE format = ?')
        .get(this.format) as { seq: number; crc: number; data: unknown } | undefined;
      if (!row || !Buffer.isBuffer(row.data) || !Number.isInteger(row.seq)) return null;
      return checksum(row.data) === row.crc ? { seq: row.seq, data: row.data } : null;
    } catch {
      return null;
    }
  }

  /**
   * Replace this format's saved copy, keeping the copies of the {@link OTHER_FORMATS_KEPT} other
   * formats written last; false when the store refused. The desktop app and the CLI are bundled
   * apart, so their fingerprints differ (function sources as each bundle prints them): with one
   * copy per store, each would throw away the other's and a user of both would rebuild the index
   * at every switch (seconds at 10,000 skills). A copy of code no longer run ages out.
   */
  write(seq: number, data: Buffer): boolean {
    try {
      const del = this.db.prepare(
        `DELETE FROM skill_index_cache WHERE format = @format OR format NOT IN
           (SELECT format FROM skill_index_cache WHERE format <> @format ORDER BY rowid DESC LIMIT ${OTHER_FORMATS_KEPT})`,
      );
      const put = this.db.prepare(
        'INSERT INTO skill_index_cache (format, seq, crc, data) VALUES (?, ?, ?, ?)',
      );
      // A cache: never make a match wait for another writer.
      writeTransaction(
        this.db,
        () => {
          del.run({ format: this.format });
          put.run(this.format, seq, checksum(data), data);
        },
        { waitMs: 0 },
      );
      return true;
    } catch {
      return false;
    }
  }
}

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
export function lowerBound(p: ArrayLike<number>, slot: number): number {
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
    CASE kind ${Object.entries(BODY_CHARS)
      .map(([k, n]) => `WHEN '${k}' THEN substr(content, 1, ${n})`)
      .join(' ')} ELSE '' END AS head
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
