// The state-leak suite: workers are reused by restoring their pristine interpreter state
// (pool option `reuse: 'memory'`), so every kind of state a run can leave must be gone for the next
// one. 500 runs alternate writers (each changes one kind of state, or breaks a limit) and readers
// (each takes a fingerprint of all of it); every reader must see exactly the fingerprint of a
// fresh interpreter, and most runs must have been served by a restored worker (or the suite would
// prove nothing about reuse).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../test-support/index.js';
import { SandboxPool } from './pool.js';
import type { SandboxRunResult } from './types.js';

const dir = mkdtempSync(join(tmpdir(), 'skilldesk-state-leak-'));
let pool: SandboxPool;

beforeAll(async () => {
  pool = new SandboxPool({ cacheDir: join(dir, 'cache'), reuse: 'memory', maxReuses: 10_000 });
  await pool.warmup();
}, 120_000);

afterAll(async () => {
  await pool?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Everything a run can leave behind, as one JSON value. */
const READER = `
import sys, os, builtins, gc, signal, json, warnings, codecs, copyreg, io, time, __main__
fp = {}
fp["modules"] = sorted(sys.modules)
fp["builtins"] = sorted((k, type(v).__name__, getattr(v, "__module__", None) or "") for k, v in vars(builtins).items())
fp["len_is_len"] = len([1, 2, 3]) == 3 and builtins.len.__module__ == "builtins"
fp["json"] = json.dumps({"a": [1, 2]}) + str(sorted(k for k in vars(json) if not k.startswith("__")))
fp["main"] = sorted(k for k in vars(__main__))
fp["path"] = list(sys.path)
fp["meta_path"] = [type(f).__name__ for f in sys.meta_path]
fp["path_hooks"] = len(sys.path_hooks)
fp["importer_cache"] = sorted(sys.path_importer_cache)
fp["recursion"] = sys.getrecursionlimit()
fp["int_digits"] = sys.get_int_max_str_digits()
fp["switch"] = sys.getswitchinterval()
fp["trace"] = [sys.gettrace() is None, sys.getprofile() is None]
fp["hooks"] = [sys.excepthook is sys.__excepthook__, sys.displayhook is sys.__displayhook__, sys.breakpointhook is sys.__breakpointhook__, sys.unraisablehook is sys.__unraisablehook__]
fp["streams"] = [sys.stdout is sys.__stdout__, sys.stderr is sys.__stderr__, sys.stdin is sys.__stdin__]
fp["gc"] = [gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()]
fp["signals"] = sorted((int(s), str(signal.getsignal(s))) for s in signal.valid_signals() if signal.getsignal(s) is not None)
fp["itimer"] = signal.getitimer(signal.ITIMER_REAL)
fp["sigmask"] = sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, []))
fp["sigpending"] = sorted(int(s) for s in signal.sigpending())
fp["environ"] = sorted(os.environ.items())
fp["cwd"] = os.getcwd()
fp["umask"] = os.umask(0o022)
os.umask(fp["umask"])
fp["tmp"] = sorted(os.listdir("/tmp"))
fp["home"] = sorted(os.listdir(os.path.expanduser("~")))
fp["root"] = sorted(os.listdir("/"))
fp["lib"] = {p: sorted(os.listdir(p))[:200] for p in sys.path if os.path.isdir(p)}
fp["lib_root"] = sorted(os.listdir("/lib"))
try:
    import leaky_stdlib
    fp["leaky_import"] = True
except ImportError:
    fp["leaky_import"] = False
fp["tz"] = [time.tzname, time.timezone]
fp["warnings"] = len(warnings.filters)
fp["codecs"] = [codecs.lookup("utf-8").name, codecs.lookup("latin-1").encode("é")[0].hex()]
fp["copyreg"] = len(copyreg.dispatch_table)
fp["flags"] = [sys.flags.optimize, sys.dont_write_bytecode]
fp["int_cache"] = (256).__add__(0) is 256
def _open(fd):
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False
fp["fds"] = [fd for fd in range(64) if _open(fd)]
fp["float_repr"] = repr(0.1 + 0.2)
x = "leak" + str(5)
fp["interned"] = sys.intern(x) is x
fp["sys_attrs"] = sorted(vars(sys))
import abc
fp["abc"] = sorted(vars(abc.ABCMeta))
try:
    codecs.lookup("leakcodec")
    fp["leakcodec"] = True
except LookupError:
    fp["leakcodec"] = False
import skilldesk
skilldesk.submit(fp)
`;

/** Writers: each changes one kind of state (the reader after it must not see it). */
const WRITERS: Record<string, string> = {
  new_module: `import sys, types\nm = types.ModuleType("leaked_mod")\nm.secret = 41\nsys.modules["leaked_mod"] = m`,
  replace_module: `import sys, types\nfake = types.ModuleType("json")\nfake.dumps = lambda *a, **k: "FAKE"\nsys.modules["json"] = fake`,
  patch_module: `import json, os\njson.LEAK = 1\njson.dumps = lambda *a, **k: "PATCHED"\nos.getcwd = lambda: "/nowhere"`,
  import_many: `import collections, decimal, fractions, statistics, dataclasses, textwrap, random, string, difflib, heapq, bisect, csv, email.message, html.parser`,
  builtins: `import builtins\nbuiltins.LEAK = "x"\nbuiltins.len = lambda x: -1\nbuiltins.print = None\ndel builtins.sorted`,
  main_globals: `import __main__\n__main__.LEAK = 1\nglobals()["leak_global"] = 2\nimport sys\nsys.modules["__main__"].__dict__["other"] = 3`,
  sys_state: `import sys\nsys.path.insert(0, "/evil")\nsys.path_hooks.append(lambda p: None)\nclass F:\n    def find_spec(self, *a): return None\nsys.meta_path.insert(0, F())\nsys.set_int_max_str_digits(640)\nsys.setswitchinterval(0.5)`,
  hooks: `import sys\nsys.excepthook = lambda *a: None\nsys.displayhook = lambda *a: None\nsys.settrace(lambda *a: None)\nsys.setprofile(lambda *a: None)\nsys.addaudithook(lambda *a: None)\nsys.breakpointhook = lambda *a: None\nsys.unraisablehook = lambda *a: None`,
  streams: `import sys, io\nsys.stdout = io.StringIO()\nsys.stderr = io.StringIO()\nsys.stdin = io.StringIO("x")`,
  recursion: `import sys\nsys.setrecursionlimit(60)`,
  gc_state: `import gc\ngc.disable()\ngc.set_threshold(1, 1, 1)\ngc.freeze()`,
  signals: `import signal\nsignal.signal(signal.SIGALRM, lambda *a: None)\nsignal.signal(signal.SIGUSR1, signal.SIG_IGN)\nsignal.signal(signal.SIGINT, signal.SIG_IGN)`,
  signal_mask: `import signal\nsignal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1, signal.SIGUSR2})\nsignal.raise_signal(signal.SIGUSR1)\nsignal.siginterrupt(signal.SIGTERM, True)`,
  environ: `import os, time\nos.environ["LEAK"] = "1"\nos.environ["TZ"] = "Asia/Tokyo"\nos.putenv("RAW", "2")\nos.umask(0o777)`,
  warnings_codecs: `import warnings, codecs, copyreg\nwarnings.simplefilter("ignore")\nwarnings.filterwarnings("error")\ncodecs.register(lambda n: codecs.lookup("utf-8") if n == "leakcodec" else None)\ncopyreg.pickle(type(lambda: 0), lambda f: (str, ("x",)))`,
  file_tmp: `with open("/tmp/leak.txt", "w") as f:\n    f.write("secret")`,
  file_home: `import os\nos.makedirs(os.path.expanduser("~/leakdir"), exist_ok=True)\nopen(os.path.expanduser("~/leakdir/x"), "w").write("1")`,
  file_stdlib: `import os, sys\nd = [p for p in sys.path if os.path.isdir(p)][0]\nopen(os.path.join(d, "leaky_stdlib.py"), "w").write("X = 1")\nimport leaky_stdlib`,
  chdir: `import os\nos.makedirs("/tmp/cd", exist_ok=True)\nos.chdir("/tmp/cd")`,
  open_fd: `import os\nfd = os.open("/dev/skilldesk", os.O_RDWR)\nglobal keep\nkeep = os.fdopen(os.dup(0))`,
  ffi: `import pyodide.ffi as ffi\ntry:\n    p = ffi.create_proxy(lambda: 1)\n    j = ffi.to_js([1, 2, 3])\n    import sys\n    sys.LEAKED_PROXY = (p, j)\nexcept Exception as e:\n    print(type(e).__name__)`,
  // Emscripten's JS libraries that keep state between calls: the resolver's table of names, the
  // dynamic-library registry, the protocol database.
  resolver: `import socket\nsocket.gethostbyname("leak.example")\nsocket.getaddrinfo("leak2.example", 80)`,
  dlopen: `import _imp, importlib.machinery as m\n_imp.create_dynamic(m.ModuleSpec("leak", None, origin="/tmp/leak.so"))`,
  protocols: `import socket\nsocket.getprotobyname("tcp")`,
  big_memory: `x = bytearray(b"S") * (24 * 1024 * 1024)\nimport sys\nsys.KEEP = x`,
  huge_memory: `x = bytearray(b"H") * (100 * 1024 * 1024)\nimport sys\nsys.KEEP = x`,
  interned: `import sys\nfor i in range(20000):\n    sys.intern("leak%d" % i)\nclass Meta(type): pass\nimport abc\nabc.ABCMeta.LEAK = 1`,
};

/** Writers the gate refuses (they reach JavaScript): the run fails typed and ends its worker. */
const REFUSED = new Set(['ffi', 'resolver', 'dlopen', 'protocols']);

/** Writers that break a limit: the run must fail typed, and the reader after it must be clean. */
const BREAKERS: Record<string, { code: string; limits: Record<string, number>; code_is: string }> = {
  timeout: { code: 'while True:\n    pass', limits: { timeout_ms: 300 }, code_is: 'SANDBOX_TIMEOUT' },
  output: { code: 'print("x" * 100000)', limits: { output_bytes: 1024 }, code_is: 'OK_TRUNCATED' },
  memory: { code: 'x = bytearray(300 * 1024 * 1024)', limits: { memory_mb: 128 }, code_is: 'SANDBOX_LIMIT' },
  recursion: { code: 'def f(n):\n    return f(n + 1)\nf(0)', limits: {}, code_is: 'RecursionError' },
};

/** Wait (up to 3 s) until a worker was restored since the count `before`. */
async function restoredAfter(before: number): Promise<void> {
  const until = Date.now() + 3000;
  while (pool.stats().workerResets <= before && Date.now() < until)
    await new Promise((r) => setTimeout(r, 5));
}

async function readRun(): Promise<SandboxRunResult> {
  const r = await pool.run(READER);
  expect({ ok: r.ok, error: r.error }).toEqual({ ok: true, error: null });
  return r;
}

async function read(): Promise<unknown> {
  return (await readRun()).result;
}

function checkBreaker(name: string, r: SandboxRunResult): void {
  const want = BREAKERS[name]!.code_is;
  if (want === 'OK_TRUNCATED') expect([r.ok, r.stdout_truncated]).toEqual([true, true]);
  else if (want === 'RecursionError') expect(r.error?.type).toBe('RecursionError');
  else expect({ name, code: r.error?.code }).toEqual({ name, code: want });
}

/** Kinds whose writer ends its worker (state the restore does not cover): run less often. */
const RETIRING = new Set([
  'file_tmp',
  'file_home',
  'file_stdlib',
  'chdir',
  'open_fd',
  'ffi',
  'resolver',
  'dlopen',
  'protocols',
  'huge_memory',
  'limit:timeout',
  'limit:memory',
]);

describe('state left by a run is invisible to the next when a worker is restored', () => {
  let baseline: unknown;

  it('the reader sees every kind of state a writer leaves (in the same run)', async () => {
    baseline = await read();
    for (const [kind, code] of Object.entries(WRITERS)) {
      if (kind === 'streams' || kind === 'builtins') continue; // they break the reader itself
      if (REFUSED.has(kind)) continue; // they end their run
      const r = await pool.run(`${code}\n${READER}`);
      expect({ kind, ok: r.ok, error: r.error }).toEqual({ kind, ok: true, error: null });
      expect({ kind, same: JSON.stringify(r.result) === JSON.stringify(baseline) }).toEqual({
        kind,
        same: false,
      });
    }
  }, 300_000);

  it('500 runs alternating writers of every kind of state (and limit breakers) with readers', async () => {
    baseline ??= await read();
    const restorable = [...Object.keys(WRITERS), ...Object.keys(BREAKERS).map((k) => `limit:${k}`)].filter(
      (k) => !RETIRING.has(k),
    );
    const retiring = [...RETIRING];
    const restored = new Map<string, number>();
    let runs = 1;
    for (let i = 0; runs < 500; i++) {
      // Every restorable kind each round, and two of the ones that end their worker.
      const round = [
        ...restorable,
        retiring[(2 * i) % retiring.length]!,
        retiring[(2 * i + 1) % retiring.length]!,
      ];
      for (const kind of round) {
        if (runs >= 500) break;
        const resetsBefore = pool.stats().workerResets;
        let w: SandboxRunResult;
        if (kind.startsWith('limit:')) {
          const name = kind.slice(6);
          const b = BREAKERS[name]!;
          w = await pool.run(b.code, { limits: b.limits });
          checkBreaker(name, w);
        } else if (REFUSED.has(kind)) {
          w = await pool.run(WRITERS[kind]!);
          expect({ kind, type: w.error?.type }).toEqual({ kind, type: 'SandboxViolation' });
        } else {
          w = await pool.run(WRITERS[kind]!);
          expect({ kind, ok: w.ok, error: w.error }).toEqual({ kind, ok: true, error: null });
        }
        // A worker restores itself after its result is out; a spare booted meanwhile could take the
        // reader first. Give a restorable kind's worker the moment it needs to be back in line.
        if (!RETIRING.has(kind) && !REFUSED.has(kind)) await restoredAfter(resetsBefore);
        const readerResetsBefore = pool.stats().workerResets;
        const { result: seen, timing } = await readRun();
        // The reader's worker restores itself after its result too; until that is counted, the
        // next writer's wait above would end on the reader's restore instead of its own.
        await restoredAfter(readerResetsBefore);
        // The writer's worker was restored and served the reader.
        const sameWorker =
          w.timing.worker_id !== undefined &&
          timing.worker_id === w.timing.worker_id &&
          timing.worker_run === (w.timing.worker_run ?? 0) + 1;
        if (sameWorker) restored.set(kind, (restored.get(kind) ?? 0) + 1);
        if (JSON.stringify(seen) !== JSON.stringify(baseline)) {
          // The diff names the kind of state that leaked.
          expect({ after: kind, fingerprint: seen }).toEqual({ after: kind, fingerprint: baseline });
        }
        runs += 2;
      }
    }
    // Every restorable kind was served by restoring the same worker (so the comparison above tested
    // the restore, not a new worker), and none of the others was.
    expect(restorable.filter((k) => !restored.has(k))).toEqual([]);
    expect(retiring.filter((k) => restored.has(k))).toEqual([]);
  }, 600_000);

  it('through `skilldesk run-code`, one pool as a user runs it: writers of JS-side state and readers alternate', async () => {
    baseline ??= await read();
    const files: string[] = [];
    const kinds = [
      'ffi',
      'resolver',
      'dlopen',
      'protocols',
      'patch_module',
      'environ',
      'file_tmp',
      'signals',
    ];
    for (const [i, kind] of [...kinds, ...kinds].entries()) {
      const w = join(dir, `w${i}-${kind}.py`);
      writeFileSync(w, WRITERS[kind]!);
      const r = join(dir, `r${i}.py`);
      writeFileSync(r, READER);
      files.push(w, r);
    }
    const out = await runCli(['--home', join(dir, 'cli-home'), '--json', 'run-code', ...files]);
    const reports = out.stdout
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as { file: string; ok: boolean; result: unknown; error: { type: string } | null },
      );
    expect(reports).toHaveLength(files.length);
    for (const r of reports) {
      const kind = /w\d+-(\w+)\.py$/.exec(r.file)?.[1];
      if (kind) {
        expect({ kind, type: r.error?.type ?? 'ok' }).toEqual({
          kind,
          type: REFUSED.has(kind) ? 'SandboxViolation' : 'ok',
        });
      } else {
        expect({ file: r.file, ok: r.ok, fingerprint: r.result }).toEqual({
          file: r.file,
          ok: true,
          fingerprint: baseline,
        });
      }
    }
  }, 300_000);

  it('the first run after a restore is served in milliseconds by the same process', async () => {
    await pool.run('x = 1');
    const r = await pool.run('import skilldesk\nskilldesk.submit(1)');
    expect(r.ok).toBe(true);
    expect(r.timing.worker_boot_ms).toBeLessThan(200);
  });
});
