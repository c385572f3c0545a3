/**
 * How the catalog-centred e5 cosine joins the fast path's score in the full phase 1. Kept apart
 * from phase 1's scoring so the fusion can be tuned (bench/retrieval-e5.ts) without touching the
 * lexical hot path.
 */

/** How the e5 cosine joins phase 1's fused score (see {@link DENSE_FUSION}). */
export interface DenseFusion {
  /**
   * `ramp`: `(1 − weight) · fast + weight · ramp(c)`, ramp(c) rising from 0 at `floor` to 1 at
   * `ceil` — an absolute score, so one cut serves every message; `minmax`: both signals scaled to
   * [0, 1] over the candidates and mixed by `weight` (a relative score: the best candidate always
   * scores near 1); `weighted`: the fast path's score plus a small bonus
   * `(fast + weight · max(0, c − floor)) / (1 + weight · (1 − floor))`; `rrf`: reciprocal-rank
   * fusion of the fast path's order and the e5 order over the same candidates.
   */
  mode: 'ramp' | 'minmax' | 'weighted' | 'rrf';
  /** The rank offset of reciprocal-rank fusion. */
  rrfK: number;
  /** The dense candidates fused: the `k` nearest skills of the whole catalog. */
  k: number;
  /** e5's share of the score. */
  weight: number;
  /** The centred cosine at which e5 starts to count. */
  floor: number;
  /** The centred cosine at which e5's share is full (`ramp`). */
  ceil: number;
  /** The least centred cosine at which a skill sharing no word with the message is a match. */
  meaningMin: number;
  /**
   * The second model's (all-MiniLM-L6-v2) share of the reciprocal-rank fusion, a third ranking
   * beside the fast path's and e5's (`rrf` only; 0 leaves it out).
   */
  secondWeight: number;
  /** The second model's candidates: its `secondK` nearest skills of the whole catalog. */
  secondK: number;
  /** {@link meaningMin} of the second model's centred cosine. */
  secondMeaningMin: number;
  /**
   * `rrf`: the fast path's best score from which the sentence models' shares shrink, reaching zero
   * as it nears 1 (a request in a skill's own words is ranked by its words); 1 leaves them whole.
   */
  sureFast: number;
  /** e5's share of a match's absolute {@link confidence}. */
  confidenceWeight: number;
  /** The centred cosine from which e5 adds to the confidence. */
  confidenceFloor: number;
  /** The centred cosine at which e5's part of the confidence is full. */
  confidenceCeil: number;
  /**
   * With the dense signal on, a match whose fused score is below this reaches no one (the
   * system prompt's index, `skills match`): what keeps near-zero matches by meaning alone out.
   */
  minScore: number;
}

/**
 * The shipped fusion: reciprocal-rank fusion of the fast path's order and the e5 order (offset 1,
 * e5 counting half), so a skill e5 ranks high gets a real share of the ranking whatever its words.
 * Tuned on the retrieval harness at 100 and 1,000 skills without forbidding the loss of a
 * fast-path top-5 match; the gains and losses, and the settings it beat, are in
 * docs/retrieval-e5.md. A rank says nothing about how sure the match is, so the score a match
 * reports (and the prompt's cut reads) is the absolute {@link confidence}.
 */
export const DENSE_FUSION: DenseFusion = {
  mode: 'rrf',
  rrfK: 1,
  k: 20,
  weight: 0.5,
  floor: 0.05,
  ceil: 0.45,
  meaningMin: 0.3,
  secondWeight: 0.7,
  secondK: 20,
  secondMeaningMin: 0.3,
  sureFast: 1,
  minScore: 0.015,
  confidenceWeight: 0.3,
  confidenceFloor: 0.1,
  confidenceCeil: 0.4,
};

/**
 * The absolute confidence of a match, in [0, 1): `(1 − w) · fast + w · agree`, `agree` the centred
 * e5 cosine ramped from 0 at `confidenceFloor` to 1 at `confidenceCeil` (a skill without a vector
 * yet keeps its fast-path score). A skill that shares a word with the message but none of its
 * meaning ("write me a haiku about the sea" against a skill that writes internal communications)
 * loses up to 30% of its score and falls under the prompt's cut, `PROMPT_MIN_SCORE`; one e5 agrees
 * with keeps it. Chosen by the F1 at that cut on the tuning split (`bench/match-threshold.ts --e5`,
 * the seed skills alone and 1,000 skills); the held-out figures are in docs/retrieval-e5.md. With the
 * second model in use, `agree` is the mean of the two models' ramps.
 */
