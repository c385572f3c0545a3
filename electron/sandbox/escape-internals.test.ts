// The escape suite for attackers who know Pyodide's and Emscripten's internals. One class of
// attack per describe block, each layer tested on its own as if the one
// before it had already fallen:
//   1. JavaScript reachable from Python (object graph, import system, built-ins, FFI);
//   2. the network (from Python; from JavaScript inside the process; from the OS alone);
//   3. forged messages on the process channel, and the snapshot cache;
//   4. host calls that try to hurt the app (depth, size, budgets, the interrupt flag).
// Python attacks run through `skilldesk run-code`, as a user runs them, in one pool; after each
// one a canary must run clean, the app's listeners must have seen no connection, and the snapshot
// cache must be unchanged.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCi, runCli } from '../test-support/index.js';
import { checkSnapshot, pyodideDir, RUNTIME_DIR, SandboxPool } from './pool.js';
import { encodeFrames, FrameReader } from './runtime/frames.mjs';
import { detectIsolation, spawnNodeSandbox } from './spawn.js';
import type { SandboxProcessHandle } from './types.js';

let tcp: Server;
let unix: Server;
let tcpPort = 0;
let unixPath = '';
let connections = 0;
// Not test-support's tempDir: that one is emptied after every test, and this suite shares one home.
const dir = mkdtempSync(join(tmpdir(), 'skilldesk-escape-'));
const home = join(dir, 'home');

function listen(server: Server, target: object): Promise<void> {
  return new Promise((r) => server.listen(target, () => r()));
}

beforeAll(async () => {
  tcp = createServer((s) => {
    connections++;
    s.destroy();
  });
  await listen(tcp, { port: 0, host: '127.0.0.1' });
  tcpPort = (tcp.address() as { port: number }).port;
  // Beside the suite's folder, never inside a folder the sandbox may read.
  unixPath = join(mkdtempSync(join(tmpdir(), 'skilldesk-sock-')), 'docker.sock');
  unix = createServer((s) => {
    connections++;
    s.destroy();
  });
  await listen(unix, { path: unixPath });
});

afterAll(async () => {
  await new Promise((r) => tcp?.close(r));
  await new Promise((r) => unix?.close(r));
  rmSync(dir, { recursive: true, force: true });
});

function cacheHashes(): Record<string, string> {
  const cache = join(home, 'cache');
  const out: Record<string, string> = {};
  try {
    for (const f of readdirSync(cache))
      out[f] = createHash('sha256')
        .update(readFileSync(join(cache, f)))
        .digest('hex');
  } catch {
    // no cache yet
  }
  return out;
}

/** Run Python files through `skilldesk --json run-code`, one pool; returns one report per file. */
// What the last runCode printed on stderr, for the message of an assertion that fails.
let lastStderr = '';

async function runCode(files: Record<string, string>, timeoutMs = 4000) {
  const paths: string[] = [];
  for (const [name, code] of Object.entries(files)) {
    const p = join(dir, `${name}.py`);
    writeFileSync(p, code);
    paths.push(p);
  }
  const r = await runCli(['--home', home, '--json', 'run-code', '--timeout-ms', String(timeoutMs), ...paths]);
  lastStderr = r.stderr;
  const lines = r.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map(
      (l) =>
        JSON.parse(l) as {
          file: string;
          ok: boolean;
          result: unknown;
          stdout: string;
          error: { type: string; message: string; code?: string } | null;
        },
    );
  expect(lines).toHaveLength(paths.length);
  return Object.fromEntries(Object.keys(files).map((k, i) => [k, lines[i]!]));
}

const CANARY = `
import builtins, sys, json
assert not hasattr(builtins, 'leaked'), 'builtins leaked from an earlier run'
assert 'js' not in sys.modules and 'pyodide_js' not in sys.modules
import skilldesk
skilldesk.submit({'canary': 42})
`;

