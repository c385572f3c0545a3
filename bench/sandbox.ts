// Sandbox benchmarks: cold start, warm run latency, fresh-state throughput, memory, CPU ratio.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
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

/** Pids of a process and all its descendants. */
function processTree(pid: number): number[] {
  const out: number[] = [];
  const stack = [pid];
  while (stack.length > 0) {
    const p = stack.pop()!;
    out.push(p);
    try {
      stack.push(
        ...readFileSync(`/proc/${p}/task/${p}/children`, 'utf8')
          .trim()
          .split(/\s+/)
          .filter(Boolean)
          .map(Number),
      );
    } catch {
      // gone
    }
  }
  return out;
}

/** CPU time (user + system, ms) a process tree has used: a start-up figure the load of other processes barely moves. */
function cpuMs(pid: number | undefined): number {
  if (!pid) return Number.NaN;
  let total = 0;
  for (const p of processTree(pid)) {
    try {
      const fields = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ');
      total += ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    } catch {
      // gone
    }
  }
  return total;
}

/**
 * Largest virtual size (GB) in the sandbox's process tree. V8 reserves 8 GB or more of address
 * space per wasm memory for its guard regions; without them (an address-space rlimit, no trap
 * handler) every memory access is bounds-checked and the CPU ratio suffers.
 */
function maxVmSizeGb(pid: number | undefined): number {
  if (!pid) return Number.NaN;
  let max = 0;
  for (const p of processTree(pid)) {
    try {
      const m = /VmSize:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      if (m) max = Math.max(max, Number(m[1]) / 2 ** 20);
    } catch {
      // gone
    }
  }
  return max;
}

/** The 1-minute load average: figures measured on a loaded machine are noisy, and say so. */
const load1 = () => r3(loadavg()[0]!);

type Design = 'memory' | 'worker';

/** The figures of one design (how a run gets a fresh interpreter; see SandboxPoolOptions.reuse). */
interface DesignFigures {
  cold_start_ms: number;
  first_run_ms: number;
  /** CPU time of the sandbox process tree from spawn to the first result. */
  first_run_cpu_ms: number;
  warm_p50: number;
  warm_p95: number;
  worker_boot_p50: number;
  reset_p50: number;
  memory_mb: number;
  runs_per_sec: number;
}

async function measureDesign(
  design: Design,
  cacheDir: string,
  opts: BenchOptions,
): Promise<{ figures: DesignFigures; pool: SandboxPool }> {
  // Start-up with the snapshot cached: the process, its first worker, then the first run.
  let t = performance.now();
  const pool = new SandboxPool({ cacheDir, spares: 1, reuse: design });
  await pool.warmup();
  const coldMs = performance.now() - t;
  const first = await runCodeTemplate(pool, TRIVIAL, { n: -1 });
  if (!first.ok) throw new Error(`first run failed: ${first.error?.message}`);
  const firstRunMs = performance.now() - t;
  const firstRunCpuMs = cpuMs(pool.pid);

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
  const memoryMb = rssMb(pool.pid);

  // Sustained fresh-state runs back to back.
  const n = opts.quick ? 10 : design === 'memory' ? 200 : 30;
  t = performance.now();
  for (let i = 0; i < n; i++) {
    const r = await runCodeTemplate(pool, TRIVIAL, { n: i });
    if (!r.ok) throw new Error(`run failed: ${r.error?.message}`);
  }
  const perSec = n / ((performance.now() - t) / 1000);
  const stats = pool.stats();
  const figures: DesignFigures = {
    cold_start_ms: coldMs,
    first_run_ms: firstRunMs,
    first_run_cpu_ms: firstRunCpuMs,
    warm_p50: percentile(warm, 50),
    warm_p95: percentile(warm, 95),
    worker_boot_p50: percentile(stats.workerBootMs, 50),
    reset_p50: stats.workerResetMs.length > 0 ? percentile(stats.workerResetMs, 50) : Number.NaN,
    memory_mb: memoryMb,
    runs_per_sec: perSec,
  };
  opts.log(
    `${design}: cold ${coldMs.toFixed(0)} ms, first run ${firstRunMs.toFixed(0)} ms, warm p50 ${figures.warm_p50.toFixed(1)} ms p95 ${figures.warm_p95.toFixed(1)} ms, RSS ${memoryMb.toFixed(0)} MB, ${perSec.toFixed(2)} runs/s`,
  );
  return { figures, pool };
}

