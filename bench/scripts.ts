// Skill script runs in both runtimes: the stdlib-only command
// (`skills run-script skill-creator scripts/aggregate_benchmark.py --help`), warm in an app's host
// (its pool kept between runs, as `skilldesk serve` and the desktop keep it) and cold as the CLI
// runs it (a process of its own: host, sandbox process, snapshot from the cache, worker boot). The
// native rows run the same script with CPython under bubblewrap: the skill is given the state an
// install of a compiled package leaves (a real venv, accepted), made without the network.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost } from '../electron/host.js';
import { acceptNativeRuntime, findNativePython, nativeSandboxSupport } from '../electron/scripts/index.js';
import { seedNativeEnv } from '../electron/test-support/native-env.js';
import { createInProcessClient } from '../electron/transport/index.js';
import { type BenchOptions, type BenchResult, percentile, r3 } from './lib.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURE = join(ROOT, 'electron', 'tools', 'fixtures', 'skill-creator');
const CLI = join(ROOT, 'bin', 'skilldesk.mjs');
const REQ = { name: 'skill-creator', script: 'scripts/aggregate_benchmark.py', args: ['--help'] };

/** Wall time of one CLI process running the script (ms); throws when the script did not print its usage. */
function cliRun(home: string): number {
  const t = performance.now();
  const out = execFileSync(
    process.execPath,
    [CLI, '--home', home, 'skills', 'run-script', REQ.name, REQ.script, '--', ...REQ.args],
    { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } },
  );
  const ms = performance.now() - t;
  if (!/usage/i.test(out)) throw new Error(`the script did not print its usage: ${out.slice(0, 200)}`);
  return ms;
}

/** Warm runs through one host (as `skilldesk serve` holds it), after a first run that starts it. */
async function warmRuns(home: string, n: number, log: (l: string) => void) {
  const host = createHost({ home, mode: 'cli', env: { PATH: process.env.PATH ?? '' } });
  const client = createInProcessClient(host);
  const warm: number[] = [];
  const workerRuns: number[] = [];
  try {
    const t0 = performance.now();
    await client.invoke('scripts/run', REQ);
    log(
      `first run in a fresh host (sandbox process start included): ${Math.round(performance.now() - t0)} ms`,
    );
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      const r = await client.invoke('scripts/run', REQ);
      warm.push(performance.now() - t);
      if (r.exit_code !== 0) throw new Error(`exit code ${r.exit_code}: ${r.stderr.slice(0, 300)}`);
      workerRuns.push(r.duration_ms);
    }
  } finally {
    await host.dispose();
  }
  return { warm, workerRuns };
}

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const results = await runtimeRows('pyodide', opts);
  const sandbox = nativeSandboxSupport();
  if (sandbox.ok) results.push(...(await runtimeRows('native', opts)));
  else opts.log(`native rows skipped: ${sandbox.reason}`);
  return results;
}

/** The warm and first-run rows of one runtime, in a home of their own. */
async function runtimeRows(runtime: 'pyodide' | 'native', opts: BenchOptions): Promise<BenchResult[]> {
  const home = mkdtempSync(join(tmpdir(), `skilldesk-bench-${runtime}-`));
  try {
    execFileSync(process.execPath, [CLI, '--home', home, 'skills', 'import', FIXTURE], {
      env: { PATH: process.env.PATH ?? '' },
    });
    let extra: Record<string, number> = {};
    if (runtime === 'native') {
      seedNativeEnv(home, REQ.name, findNativePython());
      acceptNativeRuntime(home, REQ.name, ['lxml']);
    } else {
      // The first Pyodide run ever builds the snapshot cache (once per install); the figure is the
      // run after it, as every later cold CLI run is.
      const build = cliRun(home);
      opts.log(`CLI run that built the snapshot cache: ${Math.round(build)} ms`);
      extra = { cache_build_ms: r3(build) };
    }
    const firsts = Array.from({ length: opts.quick ? 2 : 5 }, () => cliRun(home));
    const { warm, workerRuns } = await warmRuns(home, opts.quick ? 5 : 30, opts.log);
    return [
      {
        bench: `scripts.${runtime}.run_p50_ms`,
        unit: 'ms',
        p50: r3(percentile(warm, 50)),
        p95: r3(percentile(warm, 95)),
        n: warm.length,
        runner_p50_ms: r3(percentile(workerRuns, 50)),
        target_ms: 300,
      },
      {
        bench: `scripts.${runtime}.first_run_ms`,
        unit: 'ms',
        p50: r3(percentile(firsts, 50)),
        p95: r3(percentile(firsts, 95)),
        n: firsts.length,
        ...extra,
        target_ms: 2000,
      },
    ];
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