/** Interleave a canary after every attack: each must come back clean. */
function withCanaries(attacks: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(attacks)) {
    out[k] = v;
    out[`${k}__canary`] = CANARY;
  }
  return out;
}

function expectCanaries(reports: Record<string, { ok: boolean; result: unknown; error: unknown }>) {
  for (const [k, r] of Object.entries(reports)) {
    if (k.endsWith('__canary'))
      expect({ k, ok: r.ok, result: r.result, error: r.error }).toEqual({
        k,
        ok: true,
        result: { canary: 42 },
        error: null,
      });
  }
}

// A frame as the app's reader expects it, built in Python (what a forged message would look like).
const PY_FRAME = `
import json, struct
def frame(msg):
    b = json.dumps(msg).encode()
    return struct.pack('>IB', len(b), 1) + b
`;

/**
 * One program per route: `reached` when the route answered, `blocked` when Python refused it;
 * a route stopped by the gate (gate.mjs) ends its run with a SandboxViolation instead.
 */
function probes(routes: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, code] of Object.entries(routes)) {
    const body = code
      .split('\n')
      .map((l) => `    ${l}`)
      .join('\n');
    out[name] =
      `import skilldesk\ntry:\n${body}\n    skilldesk.submit('reached')\nexcept BaseException as e:\n    skilldesk.submit('blocked: ' + type(e).__name__)\n`;
  }
  return out;
}

function expectRoutesClosed(reports: Record<string, { ok: boolean; result: unknown; error: unknown }>) {
  for (const [k, r] of Object.entries(reports)) {
    if (k.endsWith('__canary')) continue;
    const e = r.error as { type?: string } | null;
    const closed =
      (typeof r.result === 'string' && r.result.startsWith('blocked')) || e?.type === 'SandboxViolation';
    expect({ k, closed, result: r.result, error: r.error }).toMatchObject({ k, closed: true });
  }
}

