// The sandbox process: started by the pool with an empty environment and the permission model
// (read-only access to this folder and node_modules/pyodide, worker threads allowed, nothing else),
// it keeps pre-warmed Pyodide workers and runs one job at a time, each in its own worker, which is
// terminated afterwards. It speaks structured messages with its parent (process IPC, or
// `process.parentPort` under Electron's utilityProcess) and nothing else.
//
// Plain JavaScript: this process has no TypeScript loader (see worker.mjs).
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

const HERE = new URL('./', import.meta.url);
const WORKER_URL = new URL('./worker.mjs', HERE);
const PRELUDE = readFileSync(new URL('./prelude.py', HERE), 'utf8');
const HOST_BUFFER_BYTES = 8 * 1024 * 1024 + 16;
const HOST_HEADER = 16;

// --- the channel to the parent ----------------------------------------------------------------------
const electronPort = process.parentPort;
function send(msg, transfer) {
  if (electronPort) electronPort.postMessage(msg, transfer);
  else process.send?.(msg);
}
function onParentMessage(handler) {
  if (electronPort) electronPort.on('message', (e) => handler(e.data));
  else process.on('message', handler);
}

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
  const envKeys = Object.keys(process.env).filter(
    (k) => !/^(ELECTRON_RUN_AS_NODE|SYSTEMROOT|NODE_OPTIONS)$/.test(k),
  );
  if (envKeys.length > 0) problems.push(`the environment is not empty (${envKeys.slice(0, 5).join(', ')})`);
  return problems;
}

const problems = lockdownProblems();
if (problems.length > 0) {
  send({ type: 'fatal', message: `sandbox process is not locked down: ${problems.join('; ')}` });
  setTimeout(() => process.exit(3), 50);
} else {
  onParentMessage(handleParent);
  send({ type: 'hello', pid: process.pid });
}

// --- state ------------------------------------------------------------------------------------------
let config;
let snapshot;
const ready = []; // booted workers waiting for a job
let booting = 0;
let bootFailures = 0;
let waitingForWorker = null; // a job waiting for a worker
let active = null; // the running job

function handleParent(msg) {
  if (!msg || typeof msg !== 'object') return;
  switch (msg.type) {
    case 'init':
      config = msg;
      if (msg.snapshot) snapshot = new Uint8Array(msg.snapshot);
      start();
      break;
    case 'run':
      runJob(msg);
      break;
    case 'host-reply':
      hostReply(msg);
      break;
    case 'shutdown':
      for (const w of ready) w.worker.terminate();
      process.exit(0);
      break;
    default:
      break;
  }
}

let wasmModule;

async function start() {
  try {
    wasmModule = await WebAssembly.compile(readFileSync(new URL('pyodide.asm.wasm', config.pyodideUrl)));
  } catch {
    wasmModule = undefined; // each worker compiles its own: slower, still correct
  }
  if (!snapshot) {
    const t0 = performance.now();
    try {
      snapshot = await makeSnapshot();
    } catch (e) {
      send({ type: 'fatal', message: `could not start Pyodide: ${e?.message ?? e}` });
      setTimeout(() => process.exit(4), 50);
      return;
    }
    send({ type: 'snapshot', bytes: snapshot, ms: performance.now() - t0 });
  }
  fill();
}

function workerOptions(extra) {
  return {
    workerData: {
      pyodideUrl: new URL('pyodide.mjs', config.pyodideUrl).href,
      indexURL: config.pyodideDir,
      prelude: PRELUDE,
      wasmModule,
      ...extra,
    },
    resourceLimits: { maxOldGenerationSizeMb: config.workerHeapMb ?? 256, maxYoungGenerationSizeMb: 32 },
  };
}

function makeSnapshot() {
  return new Promise((resolve, reject) => {
    const w = new Worker(
      WORKER_URL,
      workerOptions({
        makeSnapshot: true,
        hostBuffer: new SharedArrayBuffer(32),
        interruptBuffer: new SharedArrayBuffer(4),
      }),
    );
    w.on('message', (m) => {
      if (m?.type === 'snapshot') {
        resolve(m.bytes);
        w.terminate();
      }
    });
    w.on('error', reject);
    w.on('exit', () => reject(new Error('snapshot worker exited')));
  });
}

function fill() {
  const want = Math.max(1, config.spares ?? 1);
  while (ready.length + booting < want) boot();
}

