// The sandbox process: started by the pool with an empty environment, the permission model
// (read-only access to this folder and node_modules/pyodide, worker threads allowed, nothing else),
// guard.mjs in every thread and, where the OS allows, no network (see spawn.ts). It keeps pre-warmed
// Pyodide workers and runs one job at a time. With `reuse` off each job gets its own worker,
// terminated afterwards; with it on, a worker whose job ended cleanly restores its pristine
// interpreter state (worker.mjs, "Reuse") and serves again, up to `maxReuses` jobs, and any job
// that hit a limit, broke the protocol or left state the restore does not cover ends the worker.
//
// It speaks to the app through length-prefixed frames on stdin/stdout (frames.mjs) and to nothing
// else: lifecycle messages handled here, and calls (the app's `run`, this process's `host` calls)
// carried by the app's RPC peer, with the protocol's schemas, from peer.bundle.mjs (generated from
// electron/sandbox/protocol.ts; every message from the app is checked against them). Workers are
// untrusted: their messages are checked by type, size and state, their host requests are size- and
// depth-checked before parsing, and their stdout/stderr never reach the app's pipe. Deadlines and memory watchdogs run on this thread, which only ever does bounded work.
//
// Plain JavaScript: this process has no TypeScript loader (see worker.mjs).

import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { encodeFrames, FrameReader, jsonDepth } from './frames.mjs';
import { installModuleHooks, networkSelfCheck } from './guard.mjs';
import { sparseCopy, unpackSparse } from './sparse.mjs';
import { capMemory } from './wasm-memory.mjs';

const HERE = new URL('./', import.meta.url);
const WORKER_URL = new URL('./worker.mjs', HERE);
const PRELUDE = readFileSync(new URL('./prelude.py', HERE), 'utf8');
const HOST_BUFFER_BYTES = 8 * 1024 * 1024 + 16;
const HOST_HEADER = 16;
/** Largest host request (other than submit) accepted from Python, checked before parsing. */
const MAX_REQUEST_BYTES = 1024 * 1024;
/** Deepest JSON nesting accepted in a host request. */
const MAX_DEPTH = 64;
/** Bytes of checkpoints one run may send in all. */
const CHECKPOINT_BUDGET = 1024 * 1024;
const MAX_CHECKPOINTS = 100;
/** Largest message the app may send (a job's code, a host reply). */
const MAX_IN_JSON = 64 * 1024 * 1024;
/** How long a reused worker may take to restore its state before it is ended. */
const RESET_MS = 2000;
/**
 * Pyodide's folder as a `file:` URL ending in `/`, from the command line (`--pyodide-url=`): with it
 * the first worker and the wasm compile start before `init`, while this thread installs its module
 * hooks and waits for the app. Null without it (they start at `init`).
 */
const EARLY_PYODIDE_URL = (() => {
  const a = process.argv.find((x) => x.startsWith('--pyodide-url='))?.slice('--pyodide-url='.length);
  try {
    return a && new URL(a).protocol === 'file:' && a.endsWith('/') ? a : null;
  } catch {
    return null;
  }
})();

// --- the channel to the app -------------------------------------------------------------------------

function send(msg, binary) {
  for (const chunk of encodeFrames(msg, binary)) process.stdout.write(chunk);
}

let expectSnapshotBytes = false;
/** @type {any} */ let RUN_FILE_CHUNK;

// --- a run's files ----------------------------------------------------------------------------------
// A `run` may list files; their bytes follow its frame as binary frames (file after file, each in
// chunks of at most RUN_FILE_CHUNK), and no other message may come in between. Each file is
// gathered into one buffer of its declared size and handed to the worker as a transfer.
/** The run whose files are arriving: {id, files, buffers, index, at, done}; null otherwise. */
let receiving = null;
/** Files of runs that arrived whole, by run id, until the run takes them. */
const received = new Map();

function startReceiving(id, files) {
  const state = { id, files, buffers: files.map((f) => new Uint8Array(f.size)), index: 0, at: 0 };
  skipEmpty(state);
  if (state.index >= files.length) received.set(id, state.buffers);
  else receiving = state;
}

function skipEmpty(state) {
  while (state.index < state.files.length && state.at >= state.files[state.index].size) {
    state.index++;
    state.at = 0;
  }
}

function nextChunkSize(state) {
  return Math.min(RUN_FILE_CHUNK, state.files[state.index].size - state.at);
}

function receiveChunk(bytes) {
  const state = receiving;
  if (bytes.length !== nextChunkSize(state)) return die('a file chunk of the wrong size');
  state.buffers[state.index].set(bytes, state.at);
  state.at += bytes.length;
  skipEmpty(state);
  if (state.index >= state.files.length) {
    receiving = null;
    if (!state.dropped) received.set(state.id, state.buffers);
  }
}
// The protocol's schemas and the RPC peer (peer.bundle.mjs, 300 KB with zod) load once the first
// worker has started (see "start"), not before it as a static import: parsing and evaluating them
// took 57-124 ms on the loaded 2-core machine, and the worker's start-up now overlaps them.
// Nothing from the app is read before they are here.
/** @type {any} */ let AppError;
/** @type {any} */ let AppMessageSchema;
/** @type {any} */ let wireToRpc;
/** @type {any} */ let reader;
/** @type {any} */ let peer;