/** One more honest cold first run (pool created → first result, snapshot cached): ms and sandbox CPU ms. */
async function coldFirstRun(cacheDir: string): Promise<[number, number]> {
  const t = performance.now();
  const pool = new SandboxPool({ cacheDir, spares: 1 });
  try {
    const r = await runCodeTemplate(pool, TRIVIAL, { n: -1 });
    if (!r.ok) throw new Error(`first run failed: ${r.error?.message}`);
    return [performance.now() - t, cpuMs(pool.pid)];
  } finally {
    await pool.close();
  }
}

/** 200 runs queued at once from 4 chats (some break limits): fairness, typed failures, memory. */
async function queueBurst(pool: SandboxPool, quick: boolean): Promise<BenchResult> {
  const perChat = quick ? 10 : 50;
  const chats = ['chat-a', 'chat-b', 'chat-c', 'chat-d'];
  // Chat d breaks limits on purpose (its loops and allocations must fail typed); every other run
  // must finish.
  const breaker = (chat: number, i: number): 'SANDBOX_TIMEOUT' | 'SANDBOX_LIMIT' | null =>
    chat !== 3 ? null : i % 10 === 9 ? 'SANDBOX_TIMEOUT' : i % 10 === 4 ? 'SANDBOX_LIMIT' : null;
  const code = (chat: number, i: number): [string, Record<string, number>] => {
    if (breaker(chat, i) === 'SANDBOX_TIMEOUT') return ['while True:\n    pass', { timeout_ms: 300 }];
    if (breaker(chat, i) === 'SANDBOX_LIMIT') return ['x = bytearray(400 * 1024 * 1024)', { memory_mb: 128 }];
    if (chat === 2 && i % 5 === 0) return ['open("/tmp/f", "w").write("x")\nprint(1)', {}];
    if (chat === 1) return ['s = 0\nfor k in range(200000):\n    s += k\nprint(s)', {}];
    return [`import skilldesk\nskilldesk.submit(${i})`, {}];
  };
  let maxRss = 0;
  const sampler = setInterval(() => {
    maxRss = Math.max(maxRss, rssMb(pool.pid));
  }, 50);
  const t0 = performance.now();
  const lastDone = new Map<string, number>(chats.map((c) => [c, t0]));
  let maxGap = 0;
  let typedFailures = 0;
  let untyped = 0;
  let expectedFailures = 0;
  let unexpected = 0;
  const unexpectedErrors = new Set<string>();
  const waits: number[] = [];
  const runs: Promise<void>[] = [];
  for (let i = 0; i < perChat; i++) {
    chats.forEach((chat, c) => {
      const [src, limits] = code(c, i);
      const expect = breaker(c, i);
      runs.push(
        pool.run(src, { limits, queue: chat }).then((r) => {
          const now = performance.now();
          maxGap = Math.max(maxGap, now - lastDone.get(chat)!);
          lastDone.set(chat, now);
          waits.push(r.duration_ms - r.timing.run_ms);
          if (!r.ok) {
            if (r.error?.code) typedFailures++;
            else untyped++;
          }
          if (expect && !r.ok && r.error?.code === expect) expectedFailures++;
          else if (expect || !r.ok) {
            unexpected++;
            unexpectedErrors.add(`${r.error?.code ?? 'ok'}: ${r.error?.message ?? ''}`.slice(0, 200));
          }
        }),
      );
    });
  }
  await Promise.all(runs);
  clearInterval(sampler);
  const totalS = (performance.now() - t0) / 1000;
  return {
    bench: 'sandbox.queue_4_chats',
    unit: 'ms',
    p50: r3(percentile(waits, 50)),
    p95: r3(percentile(waits, 95)),
    n: runs.length,
    max_wait_ms: r3(Math.max(...waits)),
    max_gap_per_chat_ms: r3(maxGap),
    failed_typed: typedFailures,
    failed_untyped: untyped,
    failed_as_meant: expectedFailures,
    unexpected_outcomes: unexpected,
    ...(unexpectedErrors.size > 0 ? { unexpected_errors: [...unexpectedErrors].slice(0, 5) } : {}),
    max_rss_mb: r3(maxRss),
    total_s: r3(totalS),
    load_1m: load1(),
    note: `wait = queueing + worker; gap = longest time a chat saw no run finish; the ${quick ? 2 : 10} typed failures meant are chat d's endless loops (timeout 300 ms) and 400 MB allocations (memory_mb 128): no run fails for the queue`,
  };
}

/**
 * Fairness: a chat runs a long program (5 s of CPU); another chat's short runs, asked while it runs,
 * must not wait for it. The longest wait of those short runs is the figure (target 2 s).
 */
