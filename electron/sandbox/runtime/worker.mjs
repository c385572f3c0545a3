// One Pyodide interpreter for exactly one job. Runs as a worker thread inside the sandbox process
// (see process.mjs), which terminates it after the job: a fresh worker is what makes state fresh.
//
// Plain JavaScript on purpose: the sandbox process has no TypeScript loader and may read only this
// folder and node_modules/pyodide.
//
// Order matters: the wasm memory cap and the `process.binding` shim go in before Pyodide loads;
// the JS bridges (`js`, `pyodide_js`) and the worker's globals go away after it loads, before any
// untrusted code runs. Python reaches the host only through the `/dev/skilldesk` device, which
// carries JSON bytes (no proxies) and blocks on a shared buffer until the supervisor answers.
import { constants as fsConstants } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

const port = parentPort;
const {
  pyodideUrl,
  indexURL,
  snapshot,
  makeSnapshot,
  prelude,
  hostBuffer,
  interruptBuffer,
  bootMemoryMb,
  wasmModule,
} = workerData;

// Captured before the globals are stripped.
const AtomicsRef = Atomics;
const TextDecoderRef = TextDecoder;
const TextEncoderRef = TextEncoder;
const decoder = new TextDecoderRef();
const encoder = new TextEncoderRef();
const now = () => performance.now();

// --- before loading -------------------------------------------------------------------------------

// Worker resourceLimits and --max-old-space-size do not bound wasm memory: cap growth here.
const WASM_PAGE = 65536;
let memoryCapBytes = (bootMemoryMb ?? 1024) * 1024 * 1024;
let memoryCapHit = false;
const originalGrow = WebAssembly.Memory.prototype.grow;
const cappedGrow = function grow(delta) {
  const next = this.buffer.byteLength + Number(delta) * WASM_PAGE;
  if (next > memoryCapBytes) {
    memoryCapHit = true;
    throw new RangeError('sandbox memory limit reached');
  }
  return originalGrow.call(this, delta);
};
Object.defineProperty(WebAssembly.Memory.prototype, 'grow', {
  value: cappedGrow,
  writable: false,
  configurable: false,
});

// The supervisor compiles pyodide.asm.wasm once and hands every worker the same Module: compiled
// (and tiered-up) code is shared across the process's isolates instead of recompiled per worker.
if (wasmModule instanceof WebAssembly.Module) {
  const instantiate = WebAssembly.instantiate;
  WebAssembly.instantiate = async (source, imports) => {
    if (source instanceof WebAssembly.Module) return instantiate(source, imports);
    return { instance: await instantiate(wasmModule, imports), module: wasmModule };
  };
}

// Pyodide's NODEFS reads fs constants through process.binding, which the permission model denies.
const realBinding = process.binding;
process.binding = (name) =>
  name === 'constants' ? { fs: fsConstants, os: {} } : realBinding.call(process, name);

const out = {
  stdout: [],
  stderr: [],
  bytes: { stdout: 0, stderr: 0 },
  cap: 65536,
  truncated: { stdout: false, stderr: false },
};
function capture(which) {
  return {
    write(buf) {
      const room = out.cap - out.bytes[which];
      if (room > 0) {
        const part = buf.length > room ? buf.subarray(0, room) : buf;
        out[which].push(decoder.decode(part, { stream: false }));
        out.bytes[which] += part.length;
      }
      if (buf.length > room) out.truncated[which] = true;
      return buf.length;
    },
  };
}

let py;

// --- after loading --------------------------------------------------------------------------------

function lockDown() {
  py.setStdin({ stdin: () => null });
  py.setStdout(capture('stdout'));
  py.setStderr(capture('stderr'));
  py.setInterruptBuffer(new Int32Array(interruptBuffer));
  installHostDevice();
  // The JS side of the bridges; a Python-side import block could be undone from Python.
  for (const name of ['js', 'pyodide_js']) {
    try {
      py.unregisterJsModule(name);
    } catch {
      // not registered: fine
    }
  }
  py.runPython(
    "import sys\nfor _m in [m for m in sys.modules if m in ('js', 'pyodide_js') or m.startswith(('js.', 'pyodide_js.'))]:\n    del sys.modules[_m]\ndel _m",
  );
  stripGlobals();
}

const KEEP_GLOBALS = new Set(
  'Object Function Array Number parseFloat parseInt Infinity NaN undefined Boolean String Symbol Date Promise RegExp Error AggregateError EvalError RangeError ReferenceError SyntaxError TypeError URIError globalThis JSON Math Intl ArrayBuffer Uint8Array Int8Array Uint16Array Int16Array Uint32Array Int32Array Float32Array Float64Array Uint8ClampedArray BigUint64Array BigInt64Array DataView Map BigInt Set WeakMap WeakSet Proxy Reflect FinalizationRegistry WeakRef decodeURI decodeURIComponent encodeURI encodeURIComponent isFinite isNaN SharedArrayBuffer Atomics WebAssembly TextEncoder TextDecoder DOMException queueMicrotask setTimeout clearTimeout performance crypto Crypto'.split(
    ' ',
  ),
);