describe('1. JavaScript is unreachable from Python', () => {
  it('walks the whole object graph and the import system: no JsProxy, no JS module, no way back', async () => {
    const before = cacheHashes();
    const reports = await runCode(
      withCanaries({
        graph: `
import gc, sys, skilldesk
def is_js(o):
    try: return type(type(o)).__name__ == '_JsProxyMetaClass'
    except BaseException: return False
seen, stack, found = set(), list(gc.get_objects()) + [sys.modules, sys.__dict__, sys.meta_path, sys.path_importer_cache], []
while stack:
    o = stack.pop()
    if id(o) in seen: continue
    seen.add(id(o))
    if is_js(o): found.append(repr(o)[:60]); continue
    try: stack.extend(gc.get_referents(o))
    except BaseException: pass
skilldesk.submit({'walked': len(seen), 'found': found})
`,
        builtins: `
import sys, skilldesk
from importlib.machinery import ModuleSpec, BuiltinImporter
import _imp
created = []
# create_builtin answers None for a name that is not in CPython's table of built-ins.
for name in ['_ctypes', '_socket', '_posixsubprocess', '_testcapi', '_testinternalcapi', '_remote_debugging']:
    try:
        if _imp.create_builtin(ModuleSpec(name, BuiltinImporter)) is not None: created.append(name)
    except BaseException: pass
for name in ['ctypes', 'subprocess']:
    try:
        m = __import__(name)
        if name == 'ctypes': m.CDLL(None); created.append(name)
        if name == 'subprocess': m.run(['true']); created.append(name)
    except BaseException: pass
skilldesk.submit({'created': created, 'listed': [n for n in sys.builtin_module_names if n in ('_ctypes', '_socket')]})
`,
      }),
      // Walking every object is CPU-bound: on a loaded two-core machine 4 s was not enough.
      20_000,
    );
    expect(reports.graph!.error).toBeNull();
    expect(reports.graph!.result).toMatchObject({ found: [] });
    expect((reports.graph!.result as { walked: number }).walked).toBeGreaterThan(10_000);
    expect(reports.builtins!.result).toEqual({ created: [], listed: [] });
    expectCanaries(reports);
    // Every route from Python to a JS object, one per run (a route that reaches the gate ends its
    // run): each fails in Python or is stopped by the gate, never answers.
    const routes = await runCode(
      withCanaries(
        probes({
          import_js: 'import js',
          import_pyodide_js: 'import pyodide_js',
          import_js_process: 'import js.process',
          register_js_module:
            'from _pyodide._importhook import register_js_module\nregister_js_module("js2", {})\nimport js2',
          jsfinder: 'import sys\nassert any(type(f).__name__ == "JsFinder" for f in sys.meta_path)',
          run_js: 'import pyodide.code\npyodide.code.run_js("globalThis")',
          to_js: 'from pyodide.ffi import to_js\nto_js({})',
          create_proxy: 'from pyodide.ffi import create_proxy\ncreate_proxy(len)',
          core_to_js: 'import _pyodide_core\n_pyodide_core.to_js([1])',
          core_create_once_callable: 'import _pyodide_core\n_pyodide_core.create_once_callable(len)',
          function_ctor:
            'from pyodide.ffi import to_js\nto_js({}).constructor.constructor("return process")()',
          js_eval_via_webloop:
            'import pyodide.webloop as w\nw.WebLoop().call_soon(print, 1)\nw.WebLoop()._run_once()',
          asyncio_sleep: 'import asyncio\nasyncio.run(asyncio.sleep(0.01))',
          // Every function of Pyodide's core module found through the garbage collector, called with a
          // few shapes of argument: none may hand back a JS object (the probe "reaches" only if one did).
          gc_core_functions:
            'import gc\nfs = [o for o in gc.get_objects() if getattr(o, "__module__", "") in ("_pyodide_core", "pyodide.ffi") and callable(o)]\nhits = []\nfor f in fs:\n    for args in ((), ([1],), ({},), (len,)):\n        try:\n            r = f(*args)\n        except Exception:\n            continue\n        if type(type(r)).__name__ == "_JsProxyMetaClass":\n            hits.append(getattr(f, "__name__", "?"))\nif not hits:\n    raise RuntimeError("no JS object")',
        }),
      ),
    );
    expectRoutesClosed(routes);
    expectCanaries(routes);
    expect(connections).toBe(0);
    expect(cacheHashes()).toEqual(Object.keys(before).length ? before : cacheHashes());
  }, 120_000);
});

