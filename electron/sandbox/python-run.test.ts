// run_python's Pyodide runs in the pool: a run that writes nothing leaves its worker as it found
// it, so the next run reuses it (a warm trivial run costs milliseconds, not a worker boot); a run
// that writes into out/ hands the file back and its worker is not reused, so the next run's out/
// is empty again.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxPool } from './pool.js';
import { runPythonCode } from './python-run.js';

let pool: SandboxPool;
beforeAll(async () => {
  // The cancel tests tell workers apart by id, numbered per sandbox process: a cap high enough
  // that the pool does not restart a process grown by the workers these tests boot and end.
  pool = new SandboxPool({ cacheDir: join(tmpdir(), 'skilldesk-test-sandbox-cache'), rssLimitMb: 4096 });
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
    // The process says a worker is clean again (worker-ready, reused) after it answered the run:
    // the last run's reset may still be on its way when its result is in.
    await expect.poll(() => pool.stats().workerResets - resetsBefore).toBeGreaterThanOrEqual(3);

    const wrote = await run('open("out/result.txt", "w").write("42")\nprint("done")');
    expect(wrote.files.map((f) => f.path)).toEqual(['out/result.txt']);
    expect(Buffer.from(wrote.files[0]!.bytes).toString()).toBe('42');
    const after = await run('import os\nprint(sorted(os.listdir("out")))');
    expect(after.stdout).toBe('[]\n');
  }, 300_000);
});

describe('display() in run_python', () => {
  it('saves a table as out/<name>.csv and prints its first rows, with the standard library only', async () => {
    const r = await runPythonCode({
      pool,
      code: [
        'import csv',
        'rows = list(csv.DictReader(open("sales.csv")))',
        'totals = {}',
        'for row in rows: totals[row["region"]] = totals.get(row["region"], 0) + float(row["amount"])',
        'display([{"region": k, "total": v} for k, v in sorted(totals.items())], "Totals by region")',
        'display([["a", "b"], [1, 2]])',
      ].join('\n'),
      files: [{ path: 'sales.csv', bytes: Buffer.from('region,amount\nnorth,10\nsouth,5\nnorth,2.5\n') }],
    });
    expect(r.exception).toBeNull();
    const csv = Object.fromEntries(r.files.map((f) => [f.path, Buffer.from(f.bytes).toString()]));
    expect(csv).toEqual({
      'out/totals-by-region.csv': 'region,total\r\nnorth,12.5\r\nsouth,5.0\r\n',
      'out/table-1.csv': 'a,b\r\n1,2\r\n',
    });
    expect(r.stdout).toContain('north   12.5');
    expect(r.stdout).toContain(
      '[shown to the user as a table: out/totals-by-region.csv, 2 rows x 2 columns]',
    );
    // display is the run's own: a name the code defines wins, and nothing of it outlives the run.
    const own = await runPythonCode({
      pool,
      code: 'def display(x): print("mine", x)\ndisplay(1)',
      files: [],
    });
    expect(own.stdout).toBe('mine 1\n');
  }, 300_000);
});

/**
 * The count of restored workers once it stops moving: resets of earlier runs' workers are reported
 * after their results, and a test that counts one more must not count theirs.
 */
async function resetsSettled(): Promise<number> {
  let settled = -1;
  await expect
    .poll(() => {
      const now = pool.stats().workerResets;
      const same = now === settled;
      settled = now;
      return same;
    })
    .toBe(true);
  return settled;
}