async function loadProtocol() {
  const bundle = await import('./peer.bundle.mjs');
  const { createPeer, MAX_SNAPSHOT_BYTES, rpcToWire, SANDBOX_ID_PREFIX } = bundle;
  ({ AppError, AppMessageSchema, wireToRpc, RUN_FILE_CHUNK } = bundle);
  reader = new FrameReader(
    {
      maxJson: MAX_IN_JSON,
      maxBinary: () => (receiving ? nextChunkSize(receiving) : expectSnapshotBytes ? MAX_SNAPSHOT_BYTES : 0),
    },
    {
      onJson: (m) => {
        if (receiving) return die(`a message arrived before the files of run ${receiving.id}`);
        handleParent(m);
      },
      onBinary: (bytes) => {
        if (receiving) return receiveChunk(bytes);
        if (!expectSnapshotBytes) return die('unexpected binary frame');
        expectSnapshotBytes = false;
        if (config.snapshot_sparse) {
          snapshot = unpackSparse(bytes);
          if (!snapshot) return die('the snapshot is not a well-formed sparse copy');
        } else snapshot = bytes;
        start();
      },
      onViolation: (why) => die(`bad frame from the app: ${why}`),
    },
  );

  // Calls cross on the peer: the app's `run` is answered when the job finishes (`result`), and a job's
  // host calls are calls back to the app made while that run is open (`host` / `host-reply`).
  peer = createPeer(
    { send: (m) => send(rpcToWire(m, 'process')), onMessage: () => {} },
    {
      idPrefix: SANDBOX_ID_PREFIX.process,
      handle: (params, call) =>
        call.method === 'component' ? runComponent(params, call) : runJob(params, call),
      sendDetails: false,
      answerProtocolErrors: false,
      onProtocolError: (why) => die(`bad message from the app: ${why}`),
      onHandlerBug: (e) => die(`sandbox process error: ${e?.message ?? e}`, 7),
    },
  );
}

function die(message, code = 6) {
  try {
    send({ type: 'fatal', message: String(message).slice(0, 2000) });
  } catch {
    // the pipe is gone
  }
  setTimeout(() => process.exit(code), 50);
}

// A bug here must not leave a half-working sandbox: report and exit; the app starts a new one.
process.on('uncaughtException', (e) => die(`sandbox process error: ${e?.message ?? e}`, 7));
process.on('unhandledRejection', (e) => die(`sandbox process error: ${e?.message ?? e}`, 7));

// --- fail closed if the outer boundary is not in place ---------------------------------------------
function lockdownProblems() {
  const problems = [];
  const perm = process.permission;
  if (!perm || typeof perm.has !== 'function') problems.push('the permission model is not active');
  else {
    if (perm.has('fs.write')) problems.push('file writes are allowed');
    if (perm.has('child')) problems.push('child processes are allowed');
    if (perm.has('fs.read', '/etc/passwd') || perm.has('fs.read', process.execPath)) {
      problems.push('file reads are not restricted');
    }
  }
  // bubblewrap always sets PWD to the working directory it chose ("/"): that one is harmless.
  const envKeys = Object.keys(process.env).filter(
    (k) =>
      !/^(ELECTRON_RUN_AS_NODE|SYSTEMROOT|NODE_OPTIONS)$/.test(k) &&
      !(k === 'MALLOC_ARENA_MAX' && process.env.MALLOC_ARENA_MAX === '2') &&
      !(k === 'PWD' && process.env.PWD === '/'),
  );
  if (envKeys.length > 0) problems.push(`the environment is not empty (${envKeys.slice(0, 5).join(', ')})`);
  return problems;
}

async function guardProblems() {
  try {
    await import('node:' + 'net');
    return ['node:net can be loaded (the module guard is not active)'];
  } catch {
    return [];
  }
}

// --- state ------------------------------------------------------------------------------------------
let config;
let snapshot;
let started = false;
const ready = []; // booted workers waiting for a job
let booting = 0;
let bootFailures = 0;
const waiting = []; // jobs waiting for a worker
const actives = new Set(); // running jobs (several only when the app starts one beside a long run)
/** Jobs the app may have running or waiting at once (the pool sends a second and third beside a long run). */
const MAX_ACTIVE = 3;

function handleParent(raw) {
  const parsed = AppMessageSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return die(`malformed message from the app (${issue?.path.join('.')}: ${issue?.message})`);
  }
  const msg = parsed.data;
  switch (msg.type) {
    case 'init':
      if (config) return die('init sent twice');
      config = msg;
      // The first worker started early loaded Pyodide from the command line's folder with the
      // default heap: when the app asks for another, it goes and a new one boots.
      if (early && (msg.pyodideUrl !== EARLY_PYODIDE_URL || msg.workerHeapMb !== undefined)) {
        early.retire();
        compiling = null;
      }
      early = null;
      // Compile while the snapshot bytes are still arriving on the pipe (if not started already).
      compiling ??= compileWasm(config.pyodideUrl);
      if (msg.snapshot_bytes) {
        expectSnapshotBytes = true;
        // The first worker starts now and loads Pyodide's JavaScript while the snapshot arrives;
        // it gets the snapshot and the compiled module once both are here.
        fill();
      } else start();
      break;
    case 'shutdown':
      for (const w of ready) w.worker.terminate();
      process.exit(0);
      break;
    case 'cancel':
      if (!config || expectSnapshotBytes) return die('cancel before init');
      cancelJob(msg.id);
      break;
    default:
      // `run` and `host-reply`: calls, only once the process is configured and has its snapshot.
      if (!config || expectSnapshotBytes) return die(`${msg.type} before init`);
      if (msg.type === 'run' && msg.files?.length) startReceiving(msg.id, msg.files);
      peer.receive(wireToRpc(msg));
  }
}

let wasmModule;
/** Resolves once the snapshot and the compiled module are here: workers can boot from them. */
let markBootable;
const bootable = new Promise((resolve) => {
  markBootable = resolve;
});

let compiling = null;

async function compileWasm(pyodideUrl) {
  try {
    return await WebAssembly.compile(readFileSync(new URL('pyodide.asm.wasm', pyodideUrl)));
  } catch {
    return undefined; // each worker compiles its own: slower, still correct
  }
}