describe('2. The network is closed', () => {
  it('from Python: no socket, no fetch, no forged JS path, and no listener on loopback or a UNIX socket sees a connection', async () => {
    const reports = await runCode(
      withCanaries({
        sockfs: `
import os, skilldesk
# Emscripten's socket FS: a descriptor under /dev or a socket syscall without _socket.
opened = []
for path in ['/dev/socket', '/proc/net/tcp', ${JSON.stringify(unixPath)}]:
    try:
        fd = os.open(path, os.O_RDWR); os.write(fd, b'x'); opened.append(path)
    except BaseException: pass
skilldesk.submit(opened)
`,
      }),
    );
    expect(reports.sockfs!.result).toEqual([]);
    expectCanaries(reports);
    const routes = await runCode(
      withCanaries(
        probes({
          tcp: `import socket\nsocket.create_connection(('127.0.0.1', ${tcpPort}), timeout=1)`,
          unix: `import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect(${JSON.stringify(unixPath)})`,
          urllib: `import urllib.request\nurllib.request.urlopen('http://127.0.0.1:${tcpPort}/', timeout=1)`,
          open_url: `import pyodide.http\npyodide.http.open_url('http://127.0.0.1:${tcpPort}/')`,
          resolver: `import socket\nsocket.getaddrinfo('localhost', ${tcpPort})`,
          protocols: `import socket\nsocket.getprotobyname('tcp')`,
          services: `import socket\nsocket.getservbyname('http')`,
        }),
      ),
    );
    expectRoutesClosed(routes);
    expectCanaries(routes);
    expect(connections).toBe(0);
  }, 120_000);

  it('from JavaScript inside the sandbox process (as if Pyodide had fallen): built-ins, fds, signals and workers are refused', async () => {
    const attackDir = join(dir, 'js-attack');
    mkdirSync(attackDir, { recursive: true });
    writeFileSync(
      join(attackDir, 'main.mjs'),
      `import { Worker } from 'node:worker_threads';
const w = new Worker(new URL('./worker.mjs', import.meta.url), { stdout: true, stderr: true });
w.stdout.resume(); w.stderr.resume();
w.on('message', (m) => { process.stdout.write(JSON.stringify(m) + '\\n'); process.exit(0); });
w.on('error', (e) => { process.stdout.write(JSON.stringify({ error: String(e) }) + '\\n'); process.exit(1); });
`,
    );
    writeFileSync(
      join(attackDir, 'worker.mjs'),
      `import { parentPort } from 'node:worker_threads';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { sealThread } from ${JSON.stringify(new URL('./runtime/guard.mjs', import.meta.url).href)};
const got = [];
const attempt = async (name, f) => { try { await f(); got.push(name); } catch {} };
for (const m of ['node:net', 'node:tls', 'node:http', 'node:child_process', 'node:dgram', 'node:v8', 'node:inspector', 'node:tty', 'net', 'data:text/javascript,export default 1']) {
  await attempt('import ' + m, () => import(m));
}
const req = createRequire(import.meta.url);
for (const m of ['net', 'node:net', 'child_process', 'http', 'tty', 'v8']) await attempt('require ' + m, () => { const x = req(m); if (m.endsWith('tty') && !x.WriteStream) throw 0; });
await attempt('getBuiltinModule', () => process.getBuiltinModule('net'));
await attempt('fetch', () => { if (typeof globalThis.fetch !== 'function') throw 0; });
await attempt('WebSocket', () => { if (typeof globalThis.WebSocket !== 'function') throw 0; });
await attempt('binding', () => process.binding('fs'));
await attempt('kill', () => process.kill(process.ppid || 1, 0));
await attempt('dlopen', () => process.dlopen({}, '/x.node'));
await attempt('fd write', () => fs.writeSync(1, 'forged'));
await attempt('fd read', () => fs.readSync(0, Buffer.alloc(1)));
await attempt('open', () => fs.openSync('/etc/hostname', 'r'));
await attempt('new Worker', async () => new (await import('node:worker_threads')).Worker('1', { eval: true }));
await attempt('prepareStackTrace', () => { Error.prepareStackTrace = () => 1; if (Error.prepareStackTrace === undefined) throw 0; });
sealThread();
await attempt('read after seal', () => fs.readFileSync(${JSON.stringify(join(attackDir, 'main.mjs'))}));
await attempt('vm after seal', async () => (await import('node:vm')).default.runInThisContext('1'));
parentPort.postMessage({ got });
`,
    );
    const handle = spawnNodeSandbox({
      entry: join(attackDir, 'main.mjs'),
      guard: join(RUNTIME_DIR, 'guard.mjs'),
      readPaths: [`${attackDir}/`, `${RUNTIME_DIR}/`],
      maxOldSpaceMb: 256,
      probe: { tcpPort, unixPath },
    });
    const out = await collect(handle);
    expect(JSON.parse(out.trim().split('\n').pop()!)).toEqual({ got: [] });
    expect(connections).toBe(0);
  }, 60_000);

  it('from the operating system alone: a plain Node process under the confinement cannot connect', async () => {
    const execPath = process.execPath;
    const probeDir = join(dir, 'os-probe');
    mkdirSync(probeDir, { recursive: true });
    writeFileSync(
      join(probeDir, 'probe.mjs'),
      `import net from 'node:net';
const t = (target) => new Promise((r) => { const s = net.connect(target); s.on('connect', () => { s.destroy(); r('connected'); }); s.on('error', () => r('blocked')); setTimeout(() => r('blocked'), 1500); });
process.stdout.write(JSON.stringify({ tcp: await t({ port: ${tcpPort}, host: '127.0.0.1' }), unix: await t({ path: ${JSON.stringify(unixPath)} }) }));
`,
    );
    const w = detectIsolation(execPath, [`${probeDir}/`]);
    if (w.isolation.method === 'none') {
      // No OS layer here; in CI the machine must provide one (bubblewrap is installed by .ci/run).
      expect(isCi() ? w.isolation.method : 'none').not.toBe(isCi() ? 'none' : 'x');
      return;
    }
    const child = spawn(w.prefix[0]!, [...w.prefix.slice(1), execPath, join(probeDir, 'probe.mjs')], {
      env: {},
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b) => {
      out += b;
    });
    await new Promise((r) => child.on('exit', r));
    const seen = JSON.parse(out);
    expect(seen.tcp).toBe('blocked');
    if (w.isolation.blocks_unix) expect(seen.unix).toBe('blocked');
    expect(connections).toBe(0);
  }, 30_000);
});

