import type { StaticEmbedding } from './embedding.js';
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
 * about a third more often. The centred vectors are re-quantised to int8 and scanned with integer
 * dot products against the message's centred vector as int16: exact arithmetic, so the ranking is
 * a function of the catalog and the message alone, whichever machine or code path computes it.
 */

/** How many skills' worth of zero vector the mean is shrunk with (a prior for small catalogs). */
const MEAN_PRIOR = 20;
/** The query's fixed-point scale: int8 vector × int16 query sums stay far inside int32. */
const QUERY_SCALE = 16384;

/** One skill the recall stage found. */
export interface Nearest {
  index: SkillIndex;
  slot: number;
  /** Cosine of the centred vectors, in [-1, 1]. */
  cos: number;
}

interface PartSpace {
  index: SkillIndex;
  scanner: VectorScanner;
  slots: number;
}

/** The centred vectors of a set of stores, valid while none of them changes. */
export class SemanticSpace {
  readonly mean: Float64Array;
  private readonly parts: PartSpace[];

  private constructor(
    readonly embedding: StaticEmbedding,
    indexes: SkillIndex[],
    readonly generations: number[],
  ) {
    const dims = embedding.dims;
    // Integer sums: exact, so the mean does not depend on the order skills were added in.
    const sum = new Float64Array(dims);
    let n = 0;
    for (const ix of indexes) {
      ix.docs.forEach((d, slot) => {
        if (!d || !ix.hasVector(slot)) return;
        n++;
        const o = slot * dims;
        for (let k = 0; k < dims; k++) sum[k] = sum[k]! + ix.vectors[o + k]!;
      });
    }
    this.mean = sum.map((x) => x / 127 / (n + MEAN_PRIOR));
    this.parts = indexes.map((index) => {
      const slots = index.docs.length;
      const scanner = createVectorScanner(dims);
      scanner.reserve(Math.max(1, slots));
      const out = scanner.vectors;
      const c = new Float64Array(dims);
      index.docs.forEach((d, slot) => {
        if (!d || !index.hasVector(slot)) return; // stays zero: never near anything
        const o = slot * dims;
        let norm = 0;
        for (let k = 0; k < dims; k++) {
          c[k] = index.vectors[o + k]! / 127 - this.mean[k]!;
          norm += c[k]! * c[k]!;
        }
        norm = Math.sqrt(norm);
        if (norm === 0) return;
        for (let k = 0; k < dims; k++)
          out[o + k] = Math.max(-127, Math.min(127, Math.round((c[k]! / norm) * 127)));
      });
      return { index, scanner, slots };
    });
  }

  /** Whether the scan runs in WebAssembly SIMD (false: the same integer arithmetic in JavaScript). */
  get simd(): boolean {
    return this.parts.every((p) => p.scanner.simd);
  }

  /** The space of these stores, rebuilt only when one of them changed since the last call. */
  static of(indexes: SkillIndex[]): SemanticSpace | null {
    const e = indexes[0]?.embedding;
    if (!e || indexes.some((ix) => ix.embedding?.id !== e.id)) return null;
    const key = indexes[indexes.length - 1]!;
    const had = spaces.get(key);
    const gens = indexes.map((ix) => ix.generation);
    if (
      had &&
      had.parts.length === indexes.length &&
      had.parts.every((p, i) => p.index === indexes[i] && had.generations[i] === gens[i])
    ) {
      return had;
    }
    const s = new SemanticSpace(e, indexes, gens);
    spaces.set(key, s);
    return s;
  }

  /**
   * The message's centred unit vector in fixed point (what {@link nearest} and {@link cosine}
   * take); null when the embedding knows none of its words.
   */
  query(message: string): Int16Array | null {
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
    for (let k = 0; k < q.length; k++) c[k] = c[k]! / norm;
    return fixedPoint(c);
  }

  /**
   * The `k` skills nearest the query (highest cosine first; ties by name, then store order), over
   * every skill of every store; `skip` leaves out hidden ones.
   */
  nearest(qi: Int16Array, k: number, skip: (index: SkillIndex, slot: number) => boolean): Nearest[] {
    if (k <= 0) return [];
    const top: Array<{ part: number; slot: number; dot: number }> = [];
    const name = (t: { part: number; slot: number }) => this.parts[t.part]!.index.docs[t.slot]!.name;
    const before = (a: { part: number; slot: number; dot: number }, b: typeof a) =>
      a.dot > b.dot || (a.dot === b.dot && (name(a) < name(b) || (name(a) === name(b) && a.part < b.part)));
    // The k-th dot product so far (once there are k): anything below it is out, at one compare.
    let least = Number.NEGATIVE_INFINITY;
    this.parts.forEach((p, pi) => {
      const dots = p.scanner.scan(p.slots, qi);
      const docs = p.index.docs;
      const n = dots.length;
      for (let slot = 0; slot < n; slot++) {
        const dot = dots[slot]!;
        if (dot < least) continue;
        if (!docs[slot] || !p.index.hasVector(slot) || skip(p.index, slot)) continue;
        const x = { part: pi, slot, dot };
        if (top.length === k && !before(x, top[k - 1]!)) continue;
        let i = Math.min(top.length, k - 1);
        if (top.length < k) top.push(x);
        while (i > 0 && before(x, top[i - 1]!)) {
          top[i] = top[i - 1]!;
          i--;
        }
        top[i] = x;
        if (top.length === k) least = top[k - 1]!.dot;
      }
    });
    return top.map((t) => ({
      index: this.parts[t.part]!.index,
      slot: t.slot,
      cos: t.dot / (127 * QUERY_SCALE),
    }));
  }

  /** The cosine of one skill with the query, as {@link nearest} computes it. */
  cosine(qi: Int16Array, index: SkillIndex, slot: number): number {
    const p = this.parts.find((x) => x.index === index);
    if (!p || slot >= p.slots) return 0;
    const v = p.scanner.vectors;
    const dims = this.embedding.dims;
    let dot = 0;
    for (let k = 0, o = slot * dims; k < dims; k++) dot = (dot + v[o + k]! * qi[k]!) | 0;
    return dot / (127 * QUERY_SCALE);
  }
}

const spaces = new WeakMap<SkillIndex, SemanticSpace>();

function fixedPoint(q: Float64Array): Int16Array {
  const out = new Int16Array(q.length);
  for (let k = 0; k < q.length; k++) out[k] = Math.round(q[k]! * QUERY_SCALE);
  return out;
}
