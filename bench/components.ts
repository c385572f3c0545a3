// WebAssembly components (`wasm_component`): transpile + first compile of a new component, its first
// run, warm runs of a trivial (hand-written) and of a JavaScript component (back to back, and after
// the worker was idle), and a CPU loop in a JavaScript component against the same loop in Node.
// Components are built here (componentize-js, cached in the OS temp folder by source hash; the
// build itself is not measured).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsComponent, KITCHEN_JS, watComponent } from '../electron/kinds/wasm_component/fixtures.js';
import { prepareComponent, SandboxPool } from '../electron/sandbox/index.js';
import { type BenchOptions, type BenchResult, percentile, r3, sample } from './lib.js';

function summary(bench: string, samples: number[], extra: Record<string, unknown> = {}): BenchResult {
  return {
    bench,
    unit: 'ms',
    p50: r3(percentile(samples, 50)),
    p95: r3(percentile(samples, 95)),
    n: samples.length,
    ...extra,
  };
}

/** The same loop as the component's `cpu` action. */
function nodeLoop(n: number): number {
  let x = 0;
  for (let i = 0; i < n; i++) x = (x * 31 + i) % 1000003;
  return x;
}

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'skilldesk-bench-components-'));
  const pool = new SandboxPool({ componentDir: dir });
  try {
    await pool.warmup();
    const kitchen = await jsComponent(KITCHEN_JS);
    const trivial = await watComponent('ok');

    // Transpile (jco) + the sandbox's first compile and run of a component it has never seen.
    let t = performance.now();
    const js = await prepareComponent(kitchen, dir);
    const transpileMs = performance.now() - t;
    t = performance.now();
    const first = await pool.runComponent(js.sha256, JSON.stringify({ do: 'sum', a: 1, b: 2 }));
    const firstMs = performance.now() - t;
    if (!first.ok) throw new Error(`first run failed: ${JSON.stringify(first.error)}`);
    out.push({
      bench: 'components.js.transpile_once',
      unit: 'ms',
      p50: r3(transpileMs),
      n: 1,
      size_mb: r3(kitchen.length / 1048576),
    });
    out.push({
      bench: 'components.js.first_run',
      unit: 'ms',
      p50: r3(firstMs),
      n: 1,
      compile_and_worker: true,
    });

    const n = opts.quick ? 10 : 50;
    const warmJs = await sample(
      n,
      () => pool.runComponent(js.sha256, JSON.stringify({ do: 'sum', a: 1, b: 2 })),
      3,
    );
    out.push(
      summary('components.js.warm_run', warmJs, { note: 'back to back: each waits for its instance' }),
    );

    // A run that arrives with the worker idle (as a user's next run does) finds the fresh instance
    // the worker made after the last run; back-to-back runs above wait for that instantiation.
    const idleJs: number[] = [];
    for (let i = 0; i < (opts.quick ? 10 : 30); i++) {
      await new Promise((r) => setTimeout(r, 200));
      const t0 = performance.now();
      const r = await pool.runComponent(js.sha256, JSON.stringify({ do: 'sum', a: 1, b: i }));
      idleJs.push(performance.now() - t0);
      if (!r.ok) throw new Error(`idle run failed: ${JSON.stringify(r.error)}`);
    }
    out.push(summary('components.js.warm_run_after_idle', idleJs, { idle_ms: 200, goal_ms: 2 }));

    const tiny = await prepareComponent(trivial, dir);
    await pool.runComponent(tiny.sha256, '{}');
    const warmTiny = await sample(opts.quick ? 20 : 200, () => pool.runComponent(tiny.sha256, '{}'), 10);
    out.push(summary('components.trivial.warm_run', warmTiny, { goal_ms: 2 }));

    const loops = opts.quick ? 1_000_000 : 20_000_000;
    const cpu = await sample(
      opts.quick ? 2 : 5,
      () =>
        pool.runComponent(js.sha256, JSON.stringify({ do: 'cpu', n: loops }), {
          limits: { timeout_ms: 120_000 },
        }),
      1,
    );
    const node = await sample(opts.quick ? 2 : 5, () => nodeLoop(loops), 1);
    out.push(
      summary('components.cpu_loop.component', cpu, {
        iterations: loops,
        node_p50_ms: r3(percentile(node, 50)),
        ratio: r3(percentile(cpu, 50) / percentile(node, 50)),
      }),
    );
  } finally {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
