import type { StaticEmbedding } from './embedding.js';
import { type ScanPart, scanThread, type ThreadedScanOptions, threadedScanOptions } from './scan-thread.js';
import type { SkillIndex } from './skill-index.js';
import { createVectorScanner, type VectorScanner } from './vector-scan.js';

/**
 * The semantic recall stage of phase 1: the skills nearest a message by embedding, over the whole
 * catalog (both stores), exactly.
 *
 * Every skill description looks like every other one to a static embedding (they all "create",
 * "files", "the user"): the catalog's mean vector dominates raw cosines. So vectors are centred on
 * the catalog's mean (shrunk towards zero for a small catalog, where a mean says little) and
 * normalised again; on the harness's tuning split this put the target in the semantic top 5
 * about a third more often. The skills' int8 vectors are scanned with integer dot products
 * against the message's centred vector as int16, and centred through per-skill integers (see
 * {@link SemanticSpace}): exact arithmetic, so the ranking is a function of the catalog and the
 * message alone, whichever machine, code path or history of changes computes it.
 */

/** How many skills' worth of zero vector the mean is shrunk with (a prior for small catalogs). */
const MEAN_PRIOR = 20;
/** The query's fixed-point scale: int8 vector × int16 query sums stay far inside int32. */
const QUERY_SCALE = 16384;
/**
 * At most this many changed skills are folded in incrementally (their summed change to the
 * catalog's vector sum then fits the scanner's int16 query); more, and the space is rebuilt.
 */
const MAX_CHANGES = 128;
/**
 * A store with more than this many slots is scanned in two steps: its first {@link SAMPLE} vectors,
 * whose k-th best score so far bounds the k-th of the whole catalog from below, then the rest in
 * WebAssembly keeping only the vectors at or above that score (a few hundred of 100k), so the
 * choosing in JavaScript reads a few hundred results instead of every one. Exact: no skill that
 * could be among the k best is left out.
 */
const FILTER_FROM = 8192;
const SAMPLE = 2048;

/** One skill the recall stage found. */
export interface Nearest {
  index: SkillIndex;
  slot: number;
  /** Cosine of the centred vectors, in [-1, 1]. */
  cos: number;
}

interface PartSpace {
  index: SkillIndex;
  /** The skills' own int8 vectors (zero where none), scanned against the centred query. */
  scanner: VectorScanner;
  slots: number;
  /** The index generation these vectors are of. */
  generation: number;
  /** Per slot: whether the skill has a vector (and counts in the mean). */
  has: Uint8Array;
  /** Per slot: |v|², an exact integer. */
  sq: Float64Array;
  /** Per slot: S·v with S the catalog's integer vector sum, exact. */
  sv: Float64Array;
}

/**
 * The catalog-centred vectors of a set of stores, kept in step with them at the cost of each
 * change.
 *
 * The cosine of the centred query c_q with a centred skill v − m (m the shrunk catalog mean, in
 * int8 units) is (c_q·v − c_q·m) / |c_q| |v − m|, and |v − m|² = |v|² − 2 S·v / (n + prior) + |m|²
 * with S the integer sum of the catalog's vectors. So the scan runs over the skills' own vectors,
 * and per skill only |v|² and S·v are kept, both exact integers: a change of a few skills moves S
 * by ΔS, and every S·v by ΔS·v, which is one more integer scan, not a rebuild. Whatever the
 * history (built at once or changed skill by skill), the same catalog holds the same integers, so
 * the same message gets the same ranking.
 */
export class SemanticSpace {
  /** The catalog's (shrunk) mean vector, in the embedding's units. */
  readonly mean: Float64Array;
  /** How many times the vectors were rebuilt whole, and how many changes were folded in. */
  readonly stats = { builds: 0, updates: 0 };
  private readonly sum: Float64Array;
  private count = 0;
  private readonly parts: PartSpace[];

  private constructor(
    readonly embedding: StaticEmbedding,
    indexes: SkillIndex[],
  ) {
    const dims = embedding.dims;
    this.mean = new Float64Array(dims);
    this.sum = new Float64Array(dims);
    this.parts = indexes.map((index) => ({
      index,
      scanner: createVectorScanner(dims),
      slots: 0,
      generation: -1,
      has: new Uint8Array(0),
      sq: new Float64Array(0),
      sv: new Float64Array(0),
    }));
    this.build();
  }