export function confidence(
  fast: number,
  dense: number | null,
  f: DenseFusion,
  second: number | null = null,
): number {
  if (dense === null) return fast;
  const span = Math.max(1e-9, f.confidenceCeil - f.confidenceFloor);
  const ramp = (c: number) => Math.min(1, Math.max(0, (c - f.confidenceFloor) / span));
  // With the second model, the two models' mean: a paraphrase only the second model places keeps a
  // score (rather than zero, dropped under `minScore` whatever its rank), and one model alone
  // cannot lift a shared word over the prompt's cut. The larger of the two (tried first) kept more
  // unrelated skills in a small catalog's prompt: tuning precision at the cut 0.78 with the mean,
  // 0.70 with the larger, 0.84 with e5 alone (bench/match-threshold.ts 17 --e5).
  const agree = second === null || f.secondWeight <= 0 ? ramp(dense) : (ramp(dense) + ramp(second)) / 2;
  return (1 - f.confidenceWeight) * fast + f.confidenceWeight * agree;
}

/**
 * One candidate of the fusion: the fast path's score in [0, 1) and the centred cosines (`second`
 * absent when the second model is not in use, null when the skill has no vector by it yet).
 */
export interface DenseCandidate {
  fast: number;
  dense: number | null;
  second?: number | null;
}

/**
 * The fused score of each candidate, in [0, 1), in the candidates' order. The ranking is by this
 * score (a verbatim trigger phrase still ranks first; the caller sees to that).
 *
 * A candidate without a vector yet (just imported, still being embedded) is neither helped nor
 * hurt by e5: its meaning term is taken to agree with its words (its fast-path score, or its
 * fast-path rank). Scored as zero, a new skill that every word of the request named fell below
 * skills with vectors that merely shared its topic, until its vector arrived.
 */
export function fuseDense(c: readonly DenseCandidate[], f: DenseFusion): number[] {
  switch (f.mode) {
    case 'weighted': {
      const norm = 1 + f.weight * (1 - f.floor);
      return c.map((s) =>
        s.dense === null ? s.fast : (s.fast + f.weight * Math.max(0, s.dense - f.floor)) / norm,
      );
    }
    case 'ramp': {
      const span = Math.max(1e-9, f.ceil - f.floor);
      return c.map((s) =>
        s.dense === null
          ? s.fast
          : (1 - f.weight) * s.fast + f.weight * Math.min(1, Math.max(0, (s.dense - f.floor) / span)),
      );
    }
    case 'minmax': {
      const scale = (xs: number[]) => {
        const lo = Math.min(...xs);
        const hi = Math.max(...xs);
        return (x: number) => (hi > lo ? (x - lo) / (hi - lo) : xs.length ? 1 : 0);
      };
      const fasts = c.map((s) => s.fast);
      const denses = c.flatMap((s) => (s.dense == null ? [] : [s.dense]));
      const sf = scale(fasts);
      const sd = scale(denses);
      return c.map(
        (s) =>
          0.999 * ((1 - f.weight) * sf(s.fast) + f.weight * (s.dense == null ? sf(s.fast) : sd(s.dense))),
      );
    }
    case 'rrf': {
      // Ranks among the candidates the signal found (ties by candidate order, itself deterministic).
      const ranks = (key: (s: DenseCandidate) => number | null) => {
        const idx = c.map((_, i) => i).filter((i) => key(c[i]!) !== null);
        idx.sort((a, b) => key(c[b]!)! - key(c[a]!)! || a - b);
        return new Map(idx.map((i, r) => [i, r + 1] as const));
      };
      const rf = ranks((s) => (s.fast > 0 ? s.fast : null));
      const rd = ranks((s) => s.dense);
      const withSecond = c.some((s) => s.second !== undefined) && f.secondWeight > 0;
      const r2 = withSecond ? ranks((s) => s.second ?? null) : null;
      const best = c.reduce((m, s) => Math.max(m, s.fast), 0);
      const g = f.sureFast < 1 ? Math.min(1, Math.max(0, (1 - best) / (1 - f.sureFast))) : 1;
      const w1 = g * f.weight;
      const w2 = g * f.secondWeight;
      const top = (1 + w1 + (r2 ? w2 : 0)) / (f.rrfK + 1);
      // A signal's term for one candidate: by its rank, or, without a vector yet, agreeing with the
      // fast path's rank (see above).
      const term = (r: Map<number, number>, w: number, i: number, a: number, v: number | null | undefined) =>
        r.has(i) ? w / (f.rrfK + r.get(i)!) : v === null ? w * a : 0;
      return c.map((s, i) => {
        const a = rf.has(i) ? 1 / (f.rrfK + rf.get(i)!) : 0;
        const b = term(rd, w1, i, a, s.dense);
        const d = r2 ? term(r2, w2, i, a, s.second) : 0;
        return (0.999 * (a + b + d)) / top;
      });
    }
  }
}
