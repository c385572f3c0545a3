import { availableParallelism } from 'node:os';
import type { Db } from '../store/index.js';
import { writeTransaction } from '../store/index.js';
import { type DenseTextFields, denseText, denseTextHash } from './dense-text.js';
import { type E5Engine, e5Engine } from './e5.js';
import { seedVector } from './seed-vectors.js';
import type { SkillIndex } from './skill-index.js';

/**
 * The sentence-embedding half of phase 1: every skill's e5 vector (of its name, description,
 * tags, intent patterns and trigger phrases — the body made retrieval worse on the harness),
 * kept per store beside its {@link SkillIndex}, saved in `skill_embeddings` by model and text
 * hash, and computed off the main thread: a skill not embedded yet still matches by phase 1's
 * other signals. A message is compared with the skills by the cosine of catalog-centred vectors
 * ({@link DenseSpace}).
 */

interface DenseRow extends DenseTextFields {
  id: string;
}

export { denseText, denseTextHash };

const SELECT =
  'SELECT id, name, description, when_to_use, tags, intent_patterns, trigger_phrases FROM skills';

/** Progress of a store's background embedding. */
export interface DenseProgress {
  embedded: number;
  total: number;
}

/** One store's e5 vectors, slot for slot with its {@link SkillIndex}. */
export class DenseIndex {
  /** Per slot, `dims` floats (zero when the skill has no vector yet). */
  vectors = new Float32Array(0);
  /** Per slot: 1 when {@link vectors} holds the skill's vector. */
  has = new Uint8Array(0);
  /** Bumped whenever a vector is set or cleared (the space's centring follows it). */
  generation = 0;
  /** Slots whose {@link has} is 1 (only live skills: a removed skill's slot is cleared). */
  private held = 0;
  private indexGeneration = -1;
  /** Per slot: the hash of the text its vector is (to be) of. */
  private hashes: Array<string | null> = [];
  private running: Promise<void> | null = null;
  private readonly canSave: boolean;

  constructor(
    readonly index: SkillIndex,
    readonly engine: E5Engine,
  ) {
    const db = index.db;
    this.canSave = Boolean(
      db
        .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'skill_embeddings'")
        .pluck()
        .get(),
    );
  }

  private get db(): Db {
    return this.index.db;
  }

  /** Follow the index's changes: saved vectors are read back, other skills marked to embed. */
  sync(): void {
    const ix = this.index;
    if (ix.generation === this.indexGeneration) return;
    const changed = this.indexGeneration < 0 ? null : ix.slotsChangedSince(this.indexGeneration);
    this.indexGeneration = ix.generation;
    const dims = this.engine.dims;
    const n = ix.docs.length;
    if (this.has.length < n) {
      const cap = Math.max(16, n * 2);
      const v = new Float32Array(cap * dims);
      v.set(this.vectors);
      this.vectors = v;
      const h = new Uint8Array(cap);
      h.set(this.has);
      this.has = h;
    }
    const slots = changed ?? Array.from({ length: Math.max(n, this.hashes.length) }, (_, i) => i);
    const saved = this.savedVectors(changed === null ? null : slots);
    // The index hashed each skill's text from the row it read (or saved that hash): no row is read
    // here, so a process that loaded the saved index does not read and hash 10,000 rows again.
    for (const slot of slots) {
      const doc = slot < n ? ix.docs[slot] : null;
      if (!doc) {
        this.clear(slot);
        continue;
      }
      const hash = doc.denseHash;
      if (this.hashes[slot] === hash && this.has[slot]) continue;
      this.clear(slot);
      this.hashes[slot] = hash;
      const s = saved.get(doc.id);
      if (s && s.hash === hash) this.set(slot, s.vector);
      else {
        const shipped = seedVector(this.engine.id, hash);
        if (shipped && shipped.length === this.engine.dims) this.set(slot, shipped);
      }
    }
  }

