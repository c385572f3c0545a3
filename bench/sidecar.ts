// The DSPy sidecar: cold start (spawn + handshake; spawn to the first execute) and per-request overhead of
// execute with an instant LM handler (so LM time is excluded), plus a bare protocol round trip.
import { createSidecarClient } from '../electron/sidecar-client/index.js';
import { fakeLm, NO_VENV, withLm } from '../electron/sidecar-client/test-lm.js';
import { type BenchOptions, type BenchResult, percentile, r3, sample } from './lib.js';

function stats(bench: string, samples: number[], extra: Record<string, unknown> = {}): BenchResult {
  return {
    bench,
    unit: 'ms',
    p50: r3(percentile(samples, 50)),
    p95: r3(percentile(samples, 95)),
    n: samples.length,
    ...extra,
  };
}

/** Sidecar cold start and per-request overhead. Skipped (no results) without sidecar/.venv. */
export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  if (NO_VENV) {
    opts.log(`skipped: ${NO_VENV}`);
    return [];
  }
  const colds = opts.quick ? 1 : 3;
  const requests = opts.quick ? 20 : 200;

  // The handshake does not wait for DSPy's import, so the first execute of a fresh process is
  // measured too: spawn to the first answer, the import included.
  const cold: number[] = [];
  const coldExecute: number[] = [];
  for (let i = 0; i < colds; i++) {
    const client = withLm(createSidecarClient({ idleTimeoutMs: 0 }), fakeLm);
    const t = performance.now();
    await client.start();
    cold.push(performance.now() - t);
    await client.execute({ template_id: 'predict', signature: 'word -> upper', params: { word: 'cold' } });
    coldExecute.push(performance.now() - t);
    await client.dispose();
  }

  const client = withLm(createSidecarClient({ idleTimeoutMs: 0 }), fakeLm);
  try {
    await client.start();
    const ping = await sample(requests, () => client.ping());
    const predict = await sample(requests, (i) =>
      client.execute({ template_id: 'predict', signature: 'word -> upper', params: { word: `w${i}` } }),
    );
    const cot = await sample(requests, (i) =>
      client.execute({
        template_id: 'chain_of_thought',
        signature: 'word -> upper',
        params: { word: `w${i}` },
      }),
    );
    return [
      stats('sidecar.cold_start', cold, { note: 'spawn + handshake (DSPy imports in the background)' }),
      stats('sidecar.cold_first_execute', coldExecute, { note: 'spawn to the first execute answered' }),
      stats('sidecar.ping', ping),
      stats('sidecar.execute_predict', predict, { note: 'LM answers instantly: sidecar overhead only' }),
      stats('sidecar.execute_chain_of_thought', cot, { note: 'LM answers instantly: sidecar overhead only' }),
    ];
  } finally {
    await client.dispose();
  }
}