async function start() {
  if (started) return;
  started = true;
  wasmModule = await (compiling ?? compileWasm(config.pyodideUrl));
  if (!snapshot) {
    const t0 = performance.now();
    try {
      snapshot = await makeSnapshot();
    } catch (e) {
      send({ type: 'fatal', message: `could not start Pyodide: ${e?.message ?? e}` });
      setTimeout(() => process.exit(4), 50);
      return;
    }
    send({ type: 'snapshot', ms: performance.now() - t0, size: snapshot.length }, snapshot);
  }
  // Kept (and handed to each new worker) without its zero pages: half the memory. The
  // app sends its cached snapshot in that form already.
  if (snapshot instanceof Uint8Array) snapshot = sparseCopy(snapshot);
  markBootable();
  fill();
}

/** Where Pyodide is and the worker heap, as `init` says. */
function configuredPlace() {
  return { url: config.pyodideUrl, dir: config.pyodideDir, heapMb: config.workerHeapMb };
}

/** What a worker learns from the configuration: in its boot message (the snapshot maker: its workerData). */
function workerSettings() {
  return {
    reuse: config.reuse === true,
    bootMemoryMb: config.bootMemoryMb ?? 512,
    maxRequestBytes: MAX_REQUEST_BYTES + 16 * 1024 + (config.maxResultBytes ?? 8 * 1024 * 1024),
  };
}

function workerOptions(extra, place = configuredPlace()) {
  return {
    workerData: {
      pyodideUrl: new URL('pyodide.mjs', place.url).href,
      indexURL: place.dir,
      prelude: PRELUDE,
      ...extra,
    },
    // A worker's console and process.stdout must never reach the app's pipe: keep them here.
    stdout: true,
    stderr: true,
    resourceLimits: { maxOldGenerationSizeMb: place.heapMb ?? 256, maxYoungGenerationSizeMb: 32 },
  };
}

function drain(worker) {
  worker.stdout?.resume();
  worker.stderr?.resume();
}

function makeSnapshot() {
  return new Promise((resolve, reject) => {
    const w = new Worker(
      WORKER_URL,
      workerOptions({
        ...workerSettings(),
        bootMemoryMb: undefined,
        wasmModule,
        makeSnapshot: true,
        hostBuffer: new SharedArrayBuffer(32),
        interruptBuffer: new SharedArrayBuffer(4),
      }),
    );
    drain(w);
    w.on('message', (m) => {
      if (m?.type === 'snapshot' && m.bytes instanceof Uint8Array) {
        resolve(m.bytes);
        w.terminate();
      }
    });
    w.on('error', reject);
    w.on('exit', () => reject(new Error('snapshot worker exited')));
  });
}

/** Numbers the workers of this process (reported with each result). */
let workerSeq = 0;

/** Reused workers restoring their state (they count as spares: they are ready in milliseconds). */
let resetting = 0;
/** A job younger than this most likely gives its (reused) worker back before a new one could boot. */
const SOON_BACK_MS = 400;

function fill() {
  if (!config) return; // the first worker is booting already; the rest come with `init`
  const want = spareTarget() + waiting.length;
  // A reusing worker whose job started moments ago will most likely be back in milliseconds:
  // booting another beside it would cost a worker's memory and CPU for nothing. One whose job runs
  // longer gets a spare behind it (assign schedules this check), for the run the app may start
  // beside it.
  let running = 0;
  if (config.reuse) {
    const t = performance.now();
    for (const j of actives) if (!j.done && t - j.startedAt < SOON_BACK_MS) running++;
  }
  while (ready.length + booting + resetting + running < want) boot();
}

/** Warm workers kept waiting when nothing is queued. */
function spareTarget() {
  return Math.max(1, Math.min(4, config.spares ?? 1));
}

/** A worker that is ready: it takes the oldest waiting job, waits as a spare, or ends if spares are full. */
function offer(entry, reused) {
  if (waiting.length > 0) return assign(waiting.shift(), entry);
  if (ready.length >= spareTarget()) {
    // Extra workers started for runs beside a long one are not kept idle (each holds its memory).
    // A restored worker stays first in line (the next run finds it warm and in order); the spare
    // booted while it ran gives way.
    const extra = reused ? ready.pop() : entry;
    extra.dead = true;
    extra.worker.terminate();
    if (!reused) return;
  }
  if (reused) ready.unshift(entry);
  else ready.push(entry);
}

