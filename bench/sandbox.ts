// Sandbox benchmarks: cold start, warm run latency, fresh-state throughput, memory, CPU ratio.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCodeTemplate, SandboxPool } from '../electron/sandbox/index.js';
import { type BenchOptions, type BenchResult, percentile, r3 } from './lib.js';

const TRIVIAL = { content: 'import skilldesk\nskilldesk.submit({"n": {{ n }}})' };
const LOOP = (n: number) =>
  `import time\nt = time.perf_counter()\ns = 0\nfor i in range(${n}):\n    s += i * i\nprint(time.perf_counter() - t)`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** RSS of a process and all its descendants (the sandbox runs under bubblewrap's monitor). */
function rssMb(pid: number | undefined): number {
  if (!pid) return Number.NaN;
  const children = (p: number): number[] => {
    try {
      return readFileSync(`/proc/${p}/task/${p}/children`, 'utf8')
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number);
    } catch {
      return [];
    }
  };
  let total = 0;
  const stack = [pid];
  while (stack.length > 0) {
    const p = stack.pop()!;
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      if (m) total += Number(m[1]) / 1024;
    } catch {
      // gone
    }
    stack.push(...children(p));
  }
  return total || Number.NaN;
}

/** Run the sandbox benchmarks (`opts.quick`: a smaller smoke version). */
export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  const cacheDir = mkdtempSync(join(tmpdir(), 'skilldesk-bench-sandbox-'));
  try {
    // Cold start without a cached snapshot (builds it), then with the cached one.
    let t = performance.now();
    const first = new SandboxPool({ cacheDir });
    await first.warmup();
    const coldMs = performance.now() - t;
    out.push({
      bench: 'sandbox.cold_start_no_snapshot',
      unit: 'ms',
      p50: r3(coldMs),
      n: 1,
      snapshot_ms: r3(first.stats().snapshotMs ?? 0),
    });
    await first.close();
    opts.log(`cold start (building the snapshot): ${Math.round(coldMs)} ms`);

    t = performance.now();
    const pool = new SandboxPool({ cacheDir, spares: 1 });
    await pool.warmup();
    const cachedMs = performance.now() - t;
    out.push({
      bench: 'sandbox.cold_start',
      unit: 'ms',
      p50: r3(cachedMs),
      n: 1,
      note: 'process + first worker from the cached snapshot',
    });
    opts.log(`cold start (cached snapshot): ${Math.round(cachedMs)} ms`);

    // Warm latency: a worker is ready before each run (as in the app, between chat turns).
    const nWarm = opts.quick ? 5 : 30;
    const warm: number[] = [];
    for (let i = 0; i < nWarm + 2; i++) {
      await sleep(opts.quick ? 900 : 1200);
      const s = performance.now();
      const r = await runCodeTemplate(pool, TRIVIAL, { n: i });
      if (!r.ok) throw new Error(`warm run failed: ${r.error?.message}`);
      if (i >= 2) warm.push(performance.now() - s);
    }
    out.push({
      bench: 'sandbox.warm_run',
      unit: 'ms',
      p50: r3(percentile(warm, 50)),
      p95: r3(percentile(warm, 95)),
      n: warm.length,
    });
    opts.log(
      `warm run: p50 ${percentile(warm, 50).toFixed(1)} ms, p95 ${percentile(warm, 95).toFixed(1)} ms`,
    );

    const boots = pool.stats().workerBootMs;
    out.push({
      bench: 'sandbox.worker_boot',
      unit: 'ms',
      p50: r3(percentile(boots, 50)),
      p95: r3(percentile(boots, 95)),
      n: boots.length,
    });

    // Memory of the process tree while idle with a warm worker.
    const sandboxMb = rssMb(pool.pid);
    out.push({
      bench: 'sandbox.memory',
      unit: 'MB',
      p50: r3(sandboxMb),
      n: 1,
      host_rss_mb: r3(process.memoryUsage.rss() / 2 ** 20),
    });
    opts.log(`sandbox process RSS: ${sandboxMb.toFixed(0)} MB`);

    // Sustained fresh-state runs back to back, with 1 and 2 spare workers.
    for (const spares of [1, 2]) {
      const p = spares === 1 ? pool : new SandboxPool({ cacheDir, spares });
      if (spares !== 1) {
        await p.warmup();
        await sleep(1500);
      }
      const n = opts.quick ? 6 : 30;
      const s = performance.now();
      for (let i = 0; i < n; i++) {
        const r = await runCodeTemplate(p, TRIVIAL, { n: i });
        if (!r.ok) throw new Error(`run failed: ${r.error?.message}`);
      }
      const perSec = n / ((performance.now() - s) / 1000);
      out.push({ bench: `sandbox.fresh_runs_per_sec_spares${spares}`, unit: 'runs/s', p50: r3(perSec), n });
      opts.log(`fresh-state runs back to back (spares=${spares}): ${perSec.toFixed(2)}/s`);
      if (spares === 2) {
        out.push({ bench: 'sandbox.memory_spares2', unit: 'MB', p50: r3(rssMb(p.pid)), n: 1 });
        await p.close();
      }
    }

    // CPU-bound loop: sandbox vs native python3 (timed inside Python, so start-up is excluded).
    const iters = opts.quick ? 300_000 : 3_000_000;
    const r = await pool.run(LOOP(iters), { limits: { timeout_ms: 120_000 } });
    const sandboxS = Number.parseFloat(r.stdout);
    let nativeS = Number.NaN;
    try {
      nativeS = Number.parseFloat(
        execFileSync('python3', ['-c', LOOP(iters)], { encoding: 'utf8', timeout: 120_000 }),
      );
    } catch {
      opts.log('python3 not found: skipping the native comparison');
    }
    out.push({
      bench: 'sandbox.cpu_ratio_vs_python3',
      unit: 'x',
      p50: r3(sandboxS / nativeS),
      n: 1,
      sandbox_s: r3(sandboxS),
      native_s: r3(nativeS),
      iterations: iters,
    });
    opts.log(`CPU loop: sandbox ${sandboxS.toFixed(3)} s, python3 ${nativeS.toFixed(3)} s`);
    await pool.close();
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
  return out;
}
