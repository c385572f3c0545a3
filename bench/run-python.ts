// run_python in a warm app: a trivial run (`print(1)`, no files) through the host's tool door
// (`skills/call-tool`, as `mcp serve` calls it), and a run that reads a CSV from its folder with
// csv + statistics (a run with files ends its worker, so this one pays for a fresh interpreter).
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Result } from '../electron/contract/channels.js';
import { chatFilesRoot, chatFolder } from '../electron/dispatch/index.js';
import { createHost } from '../electron/host.js';
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
    return out;
  } finally {
    await host.dispose();
    rmSync(home, { recursive: true, force: true });
  }
}