function boot(place = configuredPlace()) {
  booting++;
  const t0 = performance.now();
  const hostBuffer = new SharedArrayBuffer(HOST_BUFFER_BYTES);
  const interruptBuffer = new SharedArrayBuffer(4);
  const worker = new Worker(WORKER_URL, workerOptions({ hostBuffer, interruptBuffer }, place));
  drain(worker);
  const entry = {
    id: ++workerSeq,
    worker,
    hostBuffer,
    interruptBuffer,
    bootMs: 0,
    dead: false,
    runs: 0,
    resetting: null,
    /** The most of the host buffer a reply of the current job has written (zeroed before the next). */
    replyBytes: 0,
  };
  bootable.then(() => {
    if (!entry.dead) worker.postMessage({ type: 'boot', snapshot, wasmModule, settings: workerSettings() });
  });
  let isReady = false;
  worker.on('message', (m) => {
    if (entry.dead) return;
    if (entry.resetting) {
      // `unrestorable`: the job left state the restore does not cover; the worker is ended (kill
      // stops a worker that is in no job's hands and boots its replacement).
      if (m?.type === 'unrestorable') return kill(entry, 'a worker could not restore its state');
      if (m?.type !== 'ready') return kill(entry, 'a worker spoke while restoring its state');
      clearTimeout(entry.resetting);
      entry.resetting = null;
      resetting--;
      const ms = typeof m.resetMs === 'number' && Number.isFinite(m.resetMs) ? Math.max(0, m.resetMs) : 0;
      entry.bootMs = ms;
      send({ type: 'worker-ready', ms, reused: true });
      offer(entry, true);
      return;
    }
    if (!isReady) {
      if (m?.type !== 'ready') return kill(entry, 'a worker spoke before it was ready');
      isReady = true;
      booting--;
      bootFailures = 0;
      entry.bootMs = performance.now() - t0;
      send({ type: 'worker-ready', ms: entry.bootMs });
      offer(entry, false);
    } else if (entry.job && !entry.job.done) onWorkerMessage(entry.job, m);
    else kill(entry, 'an idle worker sent a message');
  });
  const failed = (why) => {
    const wasDead = entry.dead;
    entry.dead = true;
    if (!isReady) {
      isReady = true;
      booting--;
      bootFailures++;
      if (bootFailures >= 3) {
        send({ type: 'fatal', message: `sandbox workers fail to start: ${why}`.slice(0, 2000) });
        setTimeout(() => process.exit(5), 50);
        return;
      }
      setTimeout(fill, 100 * bootFailures);
      return;
    }
    const i = ready.indexOf(entry);
    if (i >= 0) {
      ready.splice(i, 1);
      fill();
    }
    if (entry.resetting) {
      clearTimeout(entry.resetting);
      entry.resetting = null;
      resetting--;
      fill();
    }
    if (!wasDead && entry.job && !entry.job.done) finish(entry.job, { crashed: why });
  };
  entry.fail = failed;
  /** End a worker that is still starting, without counting it as a failure. */
  entry.retire = () => {
    if (entry.dead || isReady) return;
    entry.dead = true;
    isReady = true;
    booting--;
    worker.terminate();
  };
  worker.on('error', (e) => failed(String(e?.message ?? e).slice(0, 500)));
  worker.on('exit', (code) => {
    if (!entry.dead) failed(`worker exited with code ${code}`);
  });
  return entry;
}

/** A worker broke the protocol: it is treated as compromised and terminated. */
function kill(entry, why) {
  if (entry.job && !entry.job.done) {
    entry.job.limitHit ??= { code: 'SANDBOX_FAILED', type: 'SandboxFault', message: why };
    finish(entry.job, { killed: true });
  } else {
    entry.dead = true;
    entry.worker.terminate();
    const i = ready.indexOf(entry);
    if (i >= 0) ready.splice(i, 1);
    if (entry.resetting) {
      clearTimeout(entry.resetting);
      entry.resetting = null;
      resetting--;
    }
    fill();
  }
}

// --- jobs -------------------------------------------------------------------------------------------
/** Answer a `run` call (params checked by the protocol): resolves with the result when the job ends. */
function runJob(params, call) {
  if (actives.size + waiting.length >= MAX_ACTIVE) {
    received.delete(call.id);
    // Files still arriving are read and dropped (receiving stays set until they are all here).
    if (receiving?.id === call.id) receiving.dropped = true;
    throw new AppError('SANDBOX_FAILED', 'the sandbox is busy');
  }
  let resolve;
  const result = new Promise((r) => {
    resolve = r;
  });
  const job = {
    call,
    resolve,
    /** Aborted when the job ends: drops a host call still waiting for the app. */
    ended: new AbortController(),
    code: params.code,
    limits: params.limits,
    /** The run's files ({path, writable} with their bytes), or null when it has none. */
    files: params.files?.length ? { list: params.files, id: call.id } : null,
    queuedAt: performance.now(),
    submitted: false,
    submitValue: null,
    checkpoints: 0,
    checkpointBytes: 0,
    hostCalls: 0,
    limitHit: null,
    timers: [],
    done: false,
  };
  const entry = ready.shift();
  if (entry) assign(job, entry);
  else {
    waiting.push(job);
    fill();
  }
  return result;
}

/** What a cancelled run's result says when no limit ended it first. */
const CANCELLED_ERROR = Object.freeze({
  code: 'CANCELLED',
  type: 'Cancelled',
  message: 'the run was cancelled',
});

/**
 * Stop the open call `id` (the app's caller gave up on it). A job still waiting for a worker is
 * answered at once. A running Python job is interrupted like at its deadline (KeyboardInterrupt,
 * and host waits return), but, unlike a deadline, a job that then ends by itself may give its
 * worker back: the cancel is the caller's choice, not a sign the run broke anything, and the
 * worker's own restore checks still decide. A job that does not stop within its grace (a C-level
 * loop, code that catches the interrupt) ends its worker. A component cannot be interrupted: its
 * worker ends at once. A cancel for a call that is over is ignored (it crossed the result).
 */
function cancelJob(id) {
  const queued = waiting.findIndex((j) => j.call.id === id);
  if (queued >= 0) {
    const [job] = waiting.splice(queued, 1);
    job.done = true;
    if (job.files) received.delete(job.files.id);
    job.ended.abort();
    job.resolve({
      ok: false,
      submitted: false,
      result: null,
      stdout: '',
      stderr: '',
      truncated: { stdout: false, stderr: false },
      error: CANCELLED_ERROR,
      host_calls: 0,
      wait_ms: performance.now() - job.queuedAt,
      run_ms: 0,
      worker_boot_ms: 0,
      process_rss_mb: Math.round(process.memoryUsage.rss() / 1048576),
    });
    return;
  }
  for (const job of componentJobs) {
    if (job.call.id !== id || job.done) continue;
    job.cancelled = true;
    // Still compiling or waiting for its worker: runComponent answers CANCELLED when they are here.
    if (job.entry) finish(job, { killed: true });
    return;
  }
  for (const job of actives) {
    if (job.call.id !== id || job.done || job.cancelled) continue;
    job.cancelled = true;
    const entry = job.entry;
    Atomics.store(new Int32Array(entry.interruptBuffer), 0, 2);
    const hostState = new Int32Array(entry.hostBuffer, 0, 4);
    Atomics.store(hostState, 2, 1);
    Atomics.notify(hostState, 0);
    job.timers.push(setTimeout(() => finish(job, { killed: true }), job.limits.grace_ms));
    return;
  }
}