  /** Whether vectors are being computed now (an {@link embedMissing} run is under way). */
  get busy(): boolean {
    return this.running !== null;
  }

  /** Whether any skill has a vector yet (asked on every match, so counted, not scanned). */
  anyEmbedded(): boolean {
    return this.held > 0;
  }

  progress(): DenseProgress {
    let embedded = 0;
    let total = 0;
    for (let slot = 0; slot < this.index.docs.length; slot++) {
      if (!this.index.docs[slot]) continue;
      total++;
      if (this.has[slot]) embedded++;
    }
    return { embedded, total };
  }

  /**
   * Embed every skill still without a vector, on the thread pool, saving each batch; resolves
   * when none is left. Concurrent calls share one run. `onProgress` sees each batch land.
   */
  embedMissing(onProgress?: (p: DenseProgress) => void): Promise<void> {
    this.sync();
    if (!this.running) {
      this.running = this.runMissing(onProgress).finally(() => {
        this.running = null;
      });
    }
    return this.running;
  }

  private async runMissing(onProgress?: (p: DenseProgress) => void): Promise<void> {
    // Two batches at a time on the thread pool: a large import uses both cores of a small
    // machine, and the main thread stays free.
    const BATCH = 16;
    const LANES = Math.max(1, Math.min(2, availableParallelism()));
    const one = this.db.prepare(`${SELECT} WHERE id = ?`);
    // Skills whose row no longer gives the text the index hashed (the index has not caught up with
    // an edit yet), by the hash they were passed over under: not picked again until the index's
    // sync gives them a new one.
    const behind = new Map<number, string>();
    for (;;) {
      this.sync();
      const todo: number[] = [];
      const texts: string[] = [];
      for (let slot = 0; slot < this.index.docs.length && todo.length < BATCH * LANES; slot++) {
        const doc = this.index.docs[slot];
        const hash = this.hashes[slot];
        if (!doc || this.has[slot] || !hash || behind.get(slot) === hash) continue;
        const row = one.get(doc.id) as DenseRow | undefined;
        const text = row ? denseText(row) : null;
        if (text === null || denseTextHash(text) !== hash) {
          behind.set(slot, hash);
          continue;
        }
        todo.push(slot);
        texts.push(text);
      }
      if (todo.length === 0) return;
      const hashes = todo.map((s) => this.hashes[s]!);
      const ids = todo.map((s) => this.index.docs[s]!.id);
      const lanes: Array<Promise<Float32Array[]>> = [];
      for (let i = 0; i < texts.length; i += BATCH)
        lanes.push(this.engine.passages(texts.slice(i, i + BATCH)));
      const vs = (await Promise.all(lanes)).flat();
      // The catalog may have moved on while the batch ran: keep only vectors still current.
      this.sync();
      const put: Array<[string, string, Float32Array]> = [];
      todo.forEach((slot, i) => {
        const doc = this.index.docs[slot];
        if (!doc || doc.id !== ids[i] || this.hashes[slot] !== hashes[i]) return;
        this.set(slot, vs[i]!);
        put.push([ids[i]!, hashes[i]!, vs[i]!]);
      });
      // A skill that changed meanwhile has its new text by now: the next round embeds that.
      this.save(put);
      onProgress?.(this.progress());
    }
  }

  /** Put a vector in its slot: floats, or a saved vector's bytes (copied as they are). */
  private set(slot: number, v: Float32Array | Uint8Array): void {
    if (v instanceof Float32Array) this.vectors.set(v, slot * this.engine.dims);
    else new Uint8Array(this.vectors.buffer, this.vectors.byteOffset + slot * v.length, v.length).set(v);
    if (!this.has[slot]) this.held++;
    this.has[slot] = 1;
    this.generation++;
  }

  private clear(slot: number): void {
    if (this.has[slot]) {
      this.vectors.fill(0, slot * this.engine.dims, (slot + 1) * this.engine.dims);
      this.has[slot] = 0;
      this.held--;
      this.generation++;
    }
    this.hashes[slot] = null;
  }