function boot() {
  booting++;
  const t0 = performance.now();
  const hostBuffer = new SharedArrayBuffer(HOST_BUFFER_BYTES);
  const interruptBuffer = new SharedArrayBuffer(4);
  const worker = new Worker(
    WORKER_URL,
    workerOptions({ snapshot, hostBuffer, interruptBuffer, bootMemoryMb: config.bootMemoryMb ?? 512 }),
  );
  const entry = { worker, hostBuffer, interruptBuffer, bootMs: 0, dead: false };
  let isReady = false;
  worker.on('message', (m) => {
    if (m?.type === 'ready' && !isReady) {
      isReady = true;
      booting--;
      bootFailures = 0;
      entry.bootMs = performance.now() - t0;
      send({ type: 'worker-ready', ms: entry.bootMs });
      if (waitingForWorker) {
        const job = waitingForWorker;
        waitingForWorker = null;
        assign(job, entry);
      } else ready.push(entry);
    } else if (active && active.entry === entry) onWorkerMessage(active, m);
  });
  const failed = (why) => {
    entry.dead = true;
    if (!isReady) {
      isReady = true;
      booting--;
      bootFailures++;
      if (bootFailures >= 3) {
        send({ type: 'fatal', message: `sandbox workers fail to start: ${why}` });
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
    if (active && active.entry === entry) finish(active, { crashed: why });
  };
  worker.on('error', (e) => failed(String(e?.message ?? e)));
  worker.on('exit', (code) => {
    if (!entry.dead) failed(`worker exited with code ${code}`);
  });
}

// --- jobs -------------------------------------------------------------------------------------------
function runJob(msg) {
  if (active || waitingForWorker) {
    send({ type: 'result', id: msg.id, result: internalError('the sandbox is busy') });
    return;
  }
  const job = {
    id: msg.id,
    code: String(msg.code),
    limits: msg.limits,
    queuedAt: performance.now(),
    submitted: false,
    submitValue: null,
    checkpoints: 0,
    hostCalls: 0,
    limitHit: null,
    timers: [],
    done: false,
  };
  const entry = ready.shift();
  if (entry) assign(job, entry);
  else {
    waitingForWorker = job;
    fill();
  }
}

function assign(job, entry) {
  active = job;
  job.entry = entry;
  job.startedAt = performance.now();
  fill(); // warm the next one while this job runs
  const interrupt = new Int32Array(entry.interruptBuffer);
  job.timers.push(
    setTimeout(() => {
      job.limitHit ??= {
        code: 'SANDBOX_TIMEOUT',
        type: 'Timeout',
        message: `timed out after ${job.limits.timeout_ms} ms`,
      };
      Atomics.store(interrupt, 0, 2);
      job.timers.push(setTimeout(() => finish(job, { killed: true }), job.limits.grace_ms));
    }, job.limits.timeout_ms),
  );
  // JS-side buffers (strings, typed arrays) bypass the wasm cap: watch the whole process.
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
  entry.worker.postMessage({ type: 'run', code: job.code, limits: job.limits });
}

function onWorkerMessage(job, m) {
  if (!m || typeof m !== 'object' || job.done) return;
  if (m.type === 'host') handleHostRequest(job, m.request);
  else if (m.type === 'done') finish(job, { report: m });
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
  Atomics.store(state, 1, bytes.length);
  Atomics.store(state, 0, 1);
  Atomics.notify(state, 0);
}

function refuse(job, code, message) {
  answerWorker(job, { ok: false, error: { code, message } });
}

function handleHostRequest(job, request) {
  job.hostCalls++;
  if (job.hostCalls > job.limits.host_calls) return refuse(job, 'SANDBOX_LIMIT', 'too many host calls');
  if (typeof request !== 'string') return refuse(job, 'INVALID_INPUT', 'malformed host call');
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
  job.hostSeq = (job.hostSeq ?? 0) + 1;
  job.pendingHost = job.hostSeq;
  send({ type: 'host', id: job.id, seq: job.hostSeq, request });
}

function hostReply(msg) {
  const job = active;
  if (!job || job.done || msg.id !== job.id || msg.seq !== job.pendingHost) return;
  job.pendingHost = undefined;
  answerWorker(job, typeof msg.reply === 'string' ? msg.reply : JSON.stringify(msg.reply));
}

function internalError(message) {
  return { ok: false, error: { type: 'SandboxFault', code: 'SANDBOX_FAILED', message } };
}

function finish(job, how) {
  if (job.done) return;
  job.done = true;
  for (const t of job.timers) clearTimeout(t);
  active = null;
  const entry = job.entry;
  entry.dead = true;
  entry.worker.terminate();
  const report = how.report;
  const result = {
    ok: false,
    submitted: job.submitted,
    result: job.submitValue,
    stdout: report?.stdout ?? '',
    stderr: report?.stderr ?? '',
    truncated: report?.truncated ?? { stdout: false, stderr: false },
    error: null,
    host_calls: job.hostCalls,
    wait_ms: job.startedAt - job.queuedAt,
    run_ms: performance.now() - job.startedAt,
    worker_boot_ms: entry.bootMs,
  };
  if (job.limitHit) result.error = job.limitHit;
  else if (how.crashed) result.error = { type: 'SandboxFault', code: 'SANDBOX_FAILED', message: how.crashed };
  else if (report && !report.outcome.ok) {
    result.error = report.outcome.error;
    if (report.memoryCapHit && result.error?.type === 'MemoryError') {
      result.error = {
        ...result.error,
        code: 'SANDBOX_LIMIT',
        message: `memory limit of ${job.limits.memory_mb} MB reached`,
      };
    }
  } else if (report) result.ok = true;
  send({ type: 'result', id: job.id, result });
  fill();
}
