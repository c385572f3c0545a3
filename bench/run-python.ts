// run_python in a warm app: a trivial run (`print(1)`, no files) through the host's tool door
// (`skills/call-tool`, as `mcp serve` calls it), and a run that reads a CSV from its folder with
// csv + statistics (a run with files ends its worker, so this one pays for a fresh interpreter).
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Result } from '../electron/contract/channels.js';
import { createHost } from '../electron/host.js';
import { chatFilesRoot, chatFolder } from '../electron/scripts/index.js';
import { MCP_FOLDER } from '../electron/tools/index.js';
import { invokeChannel } from '../electron/transport/dispatch.js';
import { type BenchOptions, type BenchResult, percentile, r3, sample } from './lib.js';

const quiet = { info() {}, warn() {}, error() {}, debug() {} };

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const home = mkdtempSync(join(tmpdir(), 'skilldesk-bench-py-'));
  const host = createHost({ home, env: {}, mode: 'test', logger: quiet as never });
  try {
    const call = async (code: string) => {
      const r = (await invokeChannel(
        host.handlers,
        'skills/call-tool',
        { name: 'run_python', args: { code } },
        { transport: 'in-process' },
        quiet as never,
      )) as Result<{ ok: boolean; result: { stdout: string } }>;
      if (!r.ok || !r.value.ok) throw new Error(`run_python failed: ${JSON.stringify(r)}`);
      return r.value.result;
    };
    const t0 = performance.now();
    await call('print(1)');
    const first = performance.now() - t0;
    const n = opts.quick ? 10 : 50;
    const trivial = await sample(n, () => call('print(1)'), 5);
    const out: BenchResult[] = [
      {
        bench: 'run_python.pyodide.trivial_p50_ms',
        unit: 'ms',
        p50: r3(percentile(trivial, 50)),
        p95: r3(percentile(trivial, 95)),
        n,
        first_run_ms: r3(first),
        target_p50_ms: 50,
        load_1m: r3(loadavg()[0]!),
        note: 'print(1) through skills/call-tool (the registry, the folder, the runner, the pool), warm',
      },
    ];
    // The folder calls from outside a chat share, with a CSV in it.
    const { openStore } = await import('../electron/store/stores.js');
    const store = openStore('account', home)!;
    const rows = Array.from({ length: 1000 }, (_, i) => `r${i},${(i * 37) % 101}`).join('\n');
    chatFolder(chatFilesRoot(store), MCP_FOLDER).write('data.csv', Buffer.from(`name,value\n${rows}\n`));
    store.close();
    const code =
      'import csv, statistics\nvals = [float(r["value"]) for r in csv.DictReader(open("data.csv"))]\nprint(statistics.mean(vals), statistics.stdev(vals))';
    const m = opts.quick ? 5 : 20;
    const csv = await sample(m, () => call(code), 2);
    out.push({
      bench: 'run_python.pyodide.csv_stats_p50_ms',
      unit: 'ms',
      p50: r3(percentile(csv, 50)),
      p95: r3(percentile(csv, 95)),
      n: m,
      load_1m: r3(loadavg()[0]!),
      note: 'a 1000-row CSV in the folder, csv + statistics; a run with files takes a fresh worker',
    });
    out.push(...(await fullPythonRows(opts)));
    return out;
  } finally {
    await host.dispose();
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * Full Python in a warm app: the environment installed first (from the shared wheel cache; the
 * part of the lock the tests use unless SKILLDESK_BENCH_FULL_STACK=1), then `print(1)` and
 * `import pandas, matplotlib` through the same door. Skipped where the OS sandbox cannot run.
 */
async function fullPythonRows(opts: BenchOptions): Promise<BenchResult[]> {
  const { nativeSandboxSupport } = await import('../electron/scripts/index.js');
  const { TEST_WHEEL_CACHE } = await import('../electron/chat/full-python.test-support.js');
  if (!nativeSandboxSupport().ok) return [];
  const home = mkdtempSync(join(tmpdir(), 'skilldesk-bench-fullpy-'));
  const host = createHost({
    home,
    env: {
      SKILLDESK_WHEEL_CACHE: TEST_WHEEL_CACHE,
      ...(process.env.SKILLDESK_BENCH_FULL_STACK === '1'
        ? {}
        : { SKILLDESK_FULL_PYTHON_PACKAGES: 'pandas,matplotlib' }),
    },
    mode: 'test',
    logger: quiet as never,
  });
  const invoke = async <T>(channel: string, req: unknown): Promise<T> => {
    const r = (await invokeChannel(
      host.handlers,
      channel,
      req,
      { transport: 'in-process' },
      quiet as never,
    )) as Result<T>;
    if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
    return r.value;
  };
  try {
    await invoke('python/set-runtime', { level: 'settings', runtime: 'full' });
    const t0 = performance.now();
    await invoke('python/install', {});
    const install = performance.now() - t0;
    const call = async (code: string) => {
      const r = await invoke<{ ok: boolean; result: { stdout: string; runtime: string } }>(
        'skills/call-tool',
        {
          name: 'run_python',
          args: { code },
        },
      );
      if (!r.ok || r.result.runtime !== 'full') throw new Error(`run_python failed: ${JSON.stringify(r)}`);
      return r.result;
    };
    const n = opts.quick ? 10 : 30;
    const trivial = await sample(n, () => call('print(1)'), 3);
    const m = opts.quick ? 5 : 15;
    const imports = await sample(m, () => call('import pandas, matplotlib'), 1);
    return [
      {
        bench: 'run_python.full.trivial_p50_ms',
        unit: 'ms',
        p50: r3(percentile(trivial, 50)),
        p95: r3(percentile(trivial, 95)),
        n,
        install_ms: r3(install),
        target_p50_ms: 300,
        load_1m: r3(loadavg()[0]!),
        note: 'print(1) in Full Python (CPython in bubblewrap, a fresh process per run) through skills/call-tool, environment installed',
      },
      {
        bench: 'run_python.full.import_pandas_matplotlib_p50_ms',
        unit: 'ms',
        p50: r3(percentile(imports, 50)),
        p95: r3(percentile(imports, 95)),
        n: m,
        load_1m: r3(loadavg()[0]!),
        note: 'import pandas, matplotlib in Full Python (bytecode compiled at install)',
      },
    ];
  } finally {
    await host.dispose();
    rmSync(home, { recursive: true, force: true });
  }
}