describe('cancelling a run', () => {
  /** Run `code` and abort once Python reached its first checkpoint (so it is surely running). */
  async function cancelWhenRunning(code: string, graceMs = 500) {
    const ac = new AbortController();
    let abortedAt = 0;
    const r = await pool.run(code, {
      signal: ac.signal,
      limits: { timeout_ms: 60_000, grace_ms: graceMs },
      onCheckpoint: () => {
        abortedAt = performance.now();
        ac.abort();
      },
    });
    return { r, afterAbortMs: performance.now() - abortedAt };
  }

  it('interrupts Python, answers CANCELLED and gives the clean worker back', async () => {
    const recycles = pool.stats().recycles;
    // Resets of earlier runs' workers are reported after their results: let them land first, so
    // the count below moves only for the interrupted worker.
    const settled = await resetsSettled();
    // A grace long enough that a loaded machine still delivers the interrupt before the kill: the
    // run must end by the interrupt, whatever the load.
    const { r, afterAbortMs } = await cancelWhenRunning(
      'import skilldesk\nprint("started")\nskilldesk.checkpoint(1)\nwhile True: pass',
      10_000,
    );
    expect(r.error).toMatchObject({ code: 'CANCELLED' });
    expect(r.stdout).toBe('started\n');
    // The interrupt, not the grace's kill, ended it.
    expect(afterAbortMs).toBeLessThan(5_000);
    // The interrupted run left its worker restorable: the sandbox reports it clean again (a worker
    // that was ended never is), in the same process, and the pool serves on. The cancel may land
    // in the loop or while the checkpoint's host call is still open (under load it often does);
    // either way the worker is given back.
    await expect.poll(() => pool.stats().workerResets, { timeout: 30_000 }).toBeGreaterThan(settled);
    expect(pool.stats().recycles).toBe(recycles);
    expect((await pool.run('print(6 * 7)')).stdout).toBe('42\n');
  }, 120_000);

  it('gives the worker back when the cancel lands inside a host call the app never answers', async () => {
    const settled = await resetsSettled();
    const ac = new AbortController();
    let calls = 0;
    const r = await pool.run(
      'import skilldesk\nprint("calling")\nskilldesk.get_page("anything")\nprint("not reached")',
      {
        signal: ac.signal,
        limits: { timeout_ms: 60_000, grace_ms: 10_000 },
        host: {
          // The app's side of the call hangs: only the cancel ends the wait.
          call: () => {
            calls++;
            ac.abort();
            return new Promise(() => {});
          },
        },
      },
    );
    expect(calls).toBe(1);
    expect(r.error).toMatchObject({ code: 'CANCELLED' });
    expect(r.stdout).toBe('calling\n');
    await expect.poll(() => pool.stats().workerResets, { timeout: 30_000 }).toBeGreaterThan(settled);
    // The late answer of the dropped call can reach no later run: the next one runs clean.
    expect((await pool.run('print(6 * 7)')).stdout).toBe('42\n');
  }, 120_000);

  it('leaves no state for the next run when the code catches a cancel inside a host call and writes some', async () => {
    // The reused worker's restore must undo what the cancelled code did after catching the cancel:
    // a module attribute and a builtin replaced. (A file written outside the run's folders ends the
    // worker instead; that path is the state-leak test's.)
    await resetsSettled();
    const ac = new AbortController();
    const r = await pool.run(
      [
        'import skilldesk, sys, builtins',
        'try:',
        '    skilldesk.get_page("anything")',
        'except BaseException:',
        '    pass',
        'for _ in range(5):',
        '    try:',
        '        sys.leaked = "secret"',
        '        builtins.len = lambda x: 42',
        '        break',
        '    except BaseException:',
        '        pass',
      ].join('\n'),
      {
        signal: ac.signal,
        limits: { timeout_ms: 60_000, grace_ms: 10_000 },
        host: {
          call: () => {
            ac.abort();
            return new Promise(() => {});
          },
        },
      },
    );
    expect(r.error).toMatchObject({ code: 'CANCELLED' });
    // Whether the worker is restored or ended depends on where the pending interrupt lands: in the
    // code, or in the runner after it, which then cannot report and so ends its worker. Either
    // way the next runs, on whichever worker serves them, see nothing of it.
    await resetsSettled();
    for (let i = 0; i < 3; i++) {
      const next = await pool.run('import sys\nprint(getattr(sys, "leaked", None), len([1, 2]))');
      expect(next.stdout).toBe('None 2\n');
    }
  }, 120_000);

  it('ends the worker after the grace when the code catches the interrupt and loops on', async () => {
    const recycles = pool.stats().recycles;
    const { r } = await cancelWhenRunning(
      [
        // The cancel may land while the checkpoint's host call is still waiting (it then raises
        // there) or in the loop (KeyboardInterrupt): the code swallows both and loops on.
        'import skilldesk',
        'try:',
        '    skilldesk.checkpoint(1)',
        'except BaseException:',
        '    pass',
        'while True:',
        '    try:',
        '        while True: pass',
        '    except BaseException:',
        '        pass',
      ].join('\n'),
    );
    expect(r.error).toMatchObject({ code: 'CANCELLED' });
    const next = await pool.run('print("alive")');
    expect(next.stdout).toBe('alive\n');
    // Same process (worker ids are numbered per process), another worker.
    expect(pool.stats().recycles).toBe(recycles);
    expect(next.timing.worker_id).not.toBe(r.timing.worker_id);
  }, 120_000);

  it('answers a run cancelled before it starts without running it', async () => {
    const ac = new AbortController();
    ac.abort();
    const r = await pool.run('print("never")', { signal: ac.signal });
    expect(r.error).toMatchObject({ code: 'CANCELLED' });
    expect(r.stdout).toBe('');
  });

  it('run_python: a cancelled run says so and keeps nothing it wrote', async () => {
    const ac = new AbortController();
    // The real pool, with the run's first checkpoint as the moment to cancel.
    const watched = Object.create(pool) as SandboxPool;
    watched.run = (code, o) => pool.run(code, { ...o, onCheckpoint: () => ac.abort() });
    const r = await runPythonCode({
      pool: watched,
      code: 'import skilldesk\nopen("out/partial.txt", "w").write("x")\nprint("working")\nskilldesk.checkpoint(0)\nwhile True: pass',
      files: [],
      timeoutMs: 60_000,
      signal: ac.signal,
    });
    expect(r.stopped?.code).toBe('CANCELLED');
    expect(r.stopped?.reason).toMatch(/cancelled/);
    expect(r.files).toEqual([]);
    expect(r.stdout).toBe('working\n');
    expect((await runPythonCode({ pool, code: 'print("next")', files: [] })).stdout).toBe('next\n');
  }, 120_000);
});