function collect(handle: SandboxProcessHandle): Promise<string> {
  return new Promise((resolve) => {
    let out = '';
    handle.onData((c) => {
      out += Buffer.from(c).toString('utf8');
    });
    handle.onExit(() => resolve(out));
    setTimeout(() => {
      handle.kill();
    }, 30_000).unref();
  });
}

/** A sandbox process played by the test: it says what a compromised process would say. */
function fakeProcess(script: (send: (m: unknown, bin?: Uint8Array) => void, received: unknown) => void) {
  let data: (c: Uint8Array) => void = () => {};
  let exit: (code: number | null, signal: string | null) => void = () => {};
  let killed = false;
  const send = (m: unknown, bin?: Uint8Array) => {
    for (const c of encodeFrames(m, bin)) data(c);
  };
  const reader = new FrameReader(
    { maxJson: 1 << 26, maxBinary: () => 1 << 30 },
    {
      onJson: (m) => queueMicrotask(() => !killed && script(send, m)),
      onBinary: () => {},
      onViolation: () => {},
    },
  );
  const handle: SandboxProcessHandle = {
    pid: 4242,
    isolation: { method: 'none', blocks_tcp: false, blocks_unix: false, detail: 'test' },
    write: (c) => reader.push(c),
    onData: (cb) => {
      data = cb;
      queueMicrotask(() =>
        send({ type: 'hello', pid: 4242, self_check: { tcp: 'skipped', unix: 'skipped' } }),
      );
    },
    onExit: (cb) => {
      exit = cb;
    },
    kill: () => {
      if (killed) return;
      killed = true;
      queueMicrotask(() => exit(null, 'SIGKILL'));
    },
    stderrTail: () => '',
  };
  return { handle, wasKilled: () => killed, raw: (c: Uint8Array) => data(c) };
}