/**
 * JS-side buffers (strings, typed arrays) bypass the wasm cap: watch the whole process while `job`
 * runs, and end the job when it is over the memory cap.
 */
function watchProcessMemory(job) {
  const rssCap = (config.rssLimitMb ?? 1536) * 1024 * 1024;
  job.timers.push(
    setInterval(() => {
      if (process.memoryUsage.rss() > rssCap) {
        job.limitHit ??= {
          code: 'SANDBOX_LIMIT',
          type: 'MemoryLimit',
          message: 'the sandbox process used too much memory',
        };
        finish(job, { killed: true });
      }
    }, 25),
  );
}

function assign(job, entry) {
  actives.add(job);
  job.entry = entry;
  entry.job = job;
  entry.runs++;
  job.startedAt = performance.now();
  fill(); // warm the next one while this job runs
  // A job that runs on gets a spare behind it (see fill).
  job.timers.push(setTimeout(fill, SOON_BACK_MS + 10));
  const interrupt = new Int32Array(entry.interruptBuffer);
  const hostState = new Int32Array(entry.hostBuffer, 0, 4);
  // A reused worker's flags were clear when its last job ended cleanly; make sure of it.
  Atomics.store(interrupt, 0, 0);
  Atomics.store(hostState, 2, 0);
  // The last job's host replies leave the shared buffer before this job can run: a worker that
  // misread its state (the stale-wake-up bug the worker's wait now guards against) must find
  // nothing of another run there.
  if (entry.replyBytes) {
    new Uint8Array(entry.hostBuffer, HOST_HEADER).fill(0, 0, entry.replyBytes);
    entry.replyBytes = 0;
  }
  Atomics.store(hostState, 1, 0);
  job.timers.push(
    setTimeout(() => {
      job.limitHit ??= {
        code: 'SANDBOX_TIMEOUT',
        type: 'Timeout',
        message: `timed out after ${job.limits.timeout_ms} ms`,
      };
      // Python clears the interrupt flag when it raises KeyboardInterrupt; the deadline flag of
      // host waits is out of its reach.
      Atomics.store(interrupt, 0, 2);
      Atomics.store(hostState, 2, 1);
      Atomics.notify(hostState, 0);
      job.timers.push(setTimeout(() => finish(job, { killed: true }), job.limits.grace_ms));
    }, job.limits.timeout_ms),
  );
  watchProcessMemory(job);
  if (!job.files) {
    entry.worker.postMessage({ type: 'run', code: job.code, limits: job.limits });
    return;
  }
  // The bytes arrive right behind the run's frame: they are here by the time a worker is, except
  // for large files, which the run then waits for (its deadline is running).
  const send = () => {
    if (job.done) return;
    const buffers = received.get(job.files.id);
    received.delete(job.files.id);
    const files = job.files.list.map((f, i) => ({
      path: f.path,
      writable: f.writable === true,
      bytes: buffers[i].buffer,
    }));
    job.files = null;
    entry.worker.postMessage(
      { type: 'run', code: job.code, limits: job.limits, files },
      files.filter((f) => f.bytes.byteLength > 0).map((f) => f.bytes),
    );
  };
  if (received.has(job.files.id)) send();
  else {
    const wait = setInterval(() => {
      if (job.done) clearInterval(wait);
      else if (received.has(job.files.id)) {
        clearInterval(wait);
        send();
      }
    }, 5);
    job.timers.push(wait);
  }
}

function onWorkerMessage(job, m) {
  if (job.done) return;
  if (!m || typeof m !== 'object') return kill(job.entry, 'a worker sent a malformed message');
  if (m.type === 'host') handleHostRequest(job, m.request);
  else if (m.type === 'done') finish(job, { report: m });
  else kill(job.entry, 'a worker sent an unknown message');
}

function answerWorker(job, reply) {
  if (job.done) return;
  const state = new Int32Array(job.entry.hostBuffer, 0, 4);
  const data = new Uint8Array(job.entry.hostBuffer, HOST_HEADER);
  let bytes = new TextEncoder().encode(typeof reply === 'string' ? reply : JSON.stringify(reply));
  if (bytes.length > data.length) {
    bytes = new TextEncoder().encode(
      JSON.stringify({ ok: false, error: { code: 'TOO_LARGE', message: 'the host reply is too large' } }),
    );
  }
  data.set(bytes, 0);
  job.entry.replyBytes = Math.max(job.entry.replyBytes ?? 0, bytes.length);
  Atomics.store(state, 1, bytes.length);
  Atomics.store(state, 0, 1);
  Atomics.notify(state, 0);
}

function refuse(job, code, message) {
  answerWorker(job, { ok: false, error: { code, message } });
}