describe('run_python network grant', () => {
  let server: Server;
  let port = 0;
  const hits: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/away') {
        res.writeHead(302, { location: 'https://example.com/elsewhere' });
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`rows for ${req.url}`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const fetchCode = (path: string, host = `127.0.0.1:${port}`, scheme = 'http') =>
    [
      'import urllib.request, urllib.error',
      'try:',
      `    print(urllib.request.urlopen("${scheme}://${host}${path}").read().decode())`,
      'except urllib.error.URLError as e:',
      '    print("refused:", e.reason)',
    ].join('\n');
  const run = (code: string, hosts: string[]) =>
    runPythonCode({ pool, code, files: [], network: { hosts, session_id: 'chat-7' } });

  it('reaches a granted loopback host, through urllib and skilldesk.http_request', async () => {
    const r = await run(fetchCode('/data.csv'), [`127.0.0.1:${port}`]);
    expect(r.exception).toBeNull();
    expect(r.stdout).toBe('rows for /data.csv\n');
    expect(r.requests).toEqual([
      { method: 'GET', url: `http://127.0.0.1:${port}/data.csv`, status: 200, bytes: 18 },
    ]);
    const direct = await run(
      `import skilldesk\nr = skilldesk.http_request("GET", "http://127.0.0.1:${port}/x")\nprint(r["status"], r["body"].decode())`,
      [`127.0.0.1:${port}`],
    );
    expect(direct.stdout).toBe('200 rows for /x\n');
  }, 120_000);

  it('refuses a host the chat did not grant, naming the setting and the command', async () => {
    const before = hits.length;
    const r = await run(fetchCode('/secret'), []);
    expect(r.stdout).toContain(
      `refused: run_python in this chat may not reach 127.0.0.1:${port}: it is not granted`,
    );
    expect(r.stdout).toContain(`skilldesk python network allow 127.0.0.1:${port} --chat chat-7`);
    expect(r.requests?.[0]).toMatchObject({ status: null, error: expect.stringMatching(/not granted/) });
    // Another port of a granted address is another host.
    const other = await run(fetchCode('/secret'), ['127.0.0.1:1']);
    expect(other.stdout).toMatch(/^refused: .*not granted/);
    expect(hits.length).toBe(before);
  }, 120_000);

  it('refuses a redirect to a host that is not granted, and plain http to a named host', async () => {
    const r = await run(fetchCode('/away'), [`127.0.0.1:${port}`]);
    expect(r.stdout).toMatch(
      /^refused: run_python in this chat may not reach example\.com: it is not granted/,
    );
    expect(r.requests?.map((q) => [q.url, q.status])).toEqual([
      [`http://127.0.0.1:${port}/away`, 302],
      ['https://example.com/elsewhere', null],
    ]);
    const plain = await run(fetchCode('/x', 'data.example:8080'), ['data.example:8080']);
    expect(plain.stdout).toMatch(/over https only: use https:\/\/data\.example:8080\/x/);
  }, 120_000);

  it('leaves the rest of the skilldesk module to skills', async () => {
    const r = await run('import skilldesk\nskilldesk.get_page("x")', []);
    expect(r.exception?.message).toMatch(/get_page is not available to run_python code/);
  }, 120_000);
});