  /**
   * Saved vectors by skill, as the rows' bytes: copied once, into their slots ({@link set}), not
   * into a Float32Array each first (10,000 skills: 15 MB less to allocate and collect).
   */
  private savedVectors(slots: number[] | null): Map<string, { hash: string; vector: Uint8Array }> {
    const out = new Map<string, { hash: string; vector: Uint8Array }>();
    if (!this.canSave) return out;
    const bytes = this.engine.dims * 4;
    const take = (id: string, hash: string, v: Buffer) => {
      if (v.length === bytes) out.set(id, { hash, vector: v });
    };
    if (slots === null) {
      const rows = this.db
        .prepare('SELECT skill_id, text_hash, vector FROM skill_embeddings WHERE model = ?')
        .raw()
        .iterate(this.engine.id) as IterableIterator<[string, string, Buffer]>;
      for (const [id, hash, v] of rows) take(id, hash, v);
      return out;
    }
    const one = this.db
      .prepare('SELECT text_hash, vector FROM skill_embeddings WHERE skill_id = ? AND model = ?')
      .raw();
    for (const slot of slots) {
      const doc = this.index.docs[slot];
      if (!doc) continue;
      const r = one.get(doc.id, this.engine.id) as [string, Buffer] | undefined;
      if (r) take(doc.id, r[0], r[1]);
    }
    return out;
  }

  private save(rows: Array<[string, string, Float32Array]>): void {
    if (!this.canSave || rows.length === 0) return;
    try {
      const put = this.db.prepare(
        `INSERT INTO skill_embeddings (skill_id, model, text_hash, vector) VALUES (?, ?, ?, ?)
         ON CONFLICT (skill_id, model) DO UPDATE SET text_hash = excluded.text_hash, vector = excluded.vector`,
      );
      writeTransaction(
        this.db,
        () => {
          for (const [id, hash, v] of rows)
            put.run(id, this.engine.id, hash, Buffer.from(v.buffer, v.byteOffset, v.byteLength));
        },
        // A cache: a busy store is no reason to wait; the vectors stay in memory.
        { waitMs: 0 },
      );
    } catch {
      // Read-only store, an older schema, or the skill went away: kept in memory only.
    }
  }
}

/** Per index, its dense vectors by model id (e5, and the second model beside it). */
const perIndex = new WeakMap<SkillIndex, Map<string, DenseIndex>>();

/** The dense vectors of a store's index (null without the engine), kept in step with it. */
export function denseIndex(index: SkillIndex, engine: E5Engine | null = e5Engine()): DenseIndex | null {
  if (!engine) return null;
  let byModel = perIndex.get(index);
  if (!byModel) {
    byModel = new Map();
    perIndex.set(index, byModel);
  }
  let d = byModel.get(engine.id);
  if (!d || d.engine !== engine) {
    d = new DenseIndex(index, engine);
    byModel.set(engine.id, d);
  }
  d.sync();
  return d;
}

/** One skill the dense scan found. */
export interface DenseNearest {
  index: SkillIndex;
  slot: number;
  /** Cosine of the catalog-centred vectors. */
  cos: number;
}

/**
 * The catalog-centred e5 vectors of a set of stores: each vector minus the mean of every skill's
 * vector, normalised again. Raw e5 cosines between any request and any skill description sit in
 * a narrow band (all are "requests about doing something with files"); centring spreads them
 * out, and on the harness it was what made e5 help at all (raw cosine halved recall).
 */
