// The snapshot cache never leaves temp files behind: a write that fails removes its own, and temps
// whose writer is gone (killed, or out of disk) are removed before the cache is next used.
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeStaleTemps } from './pool.js';

const dir = mkdtempSync(join(tmpdir(), 'skilldesk-snapcache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A pid no process has (Linux pids stay below 2^22). */
const DEAD_PID = 4_194_303;

describe('snapshot cache temp files', () => {
  it('removes temps of dead writers and old ones, keeps a live writer’s and other files', () => {
    const dead = join(dir, `pyodide-314.0.7-abc.snapshot.${DEAD_PID}.0badc0de.tmp`);
    const live = join(dir, `pyodide-314.0.7-abc.snapshot.${process.pid}.12345678.tmp`);
    const old = join(dir, `pyodide-314.0.7-abc.json.${process.pid}.87654321.tmp`);
    const other = join(dir, 'pyodide-314.0.7-abc.snapshot');
    for (const f of [dead, live, old, other]) writeFileSync(f, 'x');
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    utimesSync(old, twoHoursAgo, twoHoursAgo);
    removeStaleTemps(dir);
    expect([existsSync(dead), existsSync(live), existsSync(old), existsSync(other)]).toEqual([
      false,
      true,
      false,
      true,
    ]);
  });

  it('a missing folder is not an error', () => {
    expect(() => removeStaleTemps(join(dir, 'missing'))).not.toThrow();
  });
});
