// The sandbox process starts its first worker before `init` from the Pyodide folder on its command
// line. `init` stays the app's word: a first worker started from another folder, or one
// that failed to start, gives way to one booted from init's, and runs still work. The snapshot those
// workers boot from is the app's (sent packed sparse) either way.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SandboxPool } from './pool.js';
import { spawnNodeSandbox } from './spawn.js';
import type { SandboxSpawnSpec } from './types.js';

const dir = mkdtempSync(join(tmpdir(), 'skilldesk-early-start-'));
const cacheDir = join(dir, 'cache');

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A pool whose process is told `pyodideUrl` (or nothing) on its command line. */
function poolWith(pyodideUrl: (spec: SandboxSpawnSpec) => string | undefined): {
  pool: SandboxPool;
  specs: SandboxSpawnSpec[];
} {
  const specs: SandboxSpawnSpec[] = [];
  const pool = new SandboxPool({
    cacheDir,
    spawn: (spec) => {
      const changed = { ...spec, pyodideUrl: pyodideUrl(spec) };
      specs.push(changed);
      return spawnNodeSandbox(changed);
    },
  });
  return { pool, specs };
}

describe('the first worker starts before init', () => {
  it('from the folder the app gives: one worker booted, runs give fresh state', async () => {
    const { pool, specs } = poolWith((spec) => spec.pyodideUrl);
    try {
      const a = await pool.run('import skilldesk\nx = 41\nskilldesk.submit(x + 1)');
      const b = await pool.run('import skilldesk\nskilldesk.submit("x" in globals())');
      expect([a.ok, a.result, b.ok, b.result]).toEqual([true, 42, true, false]);
      expect(specs[0]?.pyodideUrl).toMatch(/^file:\/\/.*\/pyodide\/$/);
      expect(pool.stats().workersBooted).toBe(1);
    } finally {
      await pool.close();
    }
  }, 120_000);

  it('from another folder, or one it cannot read: that worker goes, one from init boots, runs work', async () => {
    for (const wrong of [
      // the same folder spelled otherwise: the worker starts and is retired at init
      (spec: SandboxSpawnSpec) => `${spec.pyodideUrl}./`,
      // a folder outside the sandbox's reach: the worker fails to start
      () => 'file:///nonexistent-skilldesk-pyodide/',
      // not a folder URL: ignored, the worker starts at init
      () => 'http://127.0.0.1/pyodide/',
    ]) {
      const { pool } = poolWith(wrong);
      try {
        const r = await pool.run('import skilldesk\nskilldesk.submit(6 * 7)');
        expect([r.ok, r.result, r.error?.message ?? null]).toEqual([true, 42, null]);
        // One worker serves (restored between runs): the retired or failed one is not counted
        // twice, so no extra worker boots beside it.
        const again = await pool.run('import skilldesk\nskilldesk.submit(1)');
        expect(again.ok).toBe(true);
        expect(pool.stats().workersBooted).toBe(1);
      } finally {
        await pool.close();
      }
    }
  }, 180_000);
});