describe('3. Forged messages and the snapshot cache', () => {
  const GOOD_SNAPSHOT = (() => {
    const bytes = new Uint8Array(4096);
    const u32 = new Uint32Array(bytes.buffer);
    u32[0] = 1886286592;
    u32[1] = 64;
    const json = new TextEncoder().encode('{}');
    u32[2] = json.length;
    const id = /BUILD_ID:"([0-9a-f]{64})"/.exec(readFileSync(join(pyodideDir(), 'pyodide.mjs'), 'utf8'))![1]!;
    for (let i = 0; i < 8; i++) u32[4 + i] = Number.parseInt(id.slice(i * 8, i * 8 + 8), 16);
    bytes.set(json, 48);
    return bytes;
  })();

  // Valid too, but different: what a compromised process would like every later process to boot.
  const OTHER_SNAPSHOT = GOOD_SNAPSHOT.slice();
  OTHER_SNAPSHOT[4000] = 0x66;

  it('checks snapshots: magic, header and build id', () => {
    expect(checkSnapshot(GOOD_SNAPSHOT)).toBeNull();
    const bad = GOOD_SNAPSHOT.slice();
    bad[3] = 0;
    expect(checkSnapshot(bad)).toMatch(/magic/);
    const other = GOOD_SNAPSHOT.slice();
    new Uint32Array(other.buffer)[5] = 7;
    expect(checkSnapshot(other)).toMatch(/another Pyodide/);
  });

  const cases: Array<
    [string, (send: (m: unknown, bin?: Uint8Array) => void, m: { type: string; id: number }) => void]
  > = [
    [
      'a snapshot from a process that has run a job',
      (send, m) => {
        if (m.type === 'run') send({ type: 'snapshot', ms: 1, size: OTHER_SNAPSHOT.length }, OTHER_SNAPSHOT);
      },
    ],
    [
      'a result for another run',
      (send, m) => {
        if (m.type === 'run') send({ type: 'result', id: m.id + 1, result: {} });
      },
    ],
    [
      'a host call out of sequence',
      (send, m) => {
        if (m.type === 'run')
          send({ type: 'host', id: m.id, seq: 7, request: '{"fn":"get_page","args":["x"]}' });
      },
    ],
    ['a 2 GB frame header', () => {}],
    [
      'an unknown message type',
      (send, m) => {
        if (m.type === 'run') send({ type: 'eval', code: 'process.exit()' });
      },
    ],
  ];

  for (const [name, script] of cases) {
    it(`kills the process that sends ${name}; the run fails typed, nothing is cached, the app keeps going`, async () => {
      const cacheDir = join(dir, `cache-${name.replace(/\W+/g, '-')}`);
      const fake = fakeProcess((send, m) => {
        // A well-behaved start: the snapshot (no cache yet), then a warm worker.
        if ((m as { type: string }).type === 'init') {
          send({ type: 'snapshot', ms: 1, size: GOOD_SNAPSHOT.length }, GOOD_SNAPSHOT);
          send({ type: 'worker-ready', ms: 1 });
          return;
        }
        if (name === 'a 2 GB frame header' && (m as { type: string }).type === 'run') {
          const h = new Uint8Array(5);
          new DataView(h.buffer).setUint32(0, 0xfffffff0);
          h[4] = 1;
          // straight onto the pipe, as a forger would
          fake.raw(h);
          return;
        }
        script(send, m as { type: string; id: number });
      });
      const pool = new SandboxPool({
        spawn: () => fake.handle,
        cacheDir,
        allowInProcessIsolation: true,
        log: () => {},
      });
      const r = await pool.run('print(1)');
      expect(r.ok).toBe(false);
      expect(r.error?.code).toBe('SANDBOX_FAILED');
      expect(fake.wasKilled()).toBe(true);
      expect(pool.stats().protocolViolations).toBeGreaterThan(0);
      // The cache holds the snapshot made before any job, byte for byte, and nothing else.
      const cached = readdirSync(cacheDir).filter((f) => f.endsWith('.snapshot'));
      expect(cached).toHaveLength(1);
      expect(new Uint8Array(readFileSync(join(cacheDir, cached[0]!)))).toEqual(GOOD_SNAPSHOT);
      await pool.close();
    });
  }

  it('a result whose submitted value is nested 100,000 deep, or a frame that is, cannot throw into the app', async () => {
    for (const variant of ['value', 'frame'] as const) {
      const fake = fakeProcess((send, m) => {
        const msg = m as { type: string; id: number };
        if (msg.type === 'init') {
          send({ type: 'snapshot', ms: 1, size: GOOD_SNAPSHOT.length }, GOOD_SNAPSHOT);
          send({ type: 'worker-ready', ms: 1 });
        }
        if (msg.type !== 'run') return;
        const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
        const result = {
          ok: true,
          submitted: true,
          result: variant === 'value' ? deep : '1',
          stdout: '',
          stderr: '',
          truncated: { stdout: false, stderr: false },
          error: null,
          host_calls: 1,
          wait_ms: 0,
          run_ms: 1,
          worker_boot_ms: 1,
        };
        if (variant === 'value') send({ type: 'result', id: msg.id, result });
        else
          send({
            type: 'result',
            id: msg.id,
            result: { ...result, extra: JSON.parse('[]') },
            deep: [[[[[[]]]]]],
          } as unknown);
      });
      const pool = new SandboxPool({
        spawn: () => fake.handle,
        allowInProcessIsolation: true,
        log: () => {},
      });
      const r = await pool.run('print(1)');
      if (variant === 'value') expect(r).toMatchObject({ ok: true, result: null });
      else expect(r.error?.code).toBe('SANDBOX_FAILED');
      await pool.close();
    }
  });

  it('a tampered cached snapshot is refused and rebuilt, never booted from', async () => {
    const cacheHome = join(dir, 'tamper-home');
    const first = await runCli(['--home', cacheHome, '--json', 'run-code', '-'], {}, 'print(1)\n');
    expect(first.code).toBe(0);
    const cache = join(cacheHome, 'cache');
    const bin = readdirSync(cache).find((f) => f.endsWith('.snapshot'))!;
    const bytes = readFileSync(join(cache, bin));
    const at = bytes.length - 100;
    bytes[at] = (bytes[at] ?? 0) ^ 0xff; // one byte of the heap: a backdoor would look like this
    writeFileSync(join(cache, bin), bytes);
    const again = await runCli(
      ['--home', cacheHome, '--json', 'run-code', '-'],
      {},
      'import skilldesk\nskilldesk.submit(7)\n',
    );
    expect(JSON.parse(again.stdout)).toMatchObject({ ok: true, result: 7 });
    expect(readFileSync(join(cache, bin)).equals(bytes)).toBe(false);
  }, 120_000);
});