function handleHostRequest(job, request) {
  job.hostCalls++;
  if (job.pendingHost !== undefined)
    return kill(job.entry, 'a worker made a host call while one was pending');
  if (job.hostCalls > job.limits.host_calls) return refuse(job, 'SANDBOX_LIMIT', 'too many host calls');
  if (typeof request !== 'string') return refuse(job, 'INVALID_INPUT', 'malformed host call');
  // Sizes and depth are checked on the text, before anything parses it.
  const maxBytes = Math.max(MAX_REQUEST_BYTES, job.limits.result_bytes + 1024);
  if (request.length > maxBytes) {
    return refuse(job, 'SANDBOX_LIMIT', `a host call is larger than ${maxBytes} bytes`);
  }
  if (jsonDepth(request, MAX_DEPTH) > MAX_DEPTH) {
    return refuse(job, 'INVALID_INPUT', `a host call is nested deeper than ${MAX_DEPTH} levels`);
  }
  let parsed;
  try {
    parsed = JSON.parse(request);
  } catch {
    return refuse(job, 'INVALID_INPUT', 'host calls must be JSON');
  }
  if (!parsed || typeof parsed.fn !== 'string' || !Array.isArray(parsed.args)) {
    return refuse(job, 'INVALID_INPUT', 'a host call is {fn, args}');
  }
  if (parsed.fn === 'submit') {
    if (parsed.args.length !== 1) return refuse(job, 'INVALID_INPUT', 'submit(value) takes one value');
    if (job.submitted) return answerWorker(job, { ok: true, value: false });
    const text = JSON.stringify(parsed.args[0]);
    if (text === undefined || Buffer.byteLength(text) > job.limits.result_bytes) {
      return refuse(
        job,
        'SANDBOX_LIMIT',
        `the submitted result is larger than ${job.limits.result_bytes} bytes`,
      );
    }
    job.submitted = true;
    job.submitValue = text;
    return answerWorker(job, { ok: true, value: true });
  }
  if (request.length > MAX_REQUEST_BYTES) {
    return refuse(job, 'SANDBOX_LIMIT', `a host call is larger than ${MAX_REQUEST_BYTES} bytes`);
  }
  if (parsed.fn === 'checkpoint') {
    if (job.checkpoints >= MAX_CHECKPOINTS) {
      return refuse(job, 'SANDBOX_LIMIT', `at most ${MAX_CHECKPOINTS} checkpoints per run`);
    }
    if (job.checkpointBytes + request.length > CHECKPOINT_BUDGET) {
      return refuse(
        job,
        'SANDBOX_LIMIT',
        `checkpoints of one run may hold at most ${CHECKPOINT_BUDGET} bytes`,
      );
    }
    job.checkpoints++;
    job.checkpointBytes += request.length;
  }
  job.pendingHost = true;
  // A call back to the app inside the open run; dropped (and its late answer ignored) if the job
  // ends first. The app's errors reach Python as code and message.
  job.call.call('host', { request }, { signal: job.ended.signal }).then(
    (value) => {
      job.pendingHost = undefined;
      answerWorker(job, { ok: true, value: value ?? null });
    },
    (e) => {
      job.pendingHost = undefined;
      answerWorker(job, {
        ok: false,
        error: { code: String(e?.code ?? 'INTERNAL'), message: String(e?.message ?? e).slice(0, 8000) },
      });
    },
  );
}

/** What every result says of where its time went, which worker served it and the process's memory. */
function runFigures(job, entry) {
  return {
    host_calls: job.hostCalls,
    wait_ms: job.startedAt - job.queuedAt,
    run_ms: performance.now() - job.startedAt,
    worker_boot_ms: entry.bootMs,
    worker_id: entry.id,
    worker_run: entry.runs,
    process_rss_mb: Math.round(process.memoryUsage.rss() / 1048576),
  };
}

function internalError(message) {
  return { ok: false, error: { type: 'SandboxFault', code: 'SANDBOX_FAILED', message } };
}

const text = (v, max) => (typeof v === 'string' ? v.slice(0, max) : '');

function finish(job, how) {
  if (job.component) return finishComponent(job, how);
  if (job.done) return;
  job.done = true;
  for (const t of job.timers) clearTimeout(t);
  if (job.files) received.delete(job.files.id);
  actives.delete(job);
  const entry = job.entry;
  const report = how.report && typeof how.report === 'object' ? how.report : null;
  // Reuse only a worker whose job ended by itself, within every limit, and which then says it
  // restored what the job left (`ready`, within RESET_MS); one that says `unrestorable` (or
  // anything else) is ended. Until then it is in no one's hands: a job waits for another worker.
  // A host call still open is fine for a cancelled job: the cancel's flag made the worker's wait
  // return (Python saw CANCELLED and ended), and the app's late answer is dropped because the job
  // is done (answerWorker). Refusing it ended the worker of every run cancelled from inside its
  // own host call, which is where a checkpoint's or a tool's cancel usually lands under load.
  const reuse =
    config.reuse === true &&
    report !== null &&
    !job.limitHit &&
    !how.killed &&
    !how.crashed &&
    (job.pendingHost === undefined || job.cancelled === true) &&
    entry.runs < (config.maxReuses ?? 100);
  if (reuse) {
    resetting++;
    entry.resetting = setTimeout(() => kill(entry, 'a worker took too long to restore its state'), RESET_MS);
  } else {
    entry.dead = true;
    entry.worker.terminate();
  }
  const cap = job.limits.output_bytes;
  const outcome = report && typeof report.outcome === 'object' && report.outcome ? report.outcome : null;
  const result = {
    ok: false,
    submitted: job.submitted,
    result: job.submitValue,
    stdout: text(report?.stdout, cap),
    stderr: text(report?.stderr, cap),
    truncated: {
      stdout: report?.truncated?.stdout === true,
      stderr: report?.truncated?.stderr === true,
    },
    error: null,
    ...runFigures(job, entry),
  };
  if (job.limitHit) result.error = job.limitHit;
  else if (job.cancelled) result.error = CANCELLED_ERROR;
  else if (how.crashed) result.error = { type: 'SandboxFault', code: 'SANDBOX_FAILED', message: how.crashed };
  else if (report && !outcome) result.error = internalError('the worker sent a malformed report').error;
  else if (outcome && outcome.ok !== true) {
    const e = outcome.error && typeof outcome.error === 'object' ? outcome.error : {};
    result.error = {
      type: text(e.type, 200) || 'Exception',
      message: text(e.message, 4000),
      traceback: text(e.traceback, 8000),
      code: typeof e.code === 'string' && /^[A-Z_]{1,40}$/.test(e.code) ? e.code : null,
    };
    if (report.memoryCapHit === true && result.error.type === 'MemoryError') {
      result.error = {
        ...result.error,
        code: 'SANDBOX_LIMIT',
        message: `memory limit of ${job.limits.memory_mb} MB reached`,
      };
    }
  } else if (outcome) result.ok = true;
  job.ended.abort();
  job.resolve(result);
  fill();
}