async function shortBehindLong(pool: SandboxPool, quick: boolean): Promise<BenchResult> {
  const rounds = quick ? 1 : 3;
  const waits: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const long = pool.run('import time\nt = time.time()\nwhile time.time() - t < 5: pass', {
      queue: 'chat-long',
      limits: { timeout_ms: 30_000 },
    });
    await sleep(100);
    for (let i = 0; i < 3; i++) {
      const s = performance.now();
      const r = await pool.run(`import skilldesk\nskilldesk.submit(${i})`, { queue: 'chat-short' });
      if (!r.ok) throw new Error(`short run failed: ${r.error?.message}`);
      waits.push(performance.now() - s);
      await sleep(200);
    }
    await long;
  }
  return {
    bench: 'sandbox.short_behind_long',
    unit: 'ms',
    p50: r3(percentile(waits, 50)),
    max: r3(Math.max(...waits)),
    n: waits.length,
    target_max_ms: 2000,
    load_1m: load1(),
    note: 'a short run of one chat asked while another chat runs a 5 s program: time to its result (the first starts beside the long run after 500 ms, in a spare or a new worker)',
  };
}

/** Run the sandbox benchmarks (`opts.quick`: a smaller smoke version). */
export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  const cacheDir = mkdtempSync(join(tmpdir(), 'skilldesk-bench-sandbox-'));
  try {
    // Cold start without a cached snapshot (builds it).
    const t = performance.now();
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

    // The previous design (a new worker per run) first, then the current one, same protocol.
    const prev = await measureDesign('worker', cacheDir, opts);
    // The previous design with two spares (its best throughput).
    const p2 = new SandboxPool({ cacheDir, spares: 2, reuse: 'worker' });
    await p2.warmup();
    await sleep(1500);
    const n2 = opts.quick ? 6 : 30;
    let s = performance.now();
    for (let i = 0; i < n2; i++) {
      const r = await runCodeTemplate(p2, TRIVIAL, { n: i });
      if (!r.ok) throw new Error(`run failed: ${r.error?.message}`);
    }
    const prevSpares2 = n2 / ((performance.now() - s) / 1000);
    const prevMem2 = rssMb(p2.pid);
    await p2.close();
    await prev.pool.close();

    // Cold first runs are one sample per design: two more of the current one give a median.
    const colds: [number, number][] = [];
    for (let i = 0; i < (opts.quick ? 0 : 2); i++) colds.push(await coldFirstRun(cacheDir));
    const cur = await measureDesign('memory', cacheDir, opts);
    const pool = cur.pool;
    colds.push([cur.figures.first_run_ms, cur.figures.first_run_cpu_ms]);
    const a = cur.figures;
    const b = prev.figures;
    const row = (bench: string, unit: string, now: number, before: number, extra = {}) =>
      out.push({ bench, unit, p50: r3(now), n: 1, previous: r3(before), load_1m: load1(), ...extra });
    row('sandbox.cold_start', 'ms', a.cold_start_ms, b.cold_start_ms, {
      note: 'process + first warm worker from the cached snapshot',
    });
    row(
      'sandbox.first_run',
      'ms',
      percentile(
        colds.map(([ms]) => ms),
        50,
      ),
      b.first_run_ms,
      {
        n: colds.length,
        runs_ms: colds.map(([ms]) => r3(ms)),
        cpu_ms: r3(
          percentile(
            colds.map(([, cpu]) => cpu),
            50,
          ),
        ),
        previous_cpu_ms: r3(b.first_run_cpu_ms),
        note: 'pool created to first result, snapshot cached, nothing started before (cold), median of n; cpu_ms: CPU time of the sandbox process tree meanwhile',
      },
    );
    out.push({
      bench: 'sandbox.warm_run',
      unit: 'ms',
      p50: r3(a.warm_p50),
      p95: r3(a.warm_p95),
      n: opts.quick ? 5 : 30,
      previous_p50: r3(b.warm_p50),
      previous_p95: r3(b.warm_p95),
      load_1m: load1(),
    });
    out.push({
      bench: 'sandbox.fresh_state_ms',
      unit: 'ms',
      p50: r3(a.reset_p50),
      n: pool.stats().workerResetMs.length,
      previous: r3(b.worker_boot_p50),
      note: 'restore of a used worker (previous: boot of a new worker from the snapshot)',
    });
    row('sandbox.fresh_runs_per_sec', 'runs/s', a.runs_per_sec, b.runs_per_sec, {
      previous_spares2: r3(prevSpares2),
    });
    row('sandbox.memory', 'MB', a.memory_mb, b.memory_mb, {
      previous_spares2: r3(prevMem2),
      host_rss_mb: r3(process.memoryUsage.rss() / 2 ** 20),
      note: 'sandbox process tree RSS, idle and ready',
    });

    // CPU-bound loop: sandbox vs native python3 (timed inside Python, so start-up is excluded).
    const iters = opts.quick ? 300_000 : 3_000_000;
    const r = await pool.run(LOOP(iters), { limits: { timeout_ms: 120_000 } });
    const sandboxS = Number.parseFloat(r.stdout);
    // The same loop again: a run that started before V8 tiered the interpreter loop up runs in
    // baseline code to its end (wasm has no on-stack replacement), so the two differ when it did.
    const again = await pool.run(LOOP(iters), { limits: { timeout_ms: 120_000 } });
    const sandboxAgainS = Number.parseFloat(again.stdout);
    const third = await pool.run(LOOP(iters), { limits: { timeout_ms: 120_000 } });
    // Each side's median of three runs: python3's own time for this loop varies by up to 1.7× from
    // one run to the next on this machine (0.42-0.73 s, nothing else running).
    const sandboxRuns = [sandboxS, sandboxAgainS, Number.parseFloat(third.stdout)];
    const version = await pool.run('import sys\nprint(sys.version.split()[0])');
    let nativeRuns: number[] = [];
    let nativeVersion = '';
    try {
      nativeRuns = [1, 2, 3].map(() =>
        Number.parseFloat(
          execFileSync('python3', ['-c', LOOP(iters)], { encoding: 'utf8', timeout: 120_000 }),
        ),
      );
      nativeVersion = execFileSync('python3', ['-c', 'import sys; print(sys.version.split()[0])'], {
        encoding: 'utf8',
      }).trim();
    } catch {
      opts.log('python3 not found: skipping the native comparison');
    }
    const median = (xs: number[]) =>
      xs.length ? [...xs].sort((x, y) => x - y)[xs.length >> 1]! : Number.NaN;
    const nativeS = median(nativeRuns);
    out.push({
      bench: 'sandbox.cpu_ratio_vs_python3',
      unit: 'x',
      p50: r3(median(sandboxRuns) / nativeS),
      n: 3,
      sandbox_s: r3(sandboxS),
      sandbox_again_s: r3(sandboxAgainS),
      sandbox_runs_s: sandboxRuns.map(r3),
      native_s: r3(nativeS),
      native_runs_s: nativeRuns.map(r3),
      sandbox_python: version.stdout.trim(),
      native_python: nativeVersion,
      iterations: iters,
      wasm_guard_regions: maxVmSizeGb(pool.pid) >= 8,
      sandbox_vm_gb: r3(maxVmSizeGb(pool.pid)),
      load_1m: load1(),
      note: 'wasm_guard_regions: V8 reserved its guard regions (no explicit bounds checks on memory access); sandbox_again_s: the same loop run again (close to sandbox_s when the first run already had the optimised interpreter loop); p50: the median of three sandbox runs over the median of three python3 runs; sandbox_python / native_python: the CPython versions compared',
    });
    opts.log(
      `CPU loop: sandbox ${sandboxS.toFixed(3)} s (again ${sandboxAgainS.toFixed(3)} s), python3 ${nativeS.toFixed(3)} s`,
    );

    s = performance.now();
    out.push(await shortBehindLong(pool, opts.quick));
    s = performance.now();
    out.push(await queueBurst(pool, opts.quick));
    opts.log(`200 runs from 4 chats: ${((performance.now() - s) / 1000).toFixed(1)} s`);
    await pool.close();
    // Last, so the cold figures above keep their place in the run. The desktop app starts the
    // sandbox in the background WARM_AFTER_MS after it opens (host.ts): a user's first run, asked
    // FIRST_RUN_AT_MS after opening, waits only for what is left of it.
    const WARM_AFTER_MS = 1500;
    const FIRST_RUN_AT_MS = 3000;
    const afterStart: number[] = [];
    for (let i = 0; i < (opts.quick ? 1 : 3); i++) {
      const p = new SandboxPool({ cacheDir, spares: 1 });
      await sleep(WARM_AFTER_MS);
      p.warmup().catch(() => {});
      await sleep(FIRST_RUN_AT_MS - WARM_AFTER_MS);
      const s0 = performance.now();
      const r = await runCodeTemplate(p, TRIVIAL, { n: i });
      if (!r.ok) throw new Error(`first run failed: ${r.error?.message}`);
      afterStart.push(performance.now() - s0);
      await p.close();
    }

    out.push({
      bench: 'sandbox.first_run_after_app_start',
      unit: 'ms',
      p50: r3(percentile(afterStart, 50)),
      max: r3(Math.max(...afterStart)),
      n: afterStart.length,
      cold: r3(a.first_run_ms),
      load_1m: load1(),
      note: `the app starts the sandbox ${WARM_AFTER_MS} ms after it opens; the first run is asked ${FIRST_RUN_AT_MS} ms after opening and waits for what is left of the start (cold: sandbox.first_run)`,
    });
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
  return out;
}
