// The cost of pathological templates for the main process: how long a 100,000-line template takes
// to check (syntax + variables, as the Composer's `skills/validate` does) and how long the main
// thread is held while it is checked on the worker; and the main process's memory after a render
// that tries to produce a gigabyte (stopped at the renderer's memory cap, the instance replaced).
import { checkTemplate, PromptEngine } from '../electron/templates/index.js';
import { templateVariables } from '../electron/templates/template-variables.js';
import { type BenchOptions, type BenchResult, percentile, r3, sample } from './lib.js';

const mb = (n: number) => Math.round((n / 1024 / 1024) * 10) / 10;

/** Run the templates benchmark. */
export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const lines = opts.quick ? 10_000 : 100_000;
  const template = Array.from(
    { length: lines },
    (_, i) => `{% if v${i % 500} %}line {{ a${i % 300}.b | default(c${i % 200}) }}{% endif %}`,
  ).join('\n');
  const engine = new PromptEngine();
  const n = opts.quick ? 2 : 5;
  const results: BenchResult[] = [];

  const finder = await sample(n, () => templateVariables(template), 1);
  results.push({
    bench: `variables ${lines} lines`,
    unit: 'ms',
    p50: r3(percentile(finder, 50)),
    p95: r3(percentile(finder, 95)),
    n,
  });

  // The longest gap between main-thread ticks while the check runs off-thread.
  const held: number[] = [];
  const total: number[] = [];
  for (let i = 0; i < n; i++) {
    let last = performance.now();
    let worst = 0;
    const tick = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
    }, 5);
    const t = performance.now();
    const r = await checkTemplate(engine, template, 'big.j2');
    total.push(performance.now() - t);
    clearInterval(tick);
    held.push(worst);
    if (!r.ok) throw new Error('the benchmark template should be valid');
  }
  results.push({
    bench: `validate ${lines} lines (worker)`,
    unit: 'ms',
    p50: r3(percentile(total, 50)),
    p95: r3(percentile(total, 95)),
    n,
  });
  results.push({
    bench: 'main thread held during validate',
    unit: 'ms',
    p50: r3(percentile(held, 50)),
    p95: r3(percentile(held, 95)),
    n,
  });

  const gc = (globalThis as { gc?: () => void }).gc;
  const before = process.memoryUsage().rss;
  const t = performance.now();
  let code = '';
  try {
    engine.renderStr(
      '{% for i in range(100000) %}{% for j in range(100000) %}{{ big }}{% endfor %}{% endfor %}',
      {
        big: 'x'.repeat(10_000),
      },
    );
  } catch (e) {
    code = (e as { code?: string }).code ?? 'error';
  }
  const stopped = performance.now() - t;
  const peak = process.memoryUsage().rss;
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 50));
  }
  const after = process.memoryUsage().rss;
  results.push({
    bench: 'gigabyte render (stopped)',
    unit: 'MB',
    n: 1,
    outcome: code,
    stopped_ms: r3(stopped),
    rss_before: mb(before),
    rss_peak: mb(peak),
    rss_after: mb(after),
    gc_exposed: gc ? 1 : 0,
  });
  for (const r of results) opts.log(JSON.stringify(r));
  return results;
}