// --- WebAssembly components -------------------------------------------------------------------------
// A `component` call runs a component the app transpiled with jco into its component cache folder
// (`init.componentDir`, readable by this process and nothing else of the app's data). Its core
// modules are read and compiled here with their memories capped (wasm-memory.mjs), kept compiled
// for the next runs, and run in a component worker (component-worker.mjs) of their own: never on
// this thread, never in a Pyodide worker. Host calls take the same path as Python's (the shared
// buffer, handleHostRequest, the app's `host` callback) with the same budgets; a run that breaks a
// limit ends its worker, one that ended cleanly gives it back.

const COMPONENT_WORKER_URL = new URL('./component-worker.mjs', HERE);
/** Compiled components kept (each holds its machine code: a JS component is ~12 MB of wasm). */
const MAX_COMPILED = 3;
/** Idle component workers kept for the next run. */
const COMPONENT_SPARES = 1;
const compiled = new Map(); // `${sha256}:${memory_mb}` → Promise<{modules, imports, glueUrl}>
const idleComponentWorkers = [];
let componentSeq = 0;
const componentJobs = new Set();

function componentFolder(sha256) {
  if (!config.componentDir) throw new AppError('SANDBOX_FAILED', 'this sandbox has no component cache');
  return new URL(
    `${sha256}/`,
    pathToFileURL(config.componentDir.endsWith('/') ? config.componentDir : `${config.componentDir}/`),
  );
}

function compileComponent(sha256, memoryMb) {
  const key = `${sha256}:${memoryMb}`;
  let entry = compiled.get(key);
  if (entry) {
    compiled.delete(key);
    compiled.set(key, entry);
    return entry;
  }
  entry = (async () => {
    const dir = componentFolder(sha256);
    let meta;
    try {
      meta = JSON.parse(readFileSync(new URL('meta.json', dir), 'utf8'));
    } catch {
      throw new AppError('SANDBOX_FAILED', 'the component is not in the component cache');
    }
    const modules = {};
    for (const name of meta.core_modules ?? []) {
      if (typeof name !== 'string' || !/^[\w.-]+\.wasm$/.test(name))
        throw new AppError('SANDBOX_FAILED', 'the component cache is malformed');
      let bytes;
      try {
        bytes = capMemory(new Uint8Array(readFileSync(new URL(name, dir))), memoryMb * 1048576);
      } catch (e) {
        throw new AppError('SANDBOX_LIMIT', String(e?.message ?? e).slice(0, 500));
      }
      modules[name] = await WebAssembly.compile(bytes);
    }
    const imports = Array.isArray(meta.imports) ? meta.imports.filter((x) => typeof x === 'string') : [];
    return { modules, imports, glueUrl: new URL('component.js', dir).href };
  })();
  compiled.set(key, entry);
  entry.catch(() => compiled.delete(key));
  while (compiled.size > MAX_COMPILED) compiled.delete(compiled.keys().next().value);
  return entry;
}

/** A component worker, ready (its entry has the shape handleHostRequest and kill expect). */
function componentWorker() {
  while (idleComponentWorkers.length > 0) {
    const idle = idleComponentWorkers.shift();
    if (!idle.dead) return Promise.resolve(idle);
  }
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const hostBuffer = new SharedArrayBuffer(HOST_BUFFER_BYTES);
    const worker = new Worker(COMPONENT_WORKER_URL, {
      workerData: { hostBuffer },
      stdout: true,
      stderr: true,
      resourceLimits: { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16 },
    });
    drain(worker);
    const entry = {
      id: ++componentSeq,
      worker,
      hostBuffer,
      interruptBuffer: new SharedArrayBuffer(4),
      bootMs: 0,
      dead: false,
      runs: 0,
      component: true,
    };
    let ready = false;
    worker.on('message', (m) => {
      if (entry.dead) return;
      if (!ready) {
        if (m?.type !== 'ready') return kill(entry, 'a component worker spoke before it was ready');
        ready = true;
        entry.bootMs = performance.now() - t0;
        resolve(entry);
      } else if (entry.job && !entry.job.done) onComponentMessage(entry.job, m);
      else kill(entry, 'an idle component worker sent a message');
    });
    const failed = (why) => {
      if (entry.dead) return;
      entry.dead = true;
      const i = idleComponentWorkers.indexOf(entry);
      if (i >= 0) idleComponentWorkers.splice(i, 1);
      if (!ready) reject(new AppError('SANDBOX_FAILED', `a component worker failed to start: ${why}`));
      else if (entry.job && !entry.job.done) finish(entry.job, { crashed: why });
    };
    worker.on('error', (e) => failed(String(e?.message ?? e).slice(0, 500)));
    worker.on('exit', (code) => failed(`component worker exited with code ${code}`));
  });
}