export class DenseSpace {
  readonly mean: Float32Array;
  /** Per part, the centred unit vectors (zero rows where a skill has none). */
  private readonly centred: Float32Array[];
  private constructor(
    readonly parts: DenseIndex[],
    private readonly generations: number[],
  ) {
    const dims = parts[0]!.engine.dims;
    const sum = new Float64Array(dims);
    let n = 0;
    for (const p of parts) {
      for (let slot = 0; slot < p.has.length; slot++) {
        if (!p.has[slot]) continue;
        n++;
        const off = slot * dims;
        for (let d = 0; d < dims; d++) sum[d]! += p.vectors[off + d]!;
      }
    }
    this.mean = new Float32Array(dims);
    if (n > 0) for (let d = 0; d < dims; d++) this.mean[d] = sum[d]! / n;
    this.centred = parts.map((p) => {
      const out = new Float32Array(p.has.length * dims);
      for (let slot = 0; slot < p.has.length; slot++) {
        if (!p.has[slot]) continue;
        const off = slot * dims;
        let norm = 0;
        for (let d = 0; d < dims; d++) {
          const x = p.vectors[off + d]! - this.mean[d]!;
          out[off + d] = x;
          norm += x * x;
        }
        const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
        for (let d = 0; d < dims; d++) out[off + d]! *= inv;
      }
      return out;
    });
  }

  private static cache = new WeakMap<DenseIndex, DenseSpace>();

  /** The space of these stores, rebuilt only when one of them changed. */
  static of(parts: DenseIndex[]): DenseSpace | null {
    if (parts.length === 0) return null;
    const had = DenseSpace.cache.get(parts[0]!);
    if (
      had &&
      had.parts.length === parts.length &&
      had.parts.every((p, i) => p === parts[i] && had.generations[i] === p.generation)
    )
      return had;
    const space = new DenseSpace(
      parts,
      parts.map((p) => p.generation),
    );
    DenseSpace.cache.set(parts[0]!, space);
    return space;
  }

  /** A request's unit vector centred on the catalog. */
  centre(q: Float32Array): Float32Array {
    const dims = this.mean.length;
    const out = new Float32Array(dims);
    let norm = 0;
    for (let d = 0; d < dims; d++) {
      const x = q[d]! - this.mean[d]!;
      out[d] = x;
      norm += x * x;
    }
    const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let d = 0; d < dims; d++) out[d]! *= inv;
    return out;
  }

  /** Centred cosine of a centred request with one skill; null when the skill has no vector. */
  cosine(qc: Float32Array, index: SkillIndex, slot: number): number | null {
    const at = this.parts.findIndex((p) => p.index === index);
    if (at < 0 || !this.parts[at]!.has[slot]) return null;
    const dims = qc.length;
    const c = this.centred[at]!;
    let dot = 0;
    for (let d = 0, off = slot * dims; d < dims; d++) dot += qc[d]! * c[off + d]!;
    return dot;
  }

  /** The `k` skills nearest a centred request over every store, best first (exact scan). */
  nearest(qc: Float32Array, k: number, hidden: (index: SkillIndex, slot: number) => boolean): DenseNearest[] {
    const dims = qc.length;
    const best: DenseNearest[] = [];
    let bar = Number.NEGATIVE_INFINITY;
    this.parts.forEach((p, at) => {
      const c = this.centred[at]!;
      const n = p.has.length;
      // Every slot's dot product at once in the engine's native code when it has it; the rows
      // of skills without a vector are zeros and skipped below.
      const native = p.engine.dots ? new Float32Array(n) : null;
      if (native) p.engine.dots!(c, qc, native);
      for (let slot = 0; slot < n; slot++) {
        if (!p.has[slot]) continue;
        let dot = 0;
        if (native) dot = native[slot]!;
        else for (let d = 0, off = slot * dims; d < dims; d++) dot += qc[d]! * c[off + d]!;
        if (dot <= bar && best.length === k) continue;
        if (hidden(p.index, slot)) continue;
        best.push({ index: p.index, slot, cos: dot });
        best.sort((a, b) => b.cos - a.cos);
        if (best.length > k) best.pop();
        if (best.length === k) bar = best[k - 1]!.cos;
      }
    });
    return best;
  }
}