describe('4. Host calls cannot hurt the app', () => {
  it('deep, huge and endless host calls are refused before parsing; the interrupt flag cannot hold a host wait', async () => {
    const heapBefore = process.memoryUsage().heapUsed;
    const reports = await runCode(
      withCanaries({
        deep: `${PY_FRAME}
import os, skilldesk
req = b'{"fn":"submit","args":[' + b'[' * 200000 + b']' * 200000 + b']}'
fd = os.open('/dev/skilldesk', os.O_RDWR)
os.write(fd, req)
reply = os.read(fd, 1 << 16)
os.close(fd)
print(reply.decode())
`,
        huge: `
import skilldesk
try:
    skilldesk.checkpoint('x' * (5 * 1024 * 1024)); print('accepted')
except skilldesk.SkillDeskError as e:
    print('refused', e.code)
`,
        objects: `
import skilldesk
n = 0
try:
    for i in range(100):
        skilldesk.checkpoint([0] * 100000); n += 1
except skilldesk.SkillDeskError as e:
    print('refused after', n, e.code)
`,
        interrupt: `
import skilldesk
while True:
    try:
        skilldesk.get_page('x')
    except BaseException:
        pass
`,
        forged_stdout: `${PY_FRAME}
import os, sys
f = frame({'type': 'snapshot', 'ms': 1, 'size': 10})
os.write(1, f); sys.stdout.buffer.write(f); open('/dev/stdout', 'wb').write(f)
for fd in range(3, 12):
    try: os.write(fd, f)
    except OSError: pass
print('wrote')
`,
      }),
      2000,
    );
    expect(reports.deep!.stdout).toMatch(/INVALID_INPUT|nested deeper/);
    expect(reports.huge!.stdout).toMatch(/refused SANDBOX_LIMIT/);
    expect(reports.objects!.stdout).toMatch(/refused after \d+ SANDBOX_LIMIT/);
    expect(reports.interrupt!.error, lastStderr).toMatchObject({ code: 'SANDBOX_TIMEOUT' });
    expect(reports.forged_stdout!.ok).toBe(true);
    expectCanaries(reports);
    // Whatever the runs sent, the app holds on to a bounded amount of it.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(200 * 1024 * 1024);
    expect(connections).toBe(0);
  }, 180_000);
});
