/** One benchmark figure, printed as a JSON line with `--json`. */
export interface BenchResult {
  bench: string;
  unit: string;
  p50?: number;
  p95?: number;
  n: number;
  [extra: string]: unknown;
}

/** Options every benchmark module receives. */
export interface BenchOptions {
  json: boolean;
  /** Smaller sizes, for a smoke run in tests. */
  quick: boolean;
  /** Print progress / human lines (stderr when json). */
  log: (line: string) => void;
}

/** A benchmark module: `bench/<name>.ts` exports `run`. */
export type BenchModule = { run: (opts: BenchOptions) => Promise<BenchResult[]> };

/** The p-th percentile (0..100) of `samples`, nearest-rank. */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Round to 3 decimals for printing. */
export function r3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** Time `fn` `n` times (after `warmup` runs) and return the samples in milliseconds. */
export async function sample(
  n: number,
  fn: (i: number) => unknown,
  warmup = Math.min(20, n),
): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn(i);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}
