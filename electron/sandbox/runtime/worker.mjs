// One Pyodide interpreter for exactly one job. Runs as a worker thread inside the sandbox process
// (see process.mjs), which terminates it after the job: a fresh worker is what makes state fresh.
//
// Plain JavaScript on purpose: the sandbox process has no TypeScript loader and may read only this
// folder and node_modules/pyodide.
//
// Order matters: guard.mjs (module resolution, process members, fs) and the wasm memory cap go in
// before Pyodide loads. The snapshot is made after the dangerous built-in modules are gone from
// CPython's table, so each worker starts without them; after it loads, the worker cuts every
// Python-side path to JavaScript (prelude.py), takes the public Pyodide API apart, strips its
// globals and seals the thread (no fs, no vm) before any untrusted code runs. Python reaches the
// host only through the `/dev/skilldesk` device, which carries JSON bytes (no proxies) and blocks
// on a shared buffer until the supervisor answers.

import { parentPort, workerData } from 'node:worker_threads';
import { dropNetworkGlobals, sealThread } from './guard.mjs';

dropNetworkGlobals();

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

// What the worker keeps of the Pyodide API before taking the public object apart.
let runPython;
let pyGlobals;

function lockDown() {
  py.setStdin({ stdin: () => null });
  py.setStdout(capture('stdout'));
  py.setStderr(capture('stderr'));
  py.setInterruptBuffer(new Int32Array(interruptBuffer));
  installHostDevice();
  // The snapshot was taken with `js` and `pyodide_js` unregistered and every Python-side path to
  // JavaScript scrubbed; loading re-registers the two modules: take them away again.
  for (const name of ['js', 'pyodide_js']) {
    try {
      py.unregisterJsModule(name);
    } catch {
      // not registered: fine
    }
  }
  runPython = py.runPython.bind(py);
  pyGlobals = py.globals;
  // A JSON array of strings is a Python list literal.
  runPython(`_skilldesk_lockdown(${JSON.stringify([...REMOVED_BUILTINS])})`);
  // The public API object is what `pyodide_js` was: nothing of it stays usable.
  for (const key of Reflect.ownKeys(py)) {
    try {
      delete py[key];
    } catch {
      // non-configurable: frozen below
    }
  }
  Object.freeze(py);
  py = null;
  stripGlobals();
  sealThread();
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
// buffer. Layout: Int32 [0]=state (0 waiting, 1 answered), [1]=byte length, [2]=deadline passed
// (set by the supervisor only: Python can reach neither this buffer nor its clock); data from byte 16.
const HOST_HEADER = 16;
const hostState = new Int32Array(hostBuffer, 0, 4);
const hostData = new Uint8Array(hostBuffer, HOST_HEADER);
// The supervisor refuses larger requests before parsing them; refusing here saves the copy.
const MAX_REQUEST = Math.min(hostData.length, workerData.maxRequestBytes ?? hostData.length);

function hostCall(requestBytes) {
  AtomicsRef.store(hostState, 0, 0);
  port.postMessage({ type: 'host', request: decoder.decode(requestBytes) });
  for (;;) {
    const r = AtomicsRef.wait(hostState, 0, 0, 50);
    if (r !== 'timed-out') break;
    if (AtomicsRef.load(hostState, 2) !== 0) {
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
    pyGlobals.set('_skilldesk_code', code);
    pyGlobals.set('_skilldesk_recursion', limits.recursion_limit);
    const json = runPython('_skilldesk_runner.run(_skilldesk_code, _skilldesk_recursion)');
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

// Built-in (statically linked) modules that give Python raw memory, raw calls into the wasm
// module, sockets or test hooks: taken out of CPython's table of built-ins before the snapshot, so no
// import, `_imp.create_builtin` or spec trick can create them. (Python keeps other ways to corrupt
// its own memory; the layers after this one assume it does.)
const REMOVED_BUILTINS = new Set([
  '_ctypes',
  '_posixsubprocess',
  '_socket',
  '_remote_debugging',
  '_testcapi',
  '_testinternalcapi',
  '_testclinic',
  '_testclinic_limited',
  '_testlimitedcapi',
  '_testbuffer',
  '_xxtestfuzz',
  'xxsubtype',
  '_lsprof',
  'faulthandler',
]);

/**
 * Remove entries from CPython's built-in module table(s): the one `PyImport_Inittab` points to and
 * the runtime's private copy of it, found by scanning the heap for the same sequence of entries.
 * Each entry is `{const char *name; PyObject *(*initfunc)(void)}`, 8 bytes on wasm32.
 */
function removeBuiltinModules(Module, names) {
  const U32 = Module.HEAPU32;
  const table = U32[Module._PyImport_Inittab >>> 2] >>> 2;
  const entries = [];
  for (let i = table; U32[i] !== 0; i += 2) entries.push([U32[i], U32[i + 1]]);
  if (entries.length < 8) throw new Error('unexpected built-in module table');
  const keep = entries.filter(([name]) => !names.has(Module.UTF8ToString(name)));
  const [n0, f0] = entries[0];
  const [n1, f1] = entries[1];
  let rewritten = 0;
  for (let i = 0; i + 3 < U32.length; i++) {
    if (U32[i] !== n0 || U32[i + 1] !== f0 || U32[i + 2] !== n1 || U32[i + 3] !== f1) continue;
    let same = true;
    for (let k = 0; k < entries.length && same; k++) {
      same = U32[i + 2 * k] === entries[k][0] && U32[i + 2 * k + 1] === entries[k][1];
    }
    if (!same || U32[i + 2 * entries.length] !== 0) continue;
    keep.forEach(([n, f], k) => {
      U32[i + 2 * k] = n;
      U32[i + 2 * k + 1] = f;
    });
    for (let k = keep.length; k <= entries.length; k++) {
      U32[i + 2 * k] = 0;
      U32[i + 2 * k + 1] = 0;
    }
    rewritten++;
    i += 2 * entries.length;
  }
  if (rewritten === 0) throw new Error('the built-in module table was not found');
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
  removeBuiltinModules(py._module, REMOVED_BUILTINS);
  py.runPython(prelude, { filename: '<skilldesk-prelude>' });
  const bytes = py.makeMemorySnapshot();
  port.postMessage({ type: 'snapshot', bytes }, [bytes.buffer]);
  // The snapshot maker never runs a job.
} else {
  lockDown();
  // Exercise the run path once so the first job does not pay for lazy compilation and caches.
  runPython('_skilldesk_runner.run("import json\\njson.dumps([1])", 1000)');
  out.stdout.length = 0;
  out.stderr.length = 0;
  port.postMessage({ type: 'ready' });
  port.once('message', (msg) => {
    if (msg?.type === 'run') runJob(msg);
  });
}