  /** Whether the scan runs in WebAssembly SIMD (false: the same integer arithmetic in JavaScript). */
  get simd(): boolean {
    return this.parts.every((p) => p.scanner.simd);
  }

  /** The space of these stores, brought up to date with their changes since the last call. */
  static of(indexes: SkillIndex[]): SemanticSpace | null {
    const e = indexes[0]?.embedding;
    if (!e || indexes.some((ix) => ix.embedding?.id !== e.id)) return null;
    const key = indexes[indexes.length - 1]!;
    const had = spaces.get(key);
    if (had && had.parts.length === indexes.length && had.parts.every((p, i) => p.index === indexes[i])) {
      had.catchUp();
      return had;
    }
    const s = new SemanticSpace(e, indexes);
    spaces.set(key, s);
    return s;
  }

  /** Make room for a part's slots (keeping what it has). */
  private grow(p: PartSpace, slots: number): void {
    p.scanner.reserve(Math.max(1, slots));
    if (p.has.length >= slots) return;
    const cap = Math.max(slots, p.has.length * 2, 64);
    const has = new Uint8Array(cap);
    has.set(p.has);
    p.has = has;
    for (const k of ['sq', 'sv'] as const) {
      const a = new Float64Array(cap);
      a.set(p[k]);
      p[k] = a;
    }
  }

  /** Everything from the indexes: the vectors, their sum and every S·v. */
  private build(): void {
    const dims = this.embedding.dims;
    const sum = this.sum;
    sum.fill(0);
    this.count = 0;
    for (const p of this.parts) {
      const ix = p.index;
      const slots = ix.docs.length;
      this.grow(p, slots);
      const out = p.scanner.vectors;
      const src = ix.vectors;
      out.fill(0, 0, Math.max(p.slots, slots) * dims);
      for (let slot = 0; slot < slots; slot++) {
        const on = ix.docs[slot] !== null && ix.hasVector(slot);
        p.has[slot] = on ? 1 : 0;
        p.sq[slot] = 0;
        if (!on) continue;
        this.count++;
        const o = slot * dims;
        let sq = 0;
        for (let k = 0; k < dims; k++) {
          const x = src[o + k]!;
          out[o + k] = x;
          sum[k] = sum[k]! + x;
          sq += x * x;
        }
        p.sq[slot] = sq;
      }
      p.has.fill(0, slots);
      p.slots = slots;
      p.generation = ix.generation;
    }
    for (const p of this.parts) {
      const v = p.scanner.vectors;
      for (let slot = 0; slot < p.slots; slot++) p.sv[slot] = p.has[slot] ? dot(sum, v, slot * dims) : 0;
    }
    this.stats.builds++;
    this.renorm();
  }

  /** Fold in the indexes' changes since this space last saw them (a rebuild when too many). */
  private catchUp(): void {
    if (this.parts.every((p) => p.generation === p.index.generation)) return;
    const changed = this.parts.map((p) => p.index.slotsChangedSince(p.generation));
    let n = 0;
    for (const c of changed) n = c === null ? Number.POSITIVE_INFINITY : n + c.length;
    if (n > MAX_CHANGES) {
      this.build();
      return;
    }
    const dims = this.embedding.dims;
    const delta = new Int16Array(dims);
    this.parts.forEach((p, pi) => {
      const ix = p.index;
      const slots = Math.max(p.slots, ix.docs.length);
      this.grow(p, slots);
      const v = p.scanner.vectors;
      // Slots new to this space start empty (the scanner's memory there may hold anything).
      v.fill(0, p.slots * dims, slots * dims);
      p.has.fill(0, p.slots, slots);
      for (const slot of changed[pi]!) {
        const o = slot * dims;
        if (p.has[slot]) {
          this.count--;
          for (let k = 0; k < dims; k++) delta[k] = delta[k]! - v[o + k]!;
        }
        const on = slot < ix.docs.length && ix.docs[slot] !== null && ix.hasVector(slot);
        p.has[slot] = on ? 1 : 0;
        let sq = 0;
        for (let k = 0; k < dims; k++) {
          const x = on ? ix.vectors[o + k]! : 0;
          v[o + k] = x;
          delta[k] = delta[k]! + x;
          sq += x * x;
        }
        p.sq[slot] = sq;
        if (on) this.count++;
      }
      p.slots = slots;
      p.generation = ix.generation;
    });
    for (let k = 0; k < dims; k++) this.sum[k] = this.sum[k]! + delta[k]!;
    if (delta.some((x) => x !== 0)) {
      // Every S·v moves by ΔS·v: one integer scan per store.
      for (const p of this.parts) {
        const d = p.scanner.scan(p.slots, delta);
        for (let slot = 0; slot < p.slots; slot++) if (p.has[slot]) p.sv[slot] = p.sv[slot]! + d[slot]!;
      }
    }
    // A changed skill's own S·v is computed afresh (it held the old vector's).
    this.parts.forEach((p, pi) => {
      const v = p.scanner.vectors;
      for (const slot of changed[pi]!) p.sv[slot] = p.has[slot] ? dot(this.sum, v, slot * dims) : 0;
    });
    this.stats.updates++;
    this.renorm();
  }

