// How long the `skilldesk` command takes from a cold process, wall clock, as a user waits for it:
// `skilldesk --help` (target ≤ 300 ms) and `skilldesk skills match QUERY` on a 10,000-skill
// account store (target ≤ 500 ms). Each sample is a new `node bin/skilldesk.mjs` process (the
// bundle built once beforehand, as after `npm install`), so module loading, the stores' opening and
// phase 1's first index build are all in the figure.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSkillCatalog } from '../electron/test-support/skill-catalog.js';
import { type BenchOptions, type BenchResult, percentile, r3 } from './lib.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'bin', 'skilldesk.mjs');

/** Wall times (ms) of `n` cold runs of the CLI with `args`; a failed run fails the bench. */
function coldRuns(args: string[], n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 120_000 });
    const ms = performance.now() - t;
    if (r.status !== 0) throw new Error(`skilldesk ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    out.push(ms);
  }
  return out;
}

/** Run the CLI start-up benchmark. */
export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const n = opts.quick ? 3 : 10;
  const size = opts.quick ? 1_000 : 10_000;
  // A stale bundle rebuilds on the first start: not a cold start users see after install.
  spawnSync(process.execPath, [cli, '--version'], { timeout: 300_000 });
  const help = coldRuns(['--help'], n);
  const home = mkdtempSync(join(tmpdir(), 'skilldesk-bench-cli-'));
  try {
    opts.log(`wrote ${size} skills in ${(writeSkillCatalog(home, size) / 1000).toFixed(1)} s`);
    // The first run opens the new store (seeds, saved embeddings); the measured ones start as a user's
    // later commands do.
    coldRuns(['--home', home, 'skills', 'match', 'warm the store'], 1);
    const match = coldRuns(['--home', home, 'skills', 'match', 'extract the tables from this pdf report'], n);
    return [
      {
        bench: 'cli.help_ms',
        unit: 'ms',
        p50: r3(percentile(help, 50)),
        p95: r3(percentile(help, 95)),
        n,
        load_avg_1m: r3(loadavg()[0]!),
        target_ms: 300,
      },
      {
        bench: `cli.match_${size}_ms`,
        unit: 'ms',
        p50: r3(percentile(match, 50)),
        p95: r3(percentile(match, 95)),
        n,
        skills: size,
        load_avg_1m: r3(loadavg()[0]!),
        target_ms: 500,
      },
    ];
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