/** Answer a `component` call: resolves with a run result when the component's run ends. */
async function runComponent(params, call) {
  if (actives.size + waiting.length + componentJobs.size >= MAX_ACTIVE)
    throw new AppError('SANDBOX_FAILED', 'the sandbox is busy');
  const job = {
    component: true,
    call,
    ended: new AbortController(),
    limits: params.limits,
    queuedAt: performance.now(),
    submitted: false,
    submitValue: null,
    checkpoints: 0,
    checkpointBytes: 0,
    hostCalls: 0,
    limitHit: null,
    timers: [],
    done: false,
  };
  componentJobs.add(job);
  let prepared;
  let entry;
  try {
    [prepared, entry] = await Promise.all([
      compileComponent(params.sha256, params.limits.memory_mb),
      componentWorker(),
    ]);
  } catch (e) {
    componentJobs.delete(job);
    throw e;
  }
  if (job.cancelled) {
    componentJobs.delete(job);
    if (idleComponentWorkers.length < COMPONENT_SPARES) idleComponentWorkers.push(entry);
    else {
      entry.dead = true;
      entry.worker.terminate();
    }
    throw new AppError('CANCELLED', 'the run was cancelled');
  }
  const result = new Promise((resolve) => {
    job.resolve = resolve;
  });
  job.entry = entry;
  entry.job = job;
  entry.runs++;
  job.startedAt = performance.now();
  const hostState = new Int32Array(entry.hostBuffer, 0, 4);
  Atomics.store(hostState, 2, 0);
  // A component cannot be interrupted from outside: at the deadline its worker ends.
  job.timers.push(
    setTimeout(() => {
      job.limitHit ??= {
        code: 'SANDBOX_TIMEOUT',
        type: 'Timeout',
        message: `timed out after ${job.limits.timeout_ms} ms`,
      };
      Atomics.store(hostState, 2, 1);
      Atomics.notify(hostState, 0);
      finish(job, { killed: true });
    }, job.limits.timeout_ms),
  );
  watchProcessMemory(job);
  entry.worker.postMessage({
    type: 'run',
    modules: prepared.modules,
    imports: prepared.imports,
    glueUrl: prepared.glueUrl,
    input: params.input,
    limits: job.limits,
  });
  return result;
}

function onComponentMessage(job, m) {
  if (job.done) return;
  if (!m || typeof m !== 'object') return kill(job.entry, 'a component worker sent a malformed message');
  if (m.type === 'host') {
    // `submit` is Python's; a component returns its result from `run`.
    if (typeof m.request === 'string' && /^\{"fn":"submit"/.test(m.request))
      return refuse(job, 'INVALID_INPUT', 'components return their result from run');
    handleHostRequest(job, m.request);
  } else if (m.type === 'done') finish(job, { report: m });
  else kill(job.entry, 'a component worker sent an unknown message');
}

function finishComponent(job, how) {
  if (job.done) return;
  job.done = true;
  for (const t of job.timers) clearTimeout(t);
  componentJobs.delete(job);
  const entry = job.entry;
  const report = how.report && typeof how.report === 'object' ? how.report : null;
  const outcome = report && typeof report.outcome === 'object' && report.outcome ? report.outcome : null;
  const clean = !job.limitHit && !how.killed && !how.crashed && job.pendingHost === undefined && outcome;
  entry.job = null;
  // A worker whose run broke a limit (or trapped mid-way) is not trusted with another.
  const reusable = clean && (outcome.ok === true || outcome.error?.type === 'ComponentError');
  if (reusable && idleComponentWorkers.length < COMPONENT_SPARES) idleComponentWorkers.push(entry);
  else {
    entry.dead = true;
    entry.worker.terminate();
  }
  const cap = job.limits.output_bytes;
  const result = {
    ok: false,
    submitted: false,
    result: null,
    stdout: text(report?.stdout, cap),
    stderr: '',
    truncated: { stdout: report?.truncated?.stdout === true, stderr: false },
    error: null,
    ...runFigures(job, entry),
  };
  if (job.limitHit) result.error = job.limitHit;
  else if (job.cancelled) result.error = CANCELLED_ERROR;
  else if (how.crashed) result.error = { type: 'SandboxFault', code: 'SANDBOX_FAILED', message: how.crashed };
  else if (!outcome) result.error = internalError('the component worker sent a malformed report').error;
  else if (outcome.ok === true && typeof outcome.value === 'string') {
    const json = JSON.stringify(outcome.value);
    if (json.length > job.limits.result_bytes) {
      result.error = {
        type: 'ResultTooLarge',
        code: 'SANDBOX_LIMIT',
        message: `the component's result is larger than ${job.limits.result_bytes} bytes`,
      };
    } else {
      result.ok = true;
      result.submitted = true;
      result.result = json;
    }
  } else {
    const e = outcome.error && typeof outcome.error === 'object' ? outcome.error : {};
    result.error = {
      type: text(e.type, 200) || 'Error',
      message: text(e.message, 4000),
      code: typeof e.code === 'string' && /^[A-Z_]{1,40}$/.test(e.code) ? e.code : null,
    };
  }
  job.ended.abort();
  job.resolve(result);
}

// --- start ------------------------------------------------------------------------------------------
// The first worker (a thread of its own, with its own module hooks) and the wasm compile start
// before this thread installs its module hooks, so their start-ups overlap. Nothing
// untrusted has run yet: the worker runs no job before `init`, its snapshot and its lock-down, and
// no byte from the app or a worker is read before the hooks are in and checked below.
let early = null;
if (EARLY_PYODIDE_URL) {
  compiling = compileWasm(EARLY_PYODIDE_URL);
  early = boot({ url: EARLY_PYODIDE_URL, dir: fileURLToPath(EARLY_PYODIDE_URL), heapMb: undefined });
}
// The protocol loads while that worker starts (see loadProtocol).
await loadProtocol();
installModuleHooks();

// Then fail closed if the outer boundary is not in place, or greet the app.
const problems = [...lockdownProblems(), ...(await guardProblems())];
if (problems.length > 0) {
  send({ type: 'fatal', message: `sandbox process is not locked down: ${problems.join('; ')}` });
  setTimeout(() => process.exit(3), 50);
} else {
  process.stdin.on('data', (chunk) => reader.push(chunk));
  process.stdin.on('end', () => process.exit(0));
  send({ type: 'hello', pid: process.pid, self_check: networkSelfCheck });
}