  /** The mean and every skill's centred norm, from the exact integers. */
  private renorm(): void {
    const dims = this.embedding.dims;
    const d = this.count + MEAN_PRIOR;
    let meanSq = 0;
    for (let k = 0; k < dims; k++) {
      const m = this.sum[k]! / d;
      this.mean[k] = m / 127;
      meanSq += m * m;
    }
    for (const p of this.parts) {
      // The scanner holds each vector's 1 / |v − m| (0 when none), read where it scans.
      const inv = p.scanner.weights;
      for (let slot = 0; slot < p.slots; slot++) {
        if (!p.has[slot]) {
          inv[slot] = 0;
          continue;
        }
        const n2 = p.sq[slot]! - (2 * p.sv[slot]!) / d + meanSq;
        inv[slot] = n2 > 0 ? 1 / Math.sqrt(n2) : 0;
      }
    }
  }

  /**
   * The message's centred unit vector in fixed point (what {@link nearest} and {@link cosine}
   * take); null when the embedding knows none of its words.
   */
  query(message: string): Query | null {
    const q = this.embedding.embed(message);
    if (!q) return null;
    const c = new Float64Array(q.length);
    let norm = 0;
    for (let k = 0; k < q.length; k++) {
      c[k] = q[k]! - this.mean[k]!;
      norm += c[k]! * c[k]!;
    }
    norm = Math.sqrt(norm);
    if (norm === 0) return null;
    const fixed = new Int16Array(q.length);
    // c_q·m in int8 units: Σ Q_k S_k (an exact integer) over n + prior.
    let qs = 0;
    for (let k = 0; k < q.length; k++) {
      fixed[k] = Math.round((c[k]! / norm) * QUERY_SCALE);
      qs += fixed[k]! * this.sum[k]!;
    }
    return { fixed, offset: qs / (this.count + MEAN_PRIOR) };
  }

  /**
   * The `k` skills nearest the query (highest cosine first; ties by name, then store order), over
   * every skill of every store; `skip` leaves out hidden ones.
   */
  nearest(q: Query, k: number, skip: (index: SkillIndex, slot: number) => boolean): Nearest[] {
    return this.search(q, k, skip, false).finish();
  }