function stripGlobals() {
  for (const key of Reflect.ownKeys(globalThis)) {
    if (typeof key === 'string' && KEEP_GLOBALS.has(key)) continue;
    if (typeof key === 'symbol') continue;
    try {
      delete globalThis[key];
    } catch {
      // non-configurable: overwritten below if it matters
    }
  }
  // Emscripten still consults a few process fields; give it an inert object.
  const inert = Object.freeze({
    env: Object.freeze({}),
    argv: Object.freeze([]),
    platform: 'linux',
    versions: Object.freeze({}),
    exitCode: undefined,
    cwd: () => '/',
    exit: () => {
      throw new Error('process.exit is not available in the sandbox');
    },
  });
  Object.defineProperty(globalThis, 'process', { value: inert, writable: false, configurable: false });
  const noop = () => {};
  const quiet = Object.freeze({ log: noop, warn: noop, error: noop, info: noop, debug: noop, trace: noop });
  Object.defineProperty(globalThis, 'console', { value: quiet, writable: false, configurable: false });
  Object.defineProperty(globalThis, 'eval', { value: undefined, writable: false, configurable: false });
}

// Host calls: the worker writes {fn, args} JSON, posts it to the supervisor and blocks on the shared
// buffer. Layout: Int32 [0]=state (0 waiting, 1 answered), [1]=byte length; data from byte 16.
const HOST_HEADER = 16;
const hostState = new Int32Array(hostBuffer, 0, 4);
const hostData = new Uint8Array(hostBuffer, HOST_HEADER);
const interruptView = new Int32Array(interruptBuffer);
const MAX_REQUEST = hostData.length;

function hostCall(requestBytes) {
  AtomicsRef.store(hostState, 0, 0);
  port.postMessage({ type: 'host', request: decoder.decode(requestBytes) });
  for (;;) {
    const r = AtomicsRef.wait(hostState, 0, 0, 50);
    if (r !== 'timed-out') break;
    if (AtomicsRef.load(interruptView, 0) !== 0) {
      return encoder.encode(
        JSON.stringify({ ok: false, error: { code: 'CANCELLED', message: 'interrupted' } }),
      );
    }
  }
  const len = AtomicsRef.load(hostState, 1);
  return hostData.slice(0, len);
}

function installHostDevice() {
  const FS = py.FS;
  const dev = FS.makedev(64, 0);
  FS.registerDevice(dev, {
    open(stream) {
      stream.skilldesk = { parts: [], size: 0, response: null, pos: 0 };
    },
    close() {},
    read(stream, buffer, offset, length) {
      const s = stream.skilldesk;
      if (s.response === null) {
        const req = new Uint8Array(s.size);
        let at = 0;
        for (const p of s.parts) {
          req.set(p, at);
          at += p.length;
        }
        s.parts = [];
        s.response = hostCall(req);
      }
      const n = Math.min(length, s.response.length - s.pos);
      if (n <= 0) return 0;
      buffer.set(s.response.subarray(s.pos, s.pos + n), offset);
      s.pos += n;
      return n;
    },
    write(stream, buffer, offset, length) {
      const s = stream.skilldesk;
      if (s.response !== null || s.size + length > MAX_REQUEST)
        throw new FS.ErrnoError(
          22 /* EFBIG in Emscripten numbering (27 is EINTR: Python would retry forever) */,
        );
      s.parts.push(buffer.slice(offset, offset + length));
      s.size += length;
      return length;
    },
  });
  FS.mkdev('/dev/skilldesk', 0o666, dev);
}

function runJob({ code, limits }) {
  const started = now();
  out.cap = limits.output_bytes;
  memoryCapBytes = limits.memory_mb * 1024 * 1024;
  let outcome;
  try {
    py.globals.set('_skilldesk_code', code);
    py.globals.set('_skilldesk_recursion', limits.recursion_limit);
    const json = py.runPython('_skilldesk_runner.run(_skilldesk_code, _skilldesk_recursion)');
    outcome = JSON.parse(String(json));
  } catch (e) {
    // The runner catches every Python exception; landing here means the interpreter itself broke
    // (a wasm trap, a stack overflow, memory exhausted inside the runtime).
    outcome = {
      ok: false,
      error: {
        type: memoryCapHit ? 'MemoryError' : 'SandboxFault',
        message: String(e?.message ?? e).slice(0, 2000),
      },
    };
  }
  if (!outcome.ok && outcome.error?.type === 'MemoryError') memoryCapHit = true;
  port.postMessage({
    type: 'done',
    outcome,
    stdout: out.stdout.join(''),
    stderr: out.stderr.join(''),
    truncated: out.truncated,
    memoryCapHit,
    runMs: now() - started,
  });
}

// --- main ------------------------------------------------------------------------------------------
const { loadPyodide } = await import(pyodideUrl);
const loadOptions = {
  indexURL,
  env: { HOME: '/home/pyodide' },
  jsglobals: Object.create(null),
  stdout: () => {},
  stderr: () => {},
  stdin: () => null,
  checkAPIVersion: true,
};
if (snapshot) loadOptions._loadSnapshot = snapshot;
if (makeSnapshot) loadOptions._makeSnapshot = true;
py = await loadPyodide(loadOptions);

if (makeSnapshot) {
  py.runPython(prelude, { filename: '<skilldesk-prelude>' });
  const bytes = py.makeMemorySnapshot();
  port.postMessage({ type: 'snapshot', bytes }, [bytes.buffer]);
  // The snapshot maker never runs a job.
} else {
  lockDown();
  // Exercise the run path once so the first job does not pay for lazy compilation and caches.
  py.runPython('_skilldesk_runner.run("import json\\njson.dumps([1])", 1000)');
  out.stdout.length = 0;
  out.stderr.length = 0;
  port.postMessage({ type: 'ready' });
  port.once('message', (msg) => {
    if (msg?.type === 'run') runJob(msg);
  });
}
