import { describe, expect, it } from 'vitest';
import { confidence, DENSE_FUSION, type DenseFusion, fuseDense } from './dense-fusion.js';
import { PROMPT_MIN_SCORE } from './phase1.js';

const f = (over: Partial<DenseFusion> = {}): DenseFusion => ({ ...DENSE_FUSION, ...over });
const order = (scores: number[]) =>
  scores
    .map((s, i) => [s, i] as const)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1])
    .map(([, i]) => i);

describe('dense fusion', () => {
  // By words 0 > 1 > 2 > 3; by e5 2 > 3 > 0 > 1.
  const c = [
    { fast: 0.8, dense: 0.02 },
    { fast: 0.6, dense: -0.05 },
    { fast: 0.5, dense: 0.55 },
    { fast: 0.4, dense: 0.3 },
  ];

  it('gives e5 a real share of the ranking (reciprocal-rank fusion, shipped)', () => {
    // The small bonus of the old weighted form leaves the words' order as it was…
    expect(order(fuseDense(c, f({ mode: 'weighted', weight: 0.05, floor: 0.05 })))).toEqual([0, 1, 2, 3]);
    // …where fused by rank, e5's first overtakes the words' second.
    const shipped = fuseDense(c, f());
    expect(order(shipped)).toEqual([0, 2, 1, 3]);
    for (const s of shipped) expect(s).toBeGreaterThanOrEqual(0);
    for (const s of shipped) expect(s).toBeLessThan(1);
  });

  it('scales both signals over the candidates in min-max mode', () => {
    const s = fuseDense(c, f({ mode: 'minmax', weight: 0.5 }));
    expect(order(s)).toEqual([2, 0, 3, 1]);
    expect(Math.max(...s)).toBeLessThan(1);
  });

  it('ramps e5 into an absolute score in ramp mode', () => {
    const s = fuseDense(c, f({ mode: 'ramp', weight: 0.2, floor: 0.05, ceil: 0.45 }));
    expect(s[2]).toBeCloseTo(0.8 * 0.5 + 0.2 * 1, 9);
    expect(s[0]).toBeCloseTo(0.8 * 0.8, 9);
    expect(s[1]).toBeCloseTo(0.8 * 0.6, 9);
  });

  it('neither helps nor hurts a skill without a vector yet (just imported, still being embedded)', () => {
    // Every word of the request names the new skill; an older one is close in meaning only.
    const fresh = [
      { fast: 0.9, dense: null },
      { fast: 0.5, dense: 0.6 },
    ];
    for (const mode of ['rrf', 'minmax', 'ramp', 'weighted'] as const)
      expect(order(fuseDense(fresh, f({ mode }))), mode).toEqual([0, 1]);
    // In the absolute modes it keeps exactly its fast-path score.
    expect(fuseDense(fresh, f({ mode: 'ramp' }))[0]).toBe(0.9);
    expect(fuseDense(fresh, f({ mode: 'weighted' }))[0]).toBe(0.9);
  });

  it('fuses the second model as a third ranking, and only when it is in use', () => {
    // By words 0 > 1 > 2; by e5 0 > 1 > 2; by the second model 2 > 1 > 0.
    const three = [
      { fast: 0.8, dense: 0.5, second: 0.1 },
      { fast: 0.6, dense: 0.4, second: 0.3 },
      { fast: 0.5, dense: 0.3, second: 0.6 },
    ];
    const s = fuseDense(three, f({ secondWeight: 1 }));
    // Equal shares: 2's first place by the second model outweighs its last by e5 at half share.
    expect(order(s)).toEqual([0, 2, 1]);
    for (const x of s) expect(x).toBeLessThan(1);
    // The top of the scale moves with the signals in use: a candidate first by all three scores
    // as one first by both signals scored without the second model.
    const best = fuseDense([{ fast: 0.9, dense: 0.5, second: 0.5 }], f())[0]!;
    expect(best).toBeCloseTo(fuseDense([{ fast: 0.9, dense: 0.5 }], f())[0]!, 12);
    // Weight 0 is the two-signal fusion exactly.
    const off = fuseDense(three, f({ secondWeight: 0 }));
    expect(off).toEqual(
      fuseDense(
        three.map(({ second: _, ...x }) => x),
        f(),
      ),
    );
    // A skill without the second model's vector yet takes its words' rank for it, as for e5.
    const pending = fuseDense(
      [
        { fast: 0.9, dense: 0.5, second: null },
        { fast: 0.5, dense: 0.4, second: 0.6 },
      ],
      f(),
    );
    expect(order(pending)).toEqual([0, 1]);
  });

  it('can shrink the sentence models’ shares as the fast path is surer (sureFast; off as shipped)', () => {
    // The words' first is sure (0.99): with sureFast 0.9 the models barely move it.
    const sure = [
      { fast: 0.99, dense: 0.0, second: 0.0 },
      { fast: 0.6, dense: 0.6, second: 0.6 },
    ];
    expect(order(fuseDense(sure, f({ secondWeight: 1 })))).toEqual([1, 0]);
    expect(order(fuseDense(sure, f({ secondWeight: 1, sureFast: 0.9 })))).toEqual([0, 1]);
    // Below the threshold it is the plain fusion.
    const unsure = sure.map((x, i) => ({ ...x, fast: i === 0 ? 0.85 : 0.6 }));
    expect(fuseDense(unsure, f({ sureFast: 0.9 }))).toEqual(fuseDense(unsure, f()));
    expect(f().sureFast).toBe(1);
  });

  it('keeps a shared word without shared meaning out of the prompt, and a real match in', () => {
    // "write me a haiku about the sea" against a skill for internal communications: one common
    // word, a fast score just over the cut, e5 unmoved.
    expect(confidence(0.69, 0.02, f())).toBeLessThan(PROMPT_MIN_SCORE);
    // The same words with e5 agreeing stay in.
    expect(confidence(0.69, 0.45, f())).toBeGreaterThanOrEqual(PROMPT_MIN_SCORE);
    // A skill not embedded yet keeps its fast-path score: no vector is no evidence against it.
    expect(confidence(0.69, null, f())).toBe(0.69);
    // With the second model the two agreements are averaged: one model alone does not keep a
    // shared word in; both do.
    expect(confidence(0.69, 0.02, f(), 0.02)).toBeLessThan(PROMPT_MIN_SCORE);
    expect(confidence(0.69, 0.02, f(), 0.45)).toBeLessThan(PROMPT_MIN_SCORE);
    expect(confidence(0.69, 0.45, f(), 0.45)).toBeGreaterThanOrEqual(PROMPT_MIN_SCORE);
    // A paraphrase only the second model places keeps a score above the match floor.
    expect(confidence(0, 0, f(), 0.45)).toBeGreaterThan(f().minScore);
    // Monotone in both signals.
    expect(confidence(0.7, 0.2, f())).toBeGreaterThan(confidence(0.6, 0.2, f()));
    expect(confidence(0.6, 0.3, f())).toBeGreaterThan(confidence(0.6, 0.2, f()));
  });
});