  /**
   * {@link nearest} in two halves, so the caller can work meanwhile: a store of
   * {@link ThreadedScanOptions.from} skills or more is scanned on the scan thread (when it is up;
   * `threaded: false` never), its first vectors here; `finish` then waits for it and gives exactly
   * what {@link nearest} gives. Nothing may change the indexes in between.
   *
   * Exact because the choosing below does not depend on the order skills are offered in (ties
   * are broken by name, then store), and every skill that can be among the k best is offered:
   * the other thread keeps the vectors whose score reaches the k-th best found here before it
   * started, a bar no higher than the final k-th best.
   */
  search(
    q: Query,
    k: number,
    skip: (index: SkillIndex, slot: number) => boolean,
    threaded = true,
  ): NearestSearch {
    if (k <= 0) return { threaded: false, finish: () => [] };
    const top: Array<{ part: number; slot: number; score: number }> = [];
    const name = (t: { part: number; slot: number }) => this.parts[t.part]!.index.docs[t.slot]!.name;
    const before = (a: { part: number; slot: number; score: number }, b: typeof a) =>
      a.score > b.score ||
      (a.score === b.score && (name(a) < name(b) || (name(a) === name(b) && a.part < b.part)));
    // The k-th score so far (once there are k): anything below it is out, at one compare.
    let least = Number.NEGATIVE_INFINITY;
    const offset = q.offset;
    const offer = (pi: number, p: PartSpace, slot: number, score: number) => {
      if (!p.has[slot] || !p.index.docs[slot] || skip(p.index, slot)) return;
      const x = { part: pi, slot, score };
      if (top.length === k && !before(x, top[k - 1]!)) return;
      let i = Math.min(top.length, k - 1);
      if (top.length < k) top.push(x);
      while (i > 0 && before(x, top[i - 1]!)) {
        top[i] = top[i - 1]!;
        i--;
      }
      top[i] = x;
      if (top.length === k) least = top[k - 1]!.score;
    };
    const offerAll = (pi: number, p: PartSpace, rows: Int32Array, dots: Int32Array) => {
      const inv = p.scanner.weights;
      for (let i = 0; i < rows.length; i++) {
        const slot = rows[i]!;
        const score = (dots[i]! - offset) * inv[slot]!;
        if (score >= least) offer(pi, p, slot, score);
      }
    };
    const opts = threadedScanOptions();
    const thread =
      threaded && this.parts.some((p) => p.slots >= opts.from && p.scanner.shared) ? scanThread() : null;
    // The stores whose rest is scanned on both threads: which, and their share.
    const away: Array<{ pi: number; p: PartSpace; job: ScanPart }> = [];
    this.parts.forEach((p, pi) => {
      const n = p.slots;
      const inv = p.scanner.weights;
      const shared = thread && n >= opts.from ? p.scanner.shared : null;
      const first = shared ? Math.min(opts.sample, n) : n > FILTER_FROM ? SAMPLE : n;
      const dots = p.scanner.scan(first, q.fixed);
      for (let slot = 0; slot < first; slot++) {
        const score = (dots[slot]! - offset) * inv[slot]!;
        if (score >= least) offer(pi, p, slot, score);
      }
      if (first === n) return;
      if (shared) {
        away.push({ pi, p, job: { scan: shared, from: first, to: n, query: q.fixed, offset, least } });
        return;
      }
      const rest = p.scanner.scanAbove(first, n, q.fixed, offset, least);
      offerAll(pi, p, rest.rows, rest.dots);
    });
    const sent = away.length > 0 && thread !== null && thread.submit(away.map((a) => a.job));
    const result = () =>
      top.map((t) => ({
        index: this.parts[t.part]!.index,
        slot: t.slot,
        cos: t.score / QUERY_SCALE,
      }));
    let done: Nearest[] | null = null;
    return {
      threaded: sent,
      finish: () => {
        if (done) return done;
        if (sent) {
          for (const r of thread!.collect()) {
            const { pi, p } = away[r.part]!;
            // A chunk the thread could not scan is scanned here, at the bar reached by now
            // (still no higher than the final one).
            const kept = r.kept ?? p.scanner.scanAbove(r.from, r.to, q.fixed, offset, least);
            offerAll(pi, p, kept.rows, kept.dots);
          }
        } else {
          for (const { pi, p, job } of away) {
            const rest = p.scanner.scanAbove(job.from, job.to, q.fixed, offset, least);
            offerAll(pi, p, rest.rows, rest.dots);
          }
        }
        done = result();
        return done;
      },
    };
  }

  /** The cosine of one skill with the query, as {@link nearest} computes it. */
  cosine(q: Query, index: SkillIndex, slot: number): number {
    const p = this.parts.find((x) => x.index === index);
    if (!p || slot >= p.slots || !p.has[slot]) return 0;
    const v = p.scanner.vectors;
    const dims = this.embedding.dims;
    let d = 0;
    for (let k = 0, o = slot * dims; k < dims; k++) d = (d + v[o + k]! * q.fixed[k]!) | 0;
    return ((d - q.offset) * p.scanner.weights[slot]!) / QUERY_SCALE;
  }
}

/** A nearest search under way ({@link SemanticSpace.search}). */
export interface NearestSearch {
  /** Whether the scan thread took part of it. */
  readonly threaded: boolean;
  /** The nearest skills, as {@link SemanticSpace.nearest} gives them (waits for the scan thread). */
  finish(): Nearest[];
}

/** A message's centred unit vector in fixed point, and its dot product with the catalog mean. */
export interface Query {
  fixed: Int16Array;
  offset: number;
}

/** S·v for the int8 vector at `o` (an exact integer). */
function dot(sum: Float64Array, v: Int8Array, o: number): number {
  let d = 0;
  for (let k = 0; k < sum.length; k++) d += sum[k]! * v[o + k]!;
  return d;
}

const spaces = new WeakMap<SkillIndex, SemanticSpace>();
