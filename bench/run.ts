// `npm run bench [-- --json] [-- --quick] [-- --only NAME] [-- --baseline FILE]`: every bench/*.ts
// module in one run. `--baseline` takes an earlier `--json` run's output (one row per line) and
// prints each row's figure from it beside the new one, so a regression shows in the run that causes it.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type BenchModule, type BenchResult, r3 } from './lib.js';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const json = args.includes('--json');
const quick = args.includes('--quick');
const onlyIdx = args.indexOf('--only');
const only = onlyIdx >= 0 ? args[onlyIdx + 1]?.split(',') : undefined;
const childIdx = args.indexOf('--child');
const child = childIdx >= 0 ? args[childIdx + 1] : undefined;
const baselineIdx = args.indexOf('--baseline');
const baselineFile = baselineIdx >= 0 ? args[baselineIdx + 1] : undefined;

/** The baseline's rows by name; a line that is not a row (a log line) is skipped. */
function readBaseline(file: string | undefined): Map<string, BenchResult> {
  const rows = new Map<string, BenchResult>();
  if (!file) return rows;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    try {
      const r = JSON.parse(line) as BenchResult;
      if (r && typeof r.bench === 'string') rows.set(r.bench, r);
    } catch {
      // not a row
    }
  }
  return rows;
}
const baseline = readBaseline(baselineFile);

const log = (line: string) => (json ? process.stderr.write(`${line}\n`) : process.stdout.write(`${line}\n`));
// A benchmark is a bench/*.ts module that exports `run`; helpers beside them (lib.ts, corpus.ts …)
// are not, so adding one never turns into a failed "benchmark".
const isBenchmark = (file: string) =>
  /^export\s+(async\s+)?function\s+run\s*\(/m.test(readFileSync(join(here, file), 'utf8'));
const modules = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.endsWith('.test.ts') && isBenchmark(f))
  .map((f) => f.replace(/\.ts$/, ''))
  .filter((name) => !only || only.includes(name))
  .sort();

/** The baseline row's figures in the same fields, without its name and sample count. */
function baselineOf(r: BenchResult): Record<string, unknown> | undefined {
  const b = baseline.get(r.bench);
  if (!b) return undefined;
  const { bench: _b, n: _n, baseline: _was, ...figures } = b;
  return figures;
}

function human(r: BenchResult): string {
  const fmt = (x: unknown) =>
    typeof x === 'number' ? (Math.abs(x) >= 100 ? x.toFixed(0) : x.toPrecision(3)) : String(x);
  const core = r.p50 !== undefined ? `p50 ${fmt(r.p50)} ${r.unit}, p95 ${fmt(r.p95)} ${r.unit}` : '';
  const extra = Object.entries(r)
    .filter(([k]) => !['bench', 'unit', 'p50', 'p95', 'n', 'baseline'].includes(k))
    .map(([k, v]) => `${k} ${fmt(v)}`)
    .join(', ');
  const line = `  ${r.bench.padEnd(34)} ${[core, extra].filter(Boolean).join(', ')}  (n=${r.n})`;
  const b = baseline.get(r.bench);
  if (!b) return baselineFile ? `${line}\n  ${''.padEnd(34)} baseline: no such row` : line;
  const was = b.p50 !== undefined ? `p50 ${fmt(b.p50)} ${b.unit}, p95 ${fmt(b.p95)} ${b.unit}` : '';
  const wasExtra = Object.entries(b)
    .filter(([k]) => !['bench', 'unit', 'p50', 'p95', 'n', 'baseline'].includes(k))
    .map(([k, v]) => `${k} ${fmt(v)}`)
    .join(', ');
  return `${line}\n  ${''.padEnd(34)} baseline: ${[was, wasExtra].filter(Boolean).join(', ')}`;
}

// Each benchmark runs in a fresh process, so one module's heap and GC debt never skew another's.
// Each section's wall time is a row too (`bench.wall.<module>`, and `bench.wall.total`), so the
// run's length and the section that grew are seen, and compared with a baseline, like any figure.
if (!child) {
  let failed = false;
  const started = performance.now();
  const wall = (bench: string, ms: number, extra: Record<string, unknown> = {}): void => {
    const row: BenchResult = {
      bench,
      unit: 's',
      seconds: r3(ms / 1000),
      n: 1,
      load_avg_1m: r3(loadavg()[0]!),
      ...extra,
    };
    const b = baselineOf(row);
    if (json) process.stdout.write(`${JSON.stringify(b ? { ...row, baseline: b } : row)}\n`);
    else log(human(row));
  };
  for (const name of modules) {
    const t = performance.now();
    const r = spawnSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), ...args, '--child', name],
      {
        stdio: 'inherit',
      },
    );
    if (r.status !== 0) failed = true;
    wall(`bench.wall.${name}`, performance.now() - t, r.status === 0 ? {} : { failed: true });
  }
  wall('bench.wall.total', performance.now() - started, { sections: modules.length });
  process.exit(failed ? 1 : 0);
}

let failed = false;
for (const name of modules.filter((m) => m === child)) {
  log(`${name}:`);
  try {
    const mod = (await import(pathToFileURL(join(here, `${name}.ts`)).href)) as BenchModule;
    const results = await mod.run({ json, quick, log: (l) => log(`  ${l}`) });
    for (const r of results) {
      const b = baselineOf(r);
      if (json) process.stdout.write(`${JSON.stringify(b ? { ...r, baseline: b } : r)}\n`);
      else log(human(r));
    }
  } catch (e) {
    failed = true;
    log(`  failed: ${(e as Error).stack ?? e}`);
  }
}
process.exit(failed ? 1 : 0);
