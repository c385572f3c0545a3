import { availableParallelism } from 'node:os';
import type { Db } from '../store/index.js';
import { writeTransaction } from '../store/index.js';
import { type DenseTextFields, denseText, denseTextHash } from './dense-text.js';
import { type E5Engine, e5Engine } from './e5.js';
import { checksum, decodeSections, encodeSections } from './index-cache.js';
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
  private readonly canCache: boolean;
  /** Vectors put in since the store's one-row copy ({@link refreshCache}) was last read or written. */
  private outsideCache = 0;

  constructor(
    readonly index: SkillIndex,
    readonly engine: E5Engine,
  ) {
    const db = index.db;
    const table = (name: string) =>
      Boolean(db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(name));
    this.canSave = table('skill_embeddings');
    this.canCache = this.canSave && table('skill_vector_cache');
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
    const full = changed === null;
    const slots = changed ?? Array.from({ length: Math.max(n, this.hashes.length) }, (_, i) => i);
    // A new process reads the store's one-row copy first, slot for slot with the index it saved
    // (one copy of the whole matrix); only skills it lacks are read row by row.
    const cached = full ? this.readCache() : null;
    const bytes = this.engine.dims * 4;
    if (cached) {
      const rows = Math.min(cached.hashes.length, this.has.length);
      new Uint8Array(this.vectors.buffer, this.vectors.byteOffset, rows * bytes).set(
        cached.matrix.subarray(0, rows * bytes),
      );
    }
    const pending: number[] = [];
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
      if (cached?.hashes[slot] === hash) this.hold(slot);
      else pending.push(slot);
    }
    // Rows the copy brought that no skill holds now: zero, as every row without a vector is.
    if (cached)
      for (let slot = 0; slot < Math.min(cached.hashes.length, this.has.length); slot++)
        if (!this.has[slot]) this.vectors.fill(0, slot * this.engine.dims, (slot + 1) * this.engine.dims);
    if (pending.length > 0) {
      // Row by row for a few, one scan of the table for many.
      const saved = this.savedVectors(full && pending.length > n / 2 ? null : pending);
      for (const slot of pending) {
        const doc = ix.docs[slot]!;
        const s = saved.get(doc.id);
        if (s && s.hash === doc.denseHash) this.set(slot, s.vector);
        else {
          const shipped = seedVector(this.engine.id, doc.denseHash);
          if (shipped && shipped.length === this.engine.dims) this.set(slot, shipped);
        }
      }
    }
    if (full) this.refreshCache(cached === null);
  }

  /** Whether vectors are being computed now (an {@link embedMissing} run is under way). */
  get busy(): boolean {
    return this.running !== null;
  }

  /** Whether any skill has a vector yet (asked on every match, so counted, not scanned). */
  anyEmbedded(): boolean {
    return this.held > 0;
  }

  /** Skills with a vector, of all (counted as they change: asked on every match, for each model). */
  progress(): DenseProgress {
    return { embedded: this.held, total: this.index.live };
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
      if (todo.length === 0) {
        this.refreshCache(false);
        return;
      }
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

  /** Mark a slot's vector present (its floats already in place, from the one-row copy). */
  private hold(slot: number): void {
    if (!this.has[slot]) this.held++;
    this.has[slot] = 1;
    this.generation++;
  }

  /** Put a vector in its slot: floats, or a saved vector's bytes (copied as they are). */
  private set(slot: number, v: Float32Array | Uint8Array): void {
    this.outsideCache++;
    // Told apart by element size, not `instanceof`: the engine's arrays come from the addon's
    // realm, which is not always the caller's (under a jsdom test environment `instanceof
    // Float32Array` was false for them, and a fresh vector was copied as 384 bytes into the
    // wrong place — an unrelated skill then matched a nonsense message by meaning).
    if (v.BYTES_PER_ELEMENT === 4) this.vectors.set(v, slot * this.engine.dims);
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

  /**
   * The store's one-row copy of this model's vectors: each slot's text hash (null: none) and the
   * slot-aligned matrix's bytes. Null when there is none, or it is damaged.
   */
  private readCache(): { hashes: Array<string | null>; matrix: Uint8Array } | null {
    if (!this.canCache) return null;
    try {
      const row = this.db
        .prepare('SELECT crc, data FROM skill_vector_cache WHERE model = ?')
        .get(this.engine.id) as { crc: number; data: unknown } | undefined;
      if (!row || !Buffer.isBuffer(row.data) || checksum(row.data) !== row.crc) return null;
      const { header, sections } = decodeSections(row.data);
      const h = header as { dims?: unknown; hashes?: unknown };
      const matrix = sections.get('vectors');
      const hashes = h.hashes;
      // (A byte view by element size: `instanceof` fails across realms; see `set`.)
      if (
        h.dims !== this.engine.dims ||
        !Array.isArray(hashes) ||
        !ArrayBuffer.isView(matrix) ||
        (matrix as Uint8Array).BYTES_PER_ELEMENT !== 1
      )
        return null;
      if (matrix.length !== hashes.length * this.engine.dims * 4) return null;
      if (!hashes.every((x) => x === null || typeof x === 'string')) return null;
      this.outsideCache = 0;
      return { hashes: hashes as Array<string | null>, matrix: matrix as Uint8Array };
    } catch {
      return null;
    }
  }

  /**
   * Rewrite the one-row copy when it is missing or at least 1% of the vectors held are not in it
   * (a copy per edited skill would rewrite 15 MB per model at every save). The rest are read row
   * by row meanwhile, which for a few is as quick.
   */
  private refreshCache(missing: boolean): void {
    if (!this.canCache || this.held === 0) return;
    if (!missing && this.outsideCache < Math.max(1, Math.ceil(this.held / 100))) return;
    let rows = this.has.length;
    while (rows > 0 && !this.has[rows - 1]) rows--;
    const hashes = Array.from({ length: rows }, (_, slot) => (this.has[slot] ? this.hashes[slot]! : null));
    const matrix = new Uint8Array(this.vectors.buffer, this.vectors.byteOffset, rows * this.engine.dims * 4);
    const data = encodeSections({ dims: this.engine.dims, hashes }, { vectors: matrix });
    try {
      writeTransaction(
        this.db,
        () =>
          this.db
            .prepare(
              `INSERT INTO skill_vector_cache (model, crc, data) VALUES (?, ?, ?)
               ON CONFLICT (model) DO UPDATE SET crc = excluded.crc, data = excluded.data`,
            )
            .run(this.engine.id, checksum(data), data),
        // A cache: never make a match wait for another writer.
        { waitMs: 0 },
      );
      this.outsideCache = 0;
    } catch {
      // Read-only or busy store: the rows stay the record; the next process reads them.
    }
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
 * A request's vector as the space compares it: the raw unit vector, its dot product with the
 * catalog's mean, and the inverse length of the request minus that mean.
 */
export interface CentredQuery {
  q: Float32Array;
  qm: number;
  inv: number;
}

/**
 * The catalog-centred e5 vectors of a set of stores: each vector minus the mean of every skill's
 * vector, normalised again. Raw e5 cosines between any request and any skill description sit in
 * a narrow band (all are "requests about doing something with files"); centring spreads them
 * out, and on the harness it was what made e5 help at all (raw cosine halved recall).
 *
 * The centred vectors are never made: (q − m)·(s − m) = q·s − q·m − s·m + m·m, so a scan is the
 * raw matrix times the request (the engine's native product) corrected per skill by its s·m and
 * 1/|s − m|, kept here. Building a 10,000-skill space is one pass over the vectors and one native
 * product, where making the centred copy took 25 ms and 15 MB per model in a CLI match.
 */
export class DenseSpace {
  readonly mean: Float32Array;
  /** m·m. */
  private readonly mm: number;
  /** Per part, per slot: the skill's raw vector · the mean. */
  private readonly sm: Float32Array[];
  /** Per part, per slot: 1 / |s − m| (0 where the skill has no vector). */
  private readonly inv: Float32Array[];
  private constructor(
    readonly parts: DenseIndex[],
    private readonly generations: number[],
  ) {
    const dims = parts[0]!.engine.dims;
    const sum = new Float64Array(dims);
    const norms = parts.map((p) => new Float32Array(p.has.length));
    let n = 0;
    parts.forEach((p, at) => {
      const v = p.vectors;
      const ss = norms[at]!;
      for (let slot = 0; slot < p.has.length; slot++) {
        if (!p.has[slot]) continue;
        n++;
        let n2 = 0;
        for (let d = 0, off = slot * dims; d < dims; d++) {
          const x = v[off + d]!;
          sum[d]! += x;
          n2 += x * x;
        }
        ss[slot] = n2;
      }
    });
    this.mean = new Float32Array(dims);
    if (n > 0) for (let d = 0; d < dims; d++) this.mean[d] = sum[d]! / n;
    let mm = 0;
    for (let d = 0; d < dims; d++) mm += this.mean[d]! * this.mean[d]!;
    this.mm = mm;
    this.sm = parts.map((p) => rowDots(p, this.mean));
    this.inv = parts.map((p, at) => {
      const sm = this.sm[at]!;
      const ss = norms[at]!;
      const inv = new Float32Array(p.has.length);
      for (let slot = 0; slot < p.has.length; slot++) {
        if (!p.has[slot]) continue;
        const n2 = ss[slot]! - 2 * sm[slot]! + mm;
        inv[slot] = n2 > 1e-12 ? 1 / Math.sqrt(n2) : 0;
      }
      return inv;
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

  /** A request's unit vector, ready to be compared in the catalog-centred space. */
  centre(q: Float32Array): CentredQuery {
    let qm = 0;
    let qq = 0;
    for (let d = 0; d < q.length; d++) {
      qm += q[d]! * this.mean[d]!;
      qq += q[d]! * q[d]!;
    }
    const n2 = qq - 2 * qm + this.mm;
    return { q, qm, inv: n2 > 1e-12 ? 1 / Math.sqrt(n2) : 0 };
  }

  /** Centred cosine of a request with one skill; null when the skill has no vector. */
  cosine(c: CentredQuery, index: SkillIndex, slot: number): number | null {
    const at = this.parts.findIndex((p) => p.index === index);
    if (at < 0 || !this.parts[at]!.has[slot]) return null;
    const v = this.parts[at]!.vectors;
    const dims = c.q.length;
    let dot = 0;
    for (let d = 0, off = slot * dims; d < dims; d++) dot += c.q[d]! * v[off + d]!;
    return this.centred(c, at, slot, dot);
  }

  /** From a raw dot product q·s to the centred cosine. */
  private centred(c: CentredQuery, at: number, slot: number, dot: number): number {
    return (dot - c.qm - this.sm[at]![slot]! + this.mm) * this.inv[at]![slot]! * c.inv;
  }

  /** The `k` skills nearest a request over every store, best first (exact scan). */
  nearest(c: CentredQuery, k: number, hidden: (index: SkillIndex, slot: number) => boolean): DenseNearest[] {
    const best: DenseNearest[] = [];
    let bar = Number.NEGATIVE_INFINITY;
    this.parts.forEach((p, at) => {
      // Every slot's raw dot product at once (the engine's native code when it has it); the rows
      // of skills without a vector are skipped below.
      const dots = rowDots(p, c.q);
      for (let slot = 0; slot < p.has.length; slot++) {
        if (!p.has[slot]) continue;
        const cos = this.centred(c, at, slot, dots[slot]!);
        if (cos <= bar && best.length === k) continue;
        if (hidden(p.index, slot)) continue;
        best.push({ index: p.index, slot, cos });
        best.sort((a, b) => b.cos - a.cos);
        if (best.length > k) best.pop();
        if (best.length === k) bar = best[k - 1]!.cos;
      }
    });
    return best;
  }
}

/** Each slot's vector · `q`, in the engine's native code when it has it (zero rows give 0). */
function rowDots(p: DenseIndex, q: Float32Array): Float32Array {
  const out = new Float32Array(p.has.length);
  if (p.engine.dots) p.engine.dots(p.vectors.subarray(0, out.length * q.length), q, out);
  else {
    const dims = q.length;
    for (let slot = 0; slot < out.length; slot++) {
      if (!p.has[slot]) continue;
      let dot = 0;
      for (let d = 0, off = slot * dims; d < dims; d++) dot += q[d]! * p.vectors[off + d]!;
      out[slot] = dot;
    }
  }
  return out;
}
