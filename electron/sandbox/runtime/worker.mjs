// One Pyodide interpreter. Runs as a worker thread inside the sandbox process (see process.mjs).
// Two ways to make each job's state fresh: the supervisor terminates the worker after one job
// (`reuse` off), or the worker keeps a pristine copy of everything the interpreter's state lives in
// (the WebAssembly linear memory, the hiwire table of JS references, the stack pointer, the
// in-memory file system's stream table) and restores it after each job (`reuse` on, see
// "Reuse" below). A job that did anything the restore does not cover ends the worker instead.
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
import { createGate, GateError, gateImports } from './gate.mjs';
import { dropNetworkGlobals, sealThread } from './guard.mjs';
import { hardenIntrinsics } from './harden.mjs';
import { expandSparse, isSparseCopy, sparseCopy, writeSparse } from './sparse.mjs';

dropNetworkGlobals();

const port = parentPort;
const { pyodideUrl, indexURL, makeSnapshot, prelude, hostBuffer, interruptBuffer } = workerData;
// A worker gets these in its `boot` message (the snapshot maker: in its workerData): the first
// worker starts before the process knows its configuration.
let snapshot = workerData.snapshot;
let wasmModule = workerData.wasmModule;
let { bootMemoryMb, reuse, maxRequestBytes } = workerData;

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

