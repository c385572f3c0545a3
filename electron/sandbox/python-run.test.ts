// run_python's Pyodide runs in the pool: a run that writes nothing leaves its worker as it found
// it, so the next run reuses it (a warm trivial run costs milliseconds, not a worker boot); a run
// that writes into out/ hands the file back and its worker is not reused, so the next run's out/
// is empty again.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxPool } from './pool.js';
import { runPythonCode } from './python-run.js';

let pool: SandboxPool;
beforeAll(async () => {
  pool = new SandboxPool({ cacheDir: join(tmpdir(), 'skilldesk-test-sandbox-cache') });
  await pool.warmup();
}, 300_000);
afterAll(async () => {
  await pool?.close();
});

describe('run_python in the Pyodide pool', () => {
  it('reuses the worker after runs that write nothing, and not after one that wrote out/', async () => {
    const run = (code: string) => runPythonCode({ pool, code, files: [] });
    const first = await run('import os\nprint(sorted(os.listdir("out")))');
    expect(first.stdout).toBe('[]\n');
    const resetsBefore = pool.stats().workerResets;
    for (let i = 0; i < 3; i++) expect((await run(`print(${i} * 2)`)).stdout).toBe(`${i * 2}\n`);
    expect(pool.stats().workerResets - resetsBefore).toBeGreaterThanOrEqual(3);

    const wrote = await run('open("out/result.txt", "w").write("42")\nprint("done")');
    expect(wrote.files.map((f) => f.path)).toEqual(['out/result.txt']);
    expect(Buffer.from(wrote.files[0]!.bytes).toString()).toBe('42');
    const after = await run('import os\nprint(sorted(os.listdir("out")))');
    expect(after.stdout).toBe('[]\n');
  }, 300_000);
});