// Every import of the interpreter goes through the gate (gate.mjs): once the worker has locked
// itself down, Python can no longer make the module call into JavaScript beyond the file system,
// clocks and entropy. The supervisor compiles pyodide.asm.wasm once and hands every worker the same
// Module: compiled (and tiered-up) code is shared across the process's isolates instead of
// recompiled per worker.
const gate = createGate();
function instantiateThroughGate() {
  const instantiate = WebAssembly.instantiate;
  WebAssembly.instantiate = async (source, imports) => {
    const env = imports?.env;
    let gatedImports = imports;
    if (env && typeof env === 'object') {
      const gated = gateImports(env, gate);
      gatedImports = { ...imports, env: gated };
      if (imports.wasi_snapshot_preview1 === env) gatedImports.wasi_snapshot_preview1 = gated;
    }
    if (source instanceof WebAssembly.Module) return instantiate(source, gatedImports);
    if (!(wasmModule instanceof WebAssembly.Module)) return instantiate(source, gatedImports);
    return { instance: await instantiate(wasmModule, gatedImports), module: wasmModule };
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

/** The Emscripten module and its file system (kept for the restore between jobs). */
let Module;
let FS;
/**
 * Where the runner's entry statement lives in linear memory (written once, before the pristine
 * copy). A job is run by handing it to `PyRun_SimpleString`, a C call: no JS value crosses into
 * Python, so nothing on the job's path needs the interpreter's JS-object imports, and the gate can
 * stay closed from the first job on.
 */
let runnerEntry = 0;
/** The job in progress: its input for the runner and the report the runner writes back. */
const job = { input: new Uint8Array(0), report: null };

function lockDown() {
  py.setStdin({ stdin: () => null });
  py.setStdout(capture('stdout'));
  py.setStderr(capture('stderr'));
  py.setInterruptBuffer(new Int32Array(interruptBuffer));
  installHostDevice();
  installJobDevice();
  // The snapshot was taken with `js` and `pyodide_js` unregistered and every Python-side path to
  // JavaScript scrubbed; loading re-registers the two modules: take them away again.
  for (const name of ['js', 'pyodide_js']) {
    try {
      py.unregisterJsModule(name);
    } catch {
      // not registered: fine
    }
  }
  Module = py._module;
  FS = py.FS;
  // The mount points of a run's folders (see "A run's files"), empty between runs.
  for (const dir of JOB_FOLDERS) {
    try {
      FS.mkdir(dir, 0o755);
    } catch {
      // there already (/tmp)
    }
  }
  // run_python's output folder (`out/` beside the code) is part of the pristine file system, so a
  // run that writes nothing changes nothing and its worker is reused (making it per run marked
  // every run dirty: a fresh worker each time).
  try {
    FS.mkdir(`${FS.cwd() === '/' ? '' : FS.cwd()}/out`, 0o755);
  } catch {
    // there already
  }
  // A JSON array of strings is a Python list literal.
  py.runPython(`_skilldesk_lockdown(${JSON.stringify([...REMOVED_BUILTINS])})`);
  const entry = encoder.encode("__import__('_skilldesk_runner').run_job()\0");
  runnerEntry = Module._malloc(entry.length);
  Module.HEAPU8.set(entry, runnerEntry);
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
  hardenIntrinsics(globalThis);
  gate.closed = true;
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
let maxRequest = hostData.length;

function hostCall(requestBytes) {
  AtomicsRef.store(hostState, 0, 0);
  port.postMessage({ type: 'host', request: decoder.decode(requestBytes) });
  for (;;) {
    // Answered only when the state says so: a wake-up alone may be the previous answer's
    // notify, which the supervisor issues after storing the state; by then this worker may have
    // read that answer and made the next call (a stale wake-up returned the old reply while the
    // new call was still pending).
    AtomicsRef.wait(hostState, 0, 0, 50);
    if (AtomicsRef.load(hostState, 0) !== 0) break;
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
      if (s.response !== null || s.size + length > maxRequest)
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

/**
 * `/dev/skilldesk-job`: the runner reads the job (code and recursion limit, JSON) from it and writes
 * its report (JSON) to it. A run may write there too; it can only misreport its own outcome, which
 * its code decides anyway. Reports are capped like host requests.
 */
function installJobDevice() {
  const FS = py.FS;
  const dev = FS.makedev(64, 1);
  FS.registerDevice(dev, {
    open(stream) {
      stream.skilldeskJob = { pos: 0, parts: [], size: 0 };
    },
    close(stream) {
      const s = stream.skilldeskJob;
      if (!s || s.parts.length === 0) return;
      const report = new Uint8Array(s.size);
      let at = 0;
      for (const p of s.parts) {
        report.set(p, at);
        at += p.length;
      }
      job.report = report;
    },
    read(stream, buffer, offset, length) {
      const s = stream.skilldeskJob;
      const n = Math.min(length, job.input.length - s.pos);
      if (n <= 0) return 0;
      buffer.set(job.input.subarray(s.pos, s.pos + n), offset);
      s.pos += n;
      return n;
    },
    write(stream, buffer, offset, length) {
      const s = stream.skilldeskJob;
      if (s.size + length > maxRequest) throw new FS.ErrnoError(22);
      s.parts.push(buffer.slice(offset, offset + length));
      s.size += length;
      return length;
    },
  });
  FS.mkdev('/dev/skilldesk-job', 0o666, dev);
}

function runJob({ code, limits, files }) {
  const started = now();
  out.cap = limits.output_bytes;
  memoryCapBytes = limits.memory_mb * 1024 * 1024;
  let outcome;
  let broke = false;
  job.input = encoder.encode(JSON.stringify({ code, recursion_limit: limits.recursion_limit }));
  job.report = null;
  let staging = null;
  if (Array.isArray(files)) {
    try {
      stageFiles(files);
    } catch (e) {
      staging = String(e?.errno !== undefined ? `errno ${e.errno}` : (e?.message ?? e)).slice(0, 500);
    }
  }
  if (pristine) armed = true;
  try {
    if (staging !== null) throw new Error(`the run's files could not be staged (${staging})`);
    const rc = Module._PyRun_SimpleString(runnerEntry);
    if (job.report === null) throw new Error(`the runner gave no report (${rc})`);
    outcome = JSON.parse(decoder.decode(job.report));
    if (!outcome || typeof outcome !== 'object') throw new Error('the runner gave a malformed report');
  } catch (e) {
    broke = true;
    // The runner catches every Python exception; landing here means the interpreter itself broke
    // (a wasm trap, a stack overflow, memory exhausted inside the runtime) or the gate stopped it.
    outcome = {
      ok: false,
      error: gate.denied
        ? {
            type: 'SandboxViolation',
            code: 'SANDBOX_FAILED',
            message: `The program tried to reach JavaScript (through the interpreter's "${gate.denied}" import), which the sandbox does not allow: pyodide.ffi, pyodide.code, asyncio's event loop, sockets and name lookups are unavailable here.`,
          }
        : {
            type: memoryCapHit ? 'MemoryError' : 'SandboxFault',
            message: String(e instanceof GateError ? e.message : (e?.message ?? e)).slice(0, 2000),
          },
    };
  }
  armed = false;
  const unstaged = unstageFiles();
  if (!outcome.ok && outcome.error?.type === 'MemoryError') memoryCapHit = true;
  // The result goes first: whether this worker can be restored is decided after it, off the run's
  // critical path (the JavaScript side's fingerprint alone is most of a millisecond). Nothing of
  // the job runs in between: this is one synchronous stretch of the worker's only thread.
  port.postMessage({
    type: 'done',
    outcome,
    stdout: out.stdout.join(''),
    stderr: out.stderr.join(''),
    truncated: out.truncated,
    memoryCapHit,
    runMs: now() - started,
  });
  // Whether this worker can be restored for another job; the supervisor decides (it also knows
  // about deadlines and protocol breaks, and ends a worker it will not reuse whatever this says),
  // the worker only says what it saw: `ready` once restored, else `unrestorable`.
  const unrestorable = pristine ? (unstaged ?? restoreBlocker(broke)) : 'reuse is off';
  if (unrestorable === null) {
    const t0 = now();
    restore();
    port.postMessage({ type: 'ready', resetMs: now() - t0 });
    // After the first job only (a no-op later); a job sent meanwhile waits in the port's queue.
    compactPristine();
  } else port.postMessage({ type: 'unrestorable', reason: String(unrestorable).slice(0, 200) });
}

// --- A run's files ---------------------------------------------------------------------------------
// A run may come with files (a skill's folder, its inputs, wheels): the supervisor hands their bytes
// over as transferred buffers, never inside the program, so a 100 MB input is not a 133 MB base64
// string in Python source. Each of JOB_FOLDERS gets a fresh in-memory file system mounted for the
// run, the files are written into it from here (read-only, mtime GIVEN_MTIME_MS so the runner can
// tell them from what the run wrote without reading them), and after the run the mounts are
// dropped whole. Changes inside those mounts therefore need no restore and do not mark the worker
// dirty; a change anywhere else still does (see "Reuse").

/** The folders a run with files gets fresh (they exist, empty, in the pristine file system). */
const JOB_FOLDERS = ['/skill', '/packages', '/tmp'];
/** The modification time of every given file (1 s after the epoch): anything newer was written by the run. */
const GIVEN_MTIME_MS = 1000;
/** The mounts of the current run (empty between runs). */
const jobMounts = new Set();

/** Whether `path` (absolute, normalised) lies inside one of the job folders. */
function inJobFolder(path) {
  return JOB_FOLDERS.some((root) => path.startsWith(`${root}/`));
}

function stageFiles(files) {
  for (const root of JOB_FOLDERS) {
    // FS.mount returns the new file system's root node; its `mount` is what nodes inside point to.
    jobMounts.add(FS.mount(FS.filesystems.MEMFS, {}, root).mount);
  }
  const dirs = new Set();
  for (const f of files) {
    const path = typeof f?.path === 'string' ? f.path : '';
    if (!inJobFolder(path) || path.split('/').some((s, i) => i > 0 && (s === '' || s === '.' || s === '..')))
      throw new Error(`"${String(path).slice(0, 200)}" is not a path inside the run's folders`);
    const parts = path.split('/');
    for (let i = 2; i < parts.length - 1; i++) {
      const dir = parts.slice(0, i + 1).join('/');
      if (dirs.has(dir)) continue;
      dirs.add(dir);
      try {
        FS.mkdir(dir, 0o755);
      } catch (e) {
        if (e?.errno !== 20 /* EEXIST */) throw e;
      }
    }
    if (f.dir === true) continue;
    const bytes = f.bytes instanceof ArrayBuffer ? new Uint8Array(f.bytes) : new Uint8Array(0);
    // canOwn: the file keeps the transferred buffer itself (no copy of a large input).
    FS.writeFile(path, bytes, { canOwn: true });
    FS.utime(path, GIVEN_MTIME_MS, GIVEN_MTIME_MS);
    FS.chmod(path, f.writable === true ? 0o644 : 0o444);
  }
}

/**
 * Drop the run's mounts (and go back to the pristine working folder if the run sat in one).
 * Returns why the worker cannot be reused, or null.
 */
function unstageFiles() {
  if (jobMounts.size === 0) return null;
  try {
    if (pristine && inJobFolder(`${FS.cwd()}/`)) FS.chdir(pristine.cwd);
    for (const root of JOB_FOLDERS) {
      if (FS.isMountpoint(FS.lookupPath(root, { follow_mount: false }).node)) FS.unmount(root);
    }
    jobMounts.clear();
    return null;
  } catch (e) {
    jobMounts.clear();
    return `the run's folders could not be dropped (${String(e?.message ?? e).slice(0, 200)})`;
  }
}

// --- Reuse -----------------------------------------------------------------------------------------
// After lock-down and the warm-up job, the worker copies everything the interpreter's state lives
// in and, after each job, writes it back:
// - the WebAssembly linear memory: CPython's heap, its modules, sys.modules, builtins, globals,
//   the recursion limit, signal and time state, os.environ, the frame stack, the allocator's
//   bookkeeping, and the hiwire table's slot bookkeeping; the copy keeps only the pages that hold
//   data (about half: sparse.mjs), everything else is zeroed on restore, memory grown during the
//   job included (a larger job may `calloc` it later); a worker that grew more than RETIRE_GROWTH
//   ends;
// - the stack pointer (a wasm global; it must be back at its base after a job that returned);
// - the standard streams' flags.
// Everything else the interpreter could change lives in JavaScript, which Python reaches only
// through the module's imports, all behind the gate (gate.mjs): JS objects, Emscripten's libraries
// that keep state (resolver, dlopen, protocol and service databases, sockets) and inline JS are
// refused outright, and a run that used a timer ends its worker. What stays callable is the
// in-memory file system: every call that changes it (writes to files, creating, renaming, removing,
// chmod, chdir, mmap, dup, pipes, tty settings) marks the worker dirty, and a dirty worker is not
// reused; streams a job left open are likewise a reason to end it. As a last check the worker
// compares a fingerprint of its JavaScript side (globals, the Module's and FS's keys, streams, the
// function and reference tables) with the pristine one: any difference ends it. Anything the job
// broke (a wasm trap, the memory cap, the interrupt, the gate) ends the worker too, and the
// supervisor bounds the runs per worker and the process's memory.
const RETIRE_GROWTH = 64 * 1024 * 1024;
let pristine = null;
let armed = false;
let dirty = null;

const TTY_READ_IOCTLS = new Set([0x5401, 0x5413, 0x540f, 0x541b]);

/** The length of the hiwire table of JS references (the first index that is out of range). */
function hiwireLength() {
  let n = 0;
  for (; ; n++) {
    try {
      Module.__hiwire_get(n);
    } catch {
      return n;
    }
  }
}

/**
 * A summary of the worker's JavaScript-side state that no clean run changes (the reference
 * table's occupancy is compared slot by slot in reachedJs).
 */
function jsFingerprint() {
  return JSON.stringify([
    Reflect.ownKeys(globalThis).map(String),
    Object.keys(Module).length,
    Object.keys(FS).length,
    FS.streams.length,
    Module.wasmTable?.length ?? null,
    Object.keys(FS.root?.contents ?? {}).length,
    // A run's mounts are dropped after it: any mount left is state the restore does not cover.
    FS.root?.mount?.mounts?.length ?? null,
    // Emscripten's libraries that keep state in JavaScript (refused by the gate; checked anyway).
    sizeOf(Module.DNS?.address_map?.addrs),
    sizeOf(Module.DNS?.address_map?.names),
    sizeOf(Module.LDSO?.loadedLibsByName),
    sizeOf(Module.LDSO?.loadedLibsByHandle),
    sizeOf(Module.Protocols?.map),
    Module.Protocols?.list?.length ?? null,
    sizeOf(Module.preloadedWasm),
    sizeOf(Module.ENV),
  ]);
}

/** How many own keys an object has (null when there is none). */
function sizeOf(o) {
  return o && typeof o === 'object' ? Object.keys(o).length : null;
}

function capturePristine() {
  const memory = new Uint8Array(Module.HEAP8.buffer);
  const hiwire = [];
  for (let i = 0; ; i++) {
    try {
      hiwire.push(Module.__hiwire_get(i));
    } catch {
      break;
    }
  }
  const streams = FS.streams.slice();
  pristine = {
    // A plain copy first (a memcpy): the first job need not wait for the page scan, which
    // compactPristine does once that job's result is out.
    memory: copyInto(spareBuffer, memory),
    stack: Module.stackSave(),
    hiwire,
    hiwireSlots: hiwire.map((_, i) => Module.__hiwire_slot_info(i)),
    streams,
    streamFlags: streams.map((s) => (s ? { flags: s.flags, position: s.position } : null)),
    cwd: FS.cwd(),
    fingerprint: '',
  };
  const mark = (why) => {
    if (armed) dirty ??= why;
  };
  // Inside a run's own mounts a change needs no restore: they are dropped whole after the run.
  const nodeInJob = (node) => jobMounts.size > 0 && jobMounts.has(node?.mount);
  const pathInJob = (path, parent) => {
    if (jobMounts.size === 0 || typeof path !== 'string') return false;
    try {
      const { node } = FS.lookupPath(path, { parent, follow: false });
      // A mount's root node belongs to the parent mount's tree as a mount point: its own mount is the job's.
      return nodeInJob(node) || jobMounts.has(node?.mounted?.mount);
    } catch {
      return false;
    }
  };
  const targetInJob = {
    mknod: (a) => pathInJob(a[0], true),
    mkdir: (a) => pathInJob(a[0], true),
    symlink: (a) => pathInJob(a[1], true),
    rename: (a) => pathInJob(a[0], false) && pathInJob(a[1], true),
    rmdir: (a) => pathInJob(a[0], false),
    unlink: (a) => pathInJob(a[0], false),
    chmod: (a) => (typeof a[0] === 'string' ? pathInJob(a[0], false) : nodeInJob(a[0])),
    lchmod: (a) => pathInJob(a[0], false),
    fchmod: (a) => nodeInJob(FS.getStream?.(a[0])?.node),
    truncate: (a) => (typeof a[0] === 'string' ? pathInJob(a[0], false) : nodeInJob(a[0])),
    ftruncate: (a) => nodeInJob(FS.getStream?.(a[0])?.node),
    utime: (a) => pathInJob(a[0], false),
    allocate: (a) => nodeInJob(a[0]?.node),
    chdir: (a) => pathInJob(a[0], false),
    mmap: (a) => nodeInJob(a[0]?.node),
    msync: (a) => nodeInJob(a[0]?.node),
  };
  for (const name of [
    'mknod',
    'mkdir',
    'symlink',
    'rename',
    'rmdir',
    'unlink',
    'chmod',
    'fchmod',
    'lchmod',
    'chown',
    'fchown',
    'lchown',
    'truncate',
    'ftruncate',
    'utime',
    'allocate',
    'mount',
    'unmount',
    'chdir',
    'mmap',
    'msync',
    'dupStream',
    'createPipe',
  ]) {
    const original = FS[name];
    if (typeof original !== 'function') continue;
    const inJob = targetInJob[name];
    FS[name] = function hooked(...args) {
      if (!(armed && inJob?.(args))) mark(`the file system changed (${name})`);
      return original.apply(this, args);
    };
  }
  const write = FS.write;
  FS.write = function hookedWrite(stream, ...rest) {
    // Writes to character devices (stdout, stderr, /dev/skilldesk) change no file.
    if (!(stream?.node && (FS.isChrdev(stream.node.mode) || nodeInJob(stream.node))))
      mark('a file was written');
    return write.call(this, stream, ...rest);
  };
  const ioctl = FS.ioctl;
  FS.ioctl = function hookedIoctl(stream, cmd, ...rest) {
    if (!TTY_READ_IOCTLS.has(cmd)) mark('terminal settings changed');
    return ioctl.call(this, stream, cmd, ...rest);
  };
  // Taken once the hooks are in: they are part of the pristine state.
  pristine.fingerprint = jsFingerprint();
}

/** Why this worker cannot be restored after the job that just ended (null: it can). */
function restoreBlocker(broke) {
  if (broke) return 'the interpreter broke';
  if (gate.denied) return 'Python tried to reach JavaScript';
  if (gate.tainted) return `the run left JavaScript state (${gate.tainted})`;
  if (memoryCapHit) return 'the memory cap was hit';
  if (dirty) return dirty;
  if (reachedJs()) return 'Python reached a JavaScript object';
  if (Module.stackSave() !== pristine.stack) return 'the stack is not at its base';
  if (Module.HEAP8.buffer.byteLength - pristine.memory.byteLength > RETIRE_GROWTH) {
    return 'memory grew too much';
  }
  if (FS.cwd() !== pristine.cwd) return 'the working directory changed';
  for (let fd = 0; fd < FS.streams.length; fd++) {
    if ((FS.streams[fd] ?? null) !== (pristine.streams[fd] ?? null)) return 'a stream was left open';
  }
  if (jsFingerprint() !== pristine.fingerprint) return 'the JavaScript side changed';
  return null;
}

/**
 * Whether the job made the reference table change: every JS reference takes a hiwire slot, whose
 * bookkeeping (a version counted up on each reuse) stays changed after it is freed, and a slot past
 * the pristine ones keeps its last object. The gate makes this unreachable from Python; the check
 * stays as the layer behind it.
 */
function reachedJs() {
  const n = pristine.hiwire.length;
  for (let i = 0; i < n; i++) {
    if (Module.__hiwire_slot_info(i) !== pristine.hiwireSlots[i]) return true;
  }
  try {
    Module.__hiwire_get(n);
    return true;
  } catch {
    return false;
  }
}

/** A copy of `bytes` in `buffer` when it is large enough (the buffer is used up), else a new one. */
function copyInto(buffer, bytes) {
  spareBuffer = null;
  if (!(buffer instanceof ArrayBuffer) || buffer.byteLength < bytes.length) return bytes.slice();
  const copy = new Uint8Array(buffer, 0, bytes.length);
  copy.set(bytes);
  return copy;
}

/** The pristine memory without its zero pages (half the memory held; restores write the same bytes). */
function compactPristine() {
  if (pristine && pristine.memory instanceof Uint8Array) pristine.memory = sparseCopy(pristine.memory);
}

function restore() {
  const heap = new Uint8Array(Module.HEAP8.buffer);
  if (pristine.memory instanceof Uint8Array) {
    heap.set(pristine.memory);
    heap.fill(0, pristine.memory.length);
  } else writeSparse(heap, pristine.memory);
  const n = hiwireLength();
  for (let i = 0; i < Math.max(n, pristine.hiwire.length); i++) {
    const v = pristine.hiwire[i] ?? null;
    if (i >= n || Module.__hiwire_get(i) !== v) Module.__hiwire_set(i, v);
  }
  pristine.streams.forEach((s, fd) => {
    if (s) Object.assign(s, pristine.streamFlags[fd]);
  });
  out.stdout.length = 0;
  out.stderr.length = 0;
  out.bytes.stdout = 0;
  out.bytes.stderr = 0;
  out.truncated.stdout = false;
  out.truncated.stderr = false;
  memoryCapBytes = (bootMemoryMb ?? 1024) * 1024 * 1024;
  dirty = null;
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

/** Pure standard-library modules imported into the snapshot (none reaches JavaScript or keeps per-run state). */
const PRELOADED_MODULES = [
  'argparse',
  'base64',
  'collections',
  'copy',
  'csv',
  'dataclasses',
  'datetime',
  'decimal',
  'enum',
  'fnmatch',
  'functools',
  'glob',
  'gzip',
  'hashlib',
  'io',
  'itertools',
  'json',
  'logging',
  'math',
  'os',
  'pathlib',
  're',
  'shutil',
  'statistics',
  'string',
  'struct',
  'tempfile',
  'textwrap',
  'traceback',
  'typing',
  'xml.etree.ElementTree',
  'zipfile',
  'zlib',
];

// --- main ------------------------------------------------------------------------------------------
const { loadPyodide } = await import(pyodideUrl);
// Parsing Pyodide's 1.2 MB of JavaScript needs no snapshot: the first worker does it while the
// process still receives the snapshot (loadPyodide then finds the module in the cache).
await import(new URL('pyodide.asm.mjs', pyodideUrl).href);
if (!makeSnapshot) {
  const boot = await new Promise((resolve) => port.once('message', resolve));
  if (boot?.type !== 'boot') throw new Error('a worker expects its boot message first');
  snapshot = boot.snapshot;
  wasmModule = boot.wasmModule;
  ({ bootMemoryMb, reuse, maxRequestBytes } = boot.settings ?? {});
}
memoryCapBytes = (bootMemoryMb ?? 1024) * 1024 * 1024;
maxRequest = Math.min(hostData.length, maxRequestBytes ?? hostData.length);
instantiateThroughGate();
const loadOptions = {
  indexURL,
  env: { HOME: '/home/pyodide' },
  jsglobals: Object.create(null),
  stdout: () => {},
  stderr: () => {},
  stdin: () => null,
  checkAPIVersion: true,
};
// The process keeps the snapshot sparse (sparse.mjs): the whole bytes exist only while Pyodide loads.
/** The buffer the snapshot was expanded into: this worker's own, and free once Pyodide has loaded. */
let expandedBuffer = null;
if (isSparseCopy(snapshot)) {
  snapshot = expandSparse(snapshot);
  expandedBuffer = snapshot.buffer;
}
if (snapshot) loadOptions._loadSnapshot = snapshot;
if (makeSnapshot) loadOptions._makeSnapshot = true;
py = await loadPyodide(loadOptions);
// The snapshot is in linear memory now: drop the worker's copy of it (30 MB or more per worker).
loadOptions._loadSnapshot = undefined;
workerData.snapshot = null;
snapshot = null;
// Pyodide copied the snapshot into linear memory and keeps no view of it: the pristine copy
// (reuse) is written into its pages, already touched, instead of a new 30 MB allocation.
let spareBuffer = reuse ? expandedBuffer : null;
expandedBuffer = null;
try {
  if (py._module?.API?.config) py._module.API.config._loadSnapshot = undefined;
} catch {
  // not there in this Pyodide: the copy stays until the worker ends
}

if (makeSnapshot) {
  removeBuiltinModules(py._module, REMOVED_BUILTINS);
  py.runPython(prelude, { filename: '<skilldesk-prelude>' });
  // Standard modules scripts commonly start with, imported once into the snapshot: every run then
  // finds them in sys.modules as the snapshot left them (the restore puts them back after each run)
  // instead of unzipping and executing them again — `import argparse` alone took 200-450 ms a run.
  py.runPython(`import ${PRELOADED_MODULES.join(', ')}`, { filename: '<skilldesk-preload>' });
  const bytes = py.makeMemorySnapshot();
  port.postMessage({ type: 'snapshot', bytes }, [bytes.buffer]);
  // The snapshot maker never runs a job.
} else {
  lockDown();
  // Exercise the run path once (through the closed gate, as every job) so the first job does not
  // pay for lazy compilation and caches.
  job.input = encoder.encode(JSON.stringify({ code: 'import json\njson.dumps([1])', recursion_limit: 1000 }));
  job.report = null;
  Module._PyRun_SimpleString(runnerEntry);
  if (gate.denied || job.report === null) {
    throw new Error(`the sandbox's run path does not work (${gate.denied ?? 'no report'})`);
  }
  job.report = null;
  out.stdout.length = 0;
  out.stderr.length = 0;
  out.bytes.stdout = 0;
  out.bytes.stderr = 0;
  // `ready` goes out before the pristine copy is made (20-100 ms of copying, measured): the job the
  // app sends meanwhile waits in this thread's message queue until the copy is done, so the round
  // trip to the app overlaps it. The supervisor sends a job only to a ready worker; a
  // restored worker says `ready` again.
  port.postMessage({ type: 'ready' });
  if (reuse) capturePristine();
  port.on('message', (msg) => {
    if (msg?.type === 'run') runJob(msg);
  });
}
