import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AppError, assertNever, isAppError } from '../contract/errors.js';
import { createPeer, type IncomingCall, type Peer } from '../rpc/index.js';
import { FairQueue } from './fair-queue.js';
import { MAX_LIMITS, resolveLimits, type SandboxLimits, type SandboxLimitsOverride } from './limits.js';
import { openProbes, type Probes } from './probes.js';
import {
  type AppMessage,
  RUN_FILE_CHUNK,
  type RunResult,
  rpcToWire,
  SANDBOX_ERROR_CODES,
  SANDBOX_ID_PREFIX,
  SandboxMessageSchema,
  wireToRpc,
} from './protocol.js';
import { encodeBinaryFrame, encodeFrames, FrameReader, jsonDepth } from './runtime/frames.mjs';
import { packSparse } from './runtime/sparse.mjs';
import { pyodideDir, RUNTIME_DIR } from './runtime-paths.js';
import { checkSnapshot, SnapshotCache } from './snapshot-cache.js';
import { spawnNodeSandbox } from './spawn.js';
import type {
  SandboxError,
  SandboxIsolation,
  SandboxProcessHandle,
  SandboxRunOptions,
  SandboxRunResult,
  SpawnSandboxProcess,
} from './types.js';

export { pyodideDir, RUNTIME_DIR } from './runtime-paths.js';
export { checkSnapshot, removeStaleTemps } from './snapshot-cache.js';

/** Options of {@link SandboxPool}. */
export interface SandboxPoolOptions {
  /** Starts the sandbox process (default: a Node process with the permission model). */
  spawn?: SpawnSandboxProcess;
  /** Workers kept booted and waiting (more = better bursts, more memory). Default 1. */
  spares?: number;
  /** Default limits for every run (artifact metadata and callers override them). */
  limits?: SandboxLimitsOverride;
  /**
   * How each run gets a fresh interpreter: `memory` (default) restores a worker's pristine state
   * (linear memory, JS reference table, stack pointer, file system streams) in a few ms and serves
   * the next run from it; `worker` boots a new worker per run (the previous design, ~0.5 s of CPU).
   * A run that hits a limit or changes state the restore does not cover (files, streams) always
   * ends its worker.
   */
  reuse?: 'memory' | 'worker';
  /** Runs one worker serves before it is replaced even when every run ended cleanly. Default 100. */
  maxReuses?: number;
  /** Where to keep the Pyodide memory snapshot between app runs (skips the ~4 s cold start). */
  cacheDir?: string;
  /**
   * The folder of transpiled WebAssembly components (`<sha256>/`, written by the app): the sandbox
   * process may read it, nothing else of the app's data. Without it components cannot run.
   */
  componentDir?: string;
  /** Whole-process memory cap checked while a job runs (MB). Default 1536. */
  rssLimitMb?: number;
  /**
   * Run even where the operating system cannot take the network away from the sandbox process
   * (in-process isolation only). The user's explicit choice; off by default, so such a machine
   * refuses to run code rather than run it less isolated than promised.
   */
  allowInProcessIsolation?: boolean | (() => boolean);
  /** Called with diagnostics (process restarts, snapshot writes, protocol violations). */
  log?: (line: string) => void;
}

/** Start-up and health figures of a pool. */
export interface SandboxPoolStats {
  pid: number | undefined;
  processStarts: number;
  /** Time from spawn to the first warm worker of the current process. */
  coldStartMs: number | null;
  /** Time to build the snapshot (0 when it came from the cache). */
  snapshotMs: number | null;
  snapshotFromCache: boolean;
  /** Boot times of the last warm workers. */
  workerBootMs: number[];
  /** Workers booted from the snapshot by the current and earlier processes. */
  workersBooted: number;
  /** Times of the last state restores of reused workers. */
  workerResetMs: number[];
  /** Runs served by a restored worker instead of a new one. */
  workerResets: number;
  runs: number;
  /** How the OS confines the sandbox process (null before it first started). */
  isolation: SandboxIsolation | null;
  /** What the start-up self-check saw: whether the process reached the app's probe listeners. */
  selfCheck: { tcp: string; unix: string } | null;
  /** Messages from the sandbox process refused as malformed or out of place. */
  protocolViolations: number;
  /** Processes stopped while idle because they had grown past half their memory cap. */
  recycles: number;
}

interface Pending {
  /** The fair-queue key (a chat); '' for runs without one. */
  key: string;
  /** The Python program, or a component's input (JSON text) when `component` is set. */
  code: string;
  /** The SHA-256 of the transpiled component to run instead of Python. */
  component?: string;
  limits: SandboxLimits;
  opts: SandboxRunOptions;
  enqueuedAt: number;
  resolve: (r: SandboxRunResult) => void;
  reject: (e: unknown) => void;
  checkpoints: unknown[];
  checkpointBytes: number;
  /** The process serving it, the id of its `run` call and when it was sent (once sent). */
  proc?: Proc;
  runId?: string;
  sentAt?: number;
}

/**
 * Where a sandbox process is in its life, as the app sees it. Each message type is accepted only in
 * the phases where it is expected; anything else kills the process.
 */
type Phase = 'hello' | 'snapshot' | 'snapshot-bytes' | 'booting' | 'ready';

interface Proc {
  handle: SandboxProcessHandle;
  spawnedAt: number;
  ready: Promise<void>;
  alive: boolean;
  phase: Phase;
  /** Set once a job was sent: from then on the process may run attacker code. */
  ranJob: boolean;
  /** The snapshot came from the cache (a boot failure then invalidates the cache). */
  usedCache: boolean;
  snapshotMeta: { ms: number; size: number } | null;
  /** The RPC peer on the process's pipe: the app's `run` calls, the process's `host` calls. */
  peer: Peer;
  /** The open `run` calls, each with the host call the app is answering for it (one at a time). */
  runs: Map<string, { hostCall: string | null }>;
  /** The number in the last host call's id: they must increase. */
  lastHostCall: number;
  /** The process's resident memory as its last result reported it (MB). */
  rssMb: number;
}

/** At most this many checkpoints and this many bytes of them per run (the process enforces it too). */
const MAX_CHECKPOINTS = 100;
const CHECKPOINT_BUDGET = 1024 * 1024;
const MAX_DEPTH = 64;
/** Largest JSON message the app reads from the process: a result at the hard maxima. */
const MAX_JSON_FRAME = 2 * MAX_LIMITS.output_bytes + MAX_LIMITS.result_bytes + 1024 * 1024;
const BACKSTOP_MS = 3_000;
/** Runs served at once at most (each beyond the first in a worker of its own). */
const MAX_RUNNING = 3;
/** How long a run holds the queue before a waiting run starts beside it. */
const SIDE_BY_SIDE_MS = 500;
/**
 * A pool of pre-warmed Pyodide workers inside one locked-down sandbox process. Runs execute one at
 * a time in a fresh interpreter (a restored or a new worker), with a second and third beside a run
 * that holds the queue; waiting runs are served round-robin across chats. A run that breaks a limit
 * (or kills the process) ends with a typed error in its result and the pool keeps serving. Every message from
 * the process is checked against its schema, its size and the process's phase: a process that
 * breaks the protocol is killed, the run it was serving fails, and the app carries on.
 */
export class SandboxPool {
  private readonly spawn: SpawnSandboxProcess;
  private readonly defaults: SandboxLimits;
  private proc: Proc | null = null;
  private readonly queue = new FairQueue<Pending>();
  /** Runs sent to the process and not finished yet (several only when one holds the queue). */
  private readonly running = new Set<Pending>();
  /** Re-checks the queue when the oldest run has held it long enough for a run beside it. */
  private sideTimer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  private fatal: AppError | null = null;
  private probes: Promise<Probes> | null = null;
  private readonly statsData: SandboxPoolStats = {
    pid: undefined,
    processStarts: 0,
    coldStartMs: null,
    snapshotMs: null,
    snapshotFromCache: false,
    workerBootMs: [],
    workersBooted: 0,
    workerResetMs: [],
    workerResets: 0,
    runs: 0,
    isolation: null,
    selfCheck: null,
    protocolViolations: 0,
    recycles: 0,
  };

  /** The boot snapshot on disk (`snapshot-cache.ts`): read before a process boots, written after. */
  private readonly snapshots: SnapshotCache;

  constructor(private readonly opts: SandboxPoolOptions = {}) {
    this.spawn = opts.spawn ?? spawnNodeSandbox;
    this.defaults = resolveLimits(opts.limits);
    this.snapshots = new SnapshotCache(opts.cacheDir, opts.log);
  }

  /** Start the sandbox process (if needed) and wait for its first warm worker. */
  async warmup(): Promise<void> {
    await this.ensureProcess().ready;
  }

  /** Figures for benchmarks and diagnostics. */
  stats(): SandboxPoolStats {
    return {
      ...this.statsData,
      workerBootMs: [...this.statsData.workerBootMs],
      workerResetMs: [...this.statsData.workerResetMs],
    };
  }

  /** The pid of the sandbox process, if one is running. */
  get pid(): number | undefined {
    return this.proc?.alive ? this.proc.handle.pid : undefined;
  }

  /**
   * Run one Python program in a fresh interpreter. Resolves with the outcome (Python errors and
   * broken limits included); rejects only when the sandbox itself cannot start (`SANDBOX_FAILED`).
   */
  run(code: string, opts: SandboxRunOptions = {}): Promise<SandboxRunResult> {
    if (this.closed) return Promise.reject(new AppError('SANDBOX_FAILED', 'The sandbox pool is closed'));
    if (typeof code !== 'string')
      return Promise.reject(new AppError('INVALID_INPUT', 'code must be a string'));
    const limits = resolveLimits(this.defaults, opts.limits);
    const key = typeof opts.queue === 'string' && opts.queue ? opts.queue.slice(0, 200) : '';
    return this.enqueue(key, { code, limits, opts });
  }

  /**
   * Run a WebAssembly component already transpiled into `componentDir` under `sha256`, with `input`
   * (its variables as JSON text), in a component worker of the sandbox process; queued, limited and
   * served host calls like a Python run. Its `run` result is the run's `result` (a string, as
   * `submit()`'s value); its `err` an error of type `ComponentError`.
   */
  runComponent(sha256: string, input: string, opts: SandboxRunOptions = {}): Promise<SandboxRunResult> {
    if (this.closed) return Promise.reject(new AppError('SANDBOX_FAILED', 'The sandbox pool is closed'));
    if (!this.opts.componentDir)
      return Promise.reject(new AppError('HANDLER_NOT_AVAILABLE', 'this sandbox has no component cache'));
    if (!/^[0-9a-f]{64}$/.test(sha256))
      return Promise.reject(new AppError('INVALID_INPUT', 'a component is named by its SHA-256'));
    const limits = resolveLimits(this.defaults, opts.limits);
    const key = typeof opts.queue === 'string' && opts.queue ? opts.queue.slice(0, 200) : '';
    return this.enqueue(key, { code: input, component: sha256, limits, opts });
  }

  /** Queue a run under its fair-queue key and let the pump send it when its turn comes. */
  private enqueue(
    key: string,
    run: Pick<Pending, 'code' | 'limits' | 'opts'> & { component?: string },
  ): Promise<SandboxRunResult> {
    return new Promise((resolve, reject) => {
      const signal = run.opts.signal;
      const onAbort = () => this.cancel(job);
      const detach = () => signal?.removeEventListener('abort', onAbort);
      const job: Pending = {
        key,
        ...run,
        enqueuedAt: performance.now(),
        resolve: (r) => {
          detach();
          resolve(r);
        },
        reject: (e) => {
          detach();
          reject(e);
        },
        checkpoints: [],
        checkpointBytes: 0,
      };
      if (signal?.aborted) {
        job.resolve(this.cancelledResult(job));
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(key, job);
      this.pump();
    });
  }

  /**
   * The caller's signal fired. A queued run is answered at once; a running one is interrupted in
   * its worker (KeyboardInterrupt, the worker ended after the run's grace if Python does not stop)
   * and answered by the process with what it printed so far and a `CANCELLED` error.
   */
  private cancel(job: Pending): void {
    if (this.queue.remove(job.key, job)) {
      job.resolve(this.cancelledResult(job));
      return;
    }
    if (!this.running.has(job)) return;
    if (job.runId && job.proc) this.sendTo(job.proc, { type: 'cancel', id: job.runId });
    // Still waiting for the process to start: answered now, and dispatch then finds it gone.
    else this.finish(job, this.cancelledResult(job));
  }

  private cancelledResult(job: Pending): SandboxRunResult {
    const r = this.failure(job, 'CANCELLED', 'Cancelled', 'the run was cancelled');
    r.duration_ms = performance.now() - job.enqueuedAt;
    return r;
  }

  /** Stop the sandbox process; pending runs are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.sideTimer) clearTimeout(this.sideTimer);
    this.sideTimer = null;
    for (const p of this.queue.drain()) p.reject(new AppError('CANCELLED', 'The sandbox pool was closed'));
    for (const job of [...this.running])
      this.finish(job, this.failure(job, 'CANCELLED', 'SandboxFault', 'The sandbox pool was closed'));
    const proc = this.proc;
    this.proc = null;
    if (proc?.alive) {
      const exited = new Promise<void>((r) => proc.handle.onExit(() => r()));
      proc.handle.kill();
      // The grace timer is cleared once the process is gone: left pending, it held a CLI that had
      // finished its work open for two more seconds.
      let grace: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([exited, new Promise((r) => (grace = setTimeout(r, 2000)))]);
      clearTimeout(grace);
    }
    const probes = this.probes;
    this.probes = null;
    if (probes) (await probes.catch(() => null))?.close();
  }

  // --- process lifecycle ----------------------------------------------------------------------------

  private ensureProcess(): { ready: Promise<void>; proc?: Proc } {
    if (this.fatal) throw this.fatal;
    if (this.proc?.alive) return this.proc;
    if (this.starting) return this.starting;
    const starting = { ready: this.startProcess() };
    starting.ready.catch(() => {});
    this.starting = starting;
    return starting;
  }

  private starting: { ready: Promise<void> } | null = null;

  private async startProcess(): Promise<void> {
    try {
      this.probes ??= openProbes();
      const probes = await this.probes;
      if (this.closed) throw new AppError('CANCELLED', 'The sandbox pool was closed');
      const proc = this.spawnProcess(probes);
      await proc.ready;
    } finally {
      this.starting = null;
    }
  }

  private spawnProcess(probes: Probes): Proc {
    const spawnedAt = performance.now();
    const hitsBefore = probes.hits;
    const componentDir = this.componentDirReady();
    const handle = this.spawn({
      entry: join(RUNTIME_DIR, 'process.mjs'),
      guard: join(RUNTIME_DIR, 'guard.mjs'),
      readPaths: [`${RUNTIME_DIR}/`, `${pyodideDir()}/`, ...(componentDir ? [`${componentDir}/`] : [])],
      maxOldSpaceMb: 512,
      probe: { tcpPort: probes.tcpPort, unixPath: probes.unixPath },
      pyodideUrl: `${pathToFileURL(pyodideDir()).href}/`,
    });
    this.statsData.processStarts++;
    this.statsData.pid = handle.pid;
    this.statsData.isolation = handle.isolation;
    // Read and verify the cached snapshot while the process starts: off the first run's
    // critical path. Held only until `init` hands it over.
    // Packed sparse: half the bytes cross the pipe, and the process keeps the snapshot as
    // it arrives instead of scanning it again on the first run's path.
    const readPacked = () => {
      const dense = this.snapshots.read();
      return dense && packSparse(dense);
    };
    let early: Uint8Array | null | undefined = readPacked();
    let markReady: () => void = () => {};
    let markFailed: (e: unknown) => void = () => {};
    const ready = new Promise<void>((res, rej) => {
      markReady = res;
      markFailed = rej;
    });
    ready.catch(() => {});
    const proc: Proc = {
      handle,
      spawnedAt,
      ready,
      alive: true,
      phase: 'hello',
      ranJob: false,
      usedCache: false,
      snapshotMeta: null,
      // Calls cross as `run`/`result` and `host`/`host-reply` frames (see protocol.ts); what
      // arrives was checked against the protocol and the phase before the peer sees it.
      peer: createPeer(
        { send: (m) => this.sendTo(proc, rpcToWire(m, 'app') as AppMessage), onMessage: () => {} },
        {
          idPrefix: SANDBOX_ID_PREFIX.app,
          handle: (params, call) => this.onHostCall(proc, params, call),
          foreignCode: 'SANDBOX_FAILED',
          timeoutError: (_method, ms) =>
            new AppError('SANDBOX_TIMEOUT', `the sandbox process gave no result within ${ms} ms`, {
              backstop: true,
            }),
          // Host function errors reach Python as code and message only.
          sendDetails: false,
          answerProtocolErrors: false,
          onProtocolError: (why) => violation(why),
        },
      ),
      runs: new Map(),
      lastHostCall: 0,
      rssMb: 0,
    };
    this.proc = proc;
    let sawReady = false;

    const violation = (why: string) => {
      if (!proc.alive) return;
      this.statsData.protocolViolations++;
      this.opts.log?.(`sandbox process ${handle.pid} broke the protocol (${why}): killing it`);
      const err = new AppError('SANDBOX_FAILED', `The sandbox process broke the protocol: ${why}`);
      markFailed(err);
      if (proc.ranJob) this.failRunsOf(proc, 'SANDBOX_FAILED', err.message);
      this.killProc(proc);
    };
    const refuseToRun = (message: string) => {
      this.fatal = new AppError('SANDBOX_FAILED', message);
      this.opts.log?.(message);
      markFailed(this.fatal);
      this.killProc(proc);
    };

    const reader = new FrameReader(
      {
        maxJson: MAX_JSON_FRAME,
        maxBinary: () => (proc.phase === 'snapshot-bytes' ? (proc.snapshotMeta?.size ?? 0) : 0),
      },
      {
        onViolation: violation,
        onBinary: (bytes) => {
          if (proc.phase !== 'snapshot-bytes' || bytes.length !== proc.snapshotMeta?.size) {
            return violation('unexpected binary frame');
          }
          const bad = checkSnapshot(bytes);
          if (bad) return violation(`the snapshot is not valid (${bad})`);
          this.statsData.snapshotMs = proc.snapshotMeta.ms;
          this.snapshots.write(bytes);
          proc.phase = 'booting';
        },
        onJson: (raw) => {
          if (this.proc !== proc || !proc.alive) return;
          const parsed = SandboxMessageSchema.safeParse(raw);
          if (!parsed.success) {
            const type = raw && typeof raw === 'object' ? (raw as { type?: unknown }).type : undefined;
            const issue = parsed.error.issues[0];
            return violation(
              `a malformed or unknown message ${JSON.stringify(type)?.slice(0, 40)} (${issue?.path.join('.')}: ${issue?.message})`,
            );
          }
          const m = parsed.data;
          switch (m.type) {
            case 'hello': {
              if (proc.phase !== 'hello') return violation('a second hello');
              this.statsData.selfCheck = m.self_check;
              const reached = probes.hits > hitsBefore;
              const iso = handle.isolation;
              const tcpOpen = m.self_check.tcp === 'connected' || (reached && iso.blocks_tcp);
              const unixOpen = m.self_check.unix === 'connected';
              if (iso.blocks_tcp && tcpOpen) {
                return refuseToRun(
                  `The Python sandbox is not isolated from the network: the ${iso.method} sandbox should block it, but a connection reached the app. Code will not run.`,
                );
              }
              if (iso.blocks_unix && unixOpen) {
                return refuseToRun(
                  `The Python sandbox can reach UNIX sockets although ${iso.method} should block them. Code will not run.`,
                );
              }
              const accepted =
                typeof this.opts.allowInProcessIsolation === 'function'
                  ? this.opts.allowInProcessIsolation()
                  : this.opts.allowInProcessIsolation === true;
              if (iso.method === 'none' && !accepted) {
                // Not final: the user may accept in-process isolation, and the next run starts over.
                const err = new AppError(
                  'SANDBOX_FAILED',
                  `The operating system cannot take the network away from the Python sandbox here (${iso.detail}). Install bubblewrap, or accept in-process isolation only (Settings → Python sandbox, or SKILLDESK_SANDBOX_ISOLATION=in-process).`,
                );
                this.opts.log?.(err.message);
                markFailed(err);
                this.killProc(proc);
                return;
              }
              const cached = early === undefined ? readPacked() : early;
              early = undefined;
              proc.usedCache = cached !== null;
              proc.phase = cached ? 'booting' : 'snapshot';
              this.sendTo(
                proc,
                {
                  type: 'init',
                  pyodideDir: `${pyodideDir()}/`,
                  pyodideUrl: `${pathToFileURL(pyodideDir()).href}/`,
                  spares: Math.max(1, Math.min(4, this.opts.spares ?? 1)),
                  reuse: (this.opts.reuse ?? 'memory') === 'memory',
                  maxReuses: Math.max(1, Math.min(10_000, this.opts.maxReuses ?? 100)),
                  rssLimitMb: this.opts.rssLimitMb ?? 1536,
                  maxResultBytes: MAX_LIMITS.result_bytes,
                  snapshot_bytes: cached ? cached.length : 0,
                  snapshot_sparse: cached !== null,
                  ...(componentDir ? { componentDir: `${componentDir}/` } : {}),
                },
                cached ?? undefined,
              );
              this.statsData.snapshotFromCache = cached !== null;
              if (cached) this.statsData.snapshotMs = 0;
              return;
            }
            case 'snapshot': {
              // Only from a process that builds one and has run no job (no attacker code yet).
              if (proc.phase !== 'snapshot' || proc.ranJob) return violation('unexpected snapshot');
              proc.snapshotMeta = { ms: m.ms, size: m.size };
              proc.phase = 'snapshot-bytes';
              return;
            }
            case 'worker-ready': {
              if (proc.phase !== 'booting' && proc.phase !== 'ready') {
                return violation('unexpected worker-ready');
              }
              if (m.reused) {
                if (!sawReady) return violation('a reused worker before the first one was ready');
                this.statsData.workerResets++;
                this.statsData.workerResetMs = [...this.statsData.workerResetMs.slice(-199), m.ms];
                return;
              }
              this.statsData.workersBooted++;
              this.statsData.workerBootMs = [...this.statsData.workerBootMs.slice(-49), m.ms];
              if (!sawReady) {
                sawReady = true;
                proc.phase = 'ready';
                this.statsData.coldStartMs = performance.now() - spawnedAt;
                markReady();
              }
              return;
            }
            case 'host': {
              // A host call only inside the open run, one at a time, with ever larger ids.
              const run = proc.runs.get(m.parent);
              if (proc.phase !== 'ready' || !proc.ranJob || !run) {
                return violation('unexpected host call');
              }
              const n = m.id.startsWith(SANDBOX_ID_PREFIX.process)
                ? Number(m.id.slice(SANDBOX_ID_PREFIX.process.length))
                : Number.NaN;
              if (run.hostCall !== null || !Number.isSafeInteger(n) || n <= proc.lastHostCall) {
                return violation('host call out of sequence');
              }
              run.hostCall = m.id;
              proc.lastHostCall = n;
              proc.peer.receive(wireToRpc(m));
              return;
            }
            case 'result': {
              if (!proc.ranJob || !proc.runs.has(m.id) || !proc.peer.isOpen(m.id))
                return violation('unexpected result');
              proc.runs.delete(m.id);
              proc.peer.receive(wireToRpc(m));
              return;
            }
            case 'fatal': {
              const err = new AppError('SANDBOX_FAILED', `The Python sandbox cannot start: ${m.message}`);
              // A lockdown failure will not fix itself: refuse every later run too.
              if (/not locked down/.test(m.message)) this.fatal = err;
              this.opts.log?.(err.message);
              markFailed(err);
              if (proc.ranJob) this.failRunsOf(proc, 'SANDBOX_FAILED', err.message);
              this.killProc(proc);
              return;
            }
            default:
              return assertNever(m);
          }
        },
      },
    );
    // Nothing the process sends may throw into the app: a bug in a check is a violation, not a crash.
    handle.onData((chunk) => {
      try {
        reader.push(chunk);
      } catch (e) {
        violation(`the app could not handle a message (${(e as Error)?.message ?? e})`);
      }
    });
    handle.onExit((code, signal) => {
      proc.alive = false;
      if (this.proc === proc) this.proc = null;
      const why = `sandbox process exited (${signal ?? code})`;
      // A process that dies before its first worker is ready after booting from the cached
      // snapshot must not boot from it again: rebuild it next time.
      if (!sawReady && proc.usedCache) this.snapshots.drop();
      markFailed(this.fatal ?? new AppError('SANDBOX_FAILED', `${why}: ${handle.stderrTail().slice(-500)}`));
      if (proc.ranJob) this.failRunsOf(proc, 'SANDBOX_FAILED', why);
      proc.peer.close(new AppError('SANDBOX_FAILED', why));
      this.pump();
    });
    return proc;
  }

  /** The component folder, created if missing (bubblewrap cannot bind a folder that does not exist). */
  private componentDirReady(): string | null {
    const dir = this.opts.componentDir?.replace(/\/+$/, '');
    if (!dir) return null;
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      return dir;
    } catch (e) {
      this.opts.log?.(`components cannot run: ${(e as Error).message}`);
      return null;
    }
  }

  private sendTo(proc: Proc, message: AppMessage, binary?: Uint8Array): void {
    if (!proc.alive) return;
    for (const chunk of encodeFrames(message, binary)) proc.handle.write(chunk);
  }

  private killProc(proc: Proc): void {
    proc.alive = false;
    if (this.proc === proc) this.proc = null;
    proc.peer.close(new AppError('SANDBOX_FAILED', 'the sandbox process was stopped'));
    proc.handle.kill();
  }

  // --- the snapshot cache: written by the app only, checked before every use ---------------------------

  // --- jobs -----------------------------------------------------------------------------------------

  private pump(): void {
    if (this.closed) return;
    while (this.queue.size > 0 && this.canStartAnother()) {
      let starting: { ready: Promise<void> };
      try {
        starting = this.ensureProcess();
      } catch (e) {
        for (const p of this.queue.drain()) p.reject(e);
        return;
      }
      const job = this.queue.shift()!;
      this.running.add(job);
      this.dispatch(job, starting);
    }
    this.scheduleSideCheck();
  }

  /**
   * Whether another queued run may start now. Runs go one at a time (one warm worker serves them in
   * milliseconds); only when every running run has held the queue for SIDE_BY_SIDE_MS does another
   * start beside it in a worker of its own, up to MAX_RUNNING, so a long run in one chat never
   * holds every other chat's Python.
   */
  private canStartAnother(): boolean {
    if (this.running.size === 0) return true;
    if (this.running.size >= MAX_RUNNING) return false;
    const now = performance.now();
    for (const j of this.running) {
      if (j.sentAt === undefined || now - j.sentAt < SIDE_BY_SIDE_MS) return false;
    }
    return true;
  }

  /** Look at the queue again when the running runs will have held it long enough. */
  private scheduleSideCheck(): void {
    if (this.sideTimer) clearTimeout(this.sideTimer);
    this.sideTimer = null;
    if (this.closed || this.queue.size === 0 || this.running.size === 0) return;
    if (this.running.size >= MAX_RUNNING) return;
    let latest = 0;
    for (const j of this.running) {
      if (j.sentAt === undefined) return; // re-checked when it is sent
      latest = Math.max(latest, j.sentAt + SIDE_BY_SIDE_MS);
    }
    this.sideTimer = setTimeout(
      () => {
        this.sideTimer = null;
        this.pump();
      },
      Math.max(0, latest - performance.now()) + 1,
    );
    this.sideTimer.unref?.();
  }

  private dispatch(job: Pending, starting: { ready: Promise<void> }): void {
    starting.ready.then(
      () => {
        if (!this.running.has(job)) return;
        const proc = this.proc;
        if (!proc?.alive || proc.phase !== 'ready') {
          // The process died between ready and now: start over with this job first.
          this.running.delete(job);
          this.queue.unshift(job.key, job);
          queueMicrotask(() => this.pump());
          return;
        }
        proc.ranJob = true;
        job.proc = proc;
        job.sentAt = performance.now();
        // The peer's timeout is the app's own backstop: the process should answer by the deadline
        // plus grace; one that does not is killed.
        const files = job.component ? [] : (job.opts.files ?? []);
        const call = proc.peer.request(
          job.component ? 'component' : 'run',
          job.component
            ? { sha256: job.component, input: job.code, limits: job.limits }
            : {
                code: job.code,
                limits: job.limits,
                ...(files.length
                  ? {
                      files: files.map((f) => ({
                        path: f.path,
                        size: f.bytes.byteLength,
                        ...(f.writable ? { writable: true } : {}),
                      })),
                    }
                  : {}),
              },
          { timeoutMs: job.limits.timeout_ms + job.limits.grace_ms + BACKSTOP_MS, context: job },
        );
        // The peer wrote the run's frame synchronously: the files' bytes follow it on the pipe.
        for (const f of files) {
          for (let at = 0; at < f.bytes.byteLength; at += RUN_FILE_CHUNK) {
            const chunk = f.bytes.subarray(at, Math.min(f.bytes.byteLength, at + RUN_FILE_CHUNK));
            for (const frame of encodeBinaryFrame(chunk)) proc.handle.write(frame);
          }
        }
        proc.runs.set(call.id, { hostCall: null });
        job.runId = call.id;
        call.result.then(
          (r) => {
            // Checked against RunResultSchema on arrival (protocol.ts).
            if (this.running.has(job)) this.onResult(job, r as RunResult);
          },
          (e) => this.onRunFailed(proc, job, e),
        );
        this.scheduleSideCheck();
      },
      (e) => {
        if (!this.running.has(job)) return;
        this.running.delete(job);
        job.reject(isAppError(e) ? e : new AppError('SANDBOX_FAILED', String(e)));
        this.pump();
      },
    );
  }

  /** End every run the process `proc` was serving with a typed failure. */
  private failRunsOf(proc: Proc, code: SandboxError['code'], message: string): void {
    for (const job of [...this.running]) {
      if (job.proc === proc) this.finish(job, this.failure(job, code, 'SandboxFault', message));
    }
  }

  /** A `run` call that ended without a result: the backstop fired, or the process refused it. */
  private onRunFailed(proc: Proc, job: Pending, e: unknown): void {
    if (!this.running.has(job)) return; // already settled (the process died or broke the protocol)
    if (job.runId) proc.runs.delete(job.runId);
    if (isAppError(e, 'SANDBOX_TIMEOUT') && e.details?.backstop === true) {
      this.opts.log?.('sandbox process did not answer in time: killing it');
      this.finish(
        job,
        this.failure(job, 'SANDBOX_TIMEOUT', 'Timeout', `timed out after ${job.limits.timeout_ms} ms`),
      );
      this.killProc(proc);
      return;
    }
    const err = isAppError(e) ? e : new AppError('SANDBOX_FAILED', String(e));
    const code = (SANDBOX_ERROR_CODES as readonly string[]).includes(err.code) ? err.code : 'SANDBOX_FAILED';
    this.finish(job, this.failure(job, code as SandboxError['code'], 'SandboxFault', err.message));
  }

  /**
   * Answer a host call of the open run (the peer sends the value, or the AppError as an error
   * Python raises as `SkillDeskError`).
   */
  private async onHostCall(proc: Proc, params: unknown, call: IncomingCall): Promise<unknown> {
    try {
      const job = call.parent as Pending | undefined;
      if (!job || !this.running.has(job)) throw new AppError('CANCELLED', 'the run is over');
      // Checked against HostParamsSchema on arrival (protocol.ts).
      return await this.hostCall(job, (params as { request: string }).request);
    } finally {
      const job = call.parent as Pending | undefined;
      const run = job?.runId ? proc.runs.get(job.runId) : undefined;
      if (run?.hostCall === call.id) run.hostCall = null;
    }
  }

  private async hostCall(job: Pending, request: string): Promise<unknown> {
    // Sizes and depth are checked on the text before it is parsed (the process checked them too).
    if (jsonDepth(request, MAX_DEPTH) > MAX_DEPTH) {
      throw new AppError('INVALID_INPUT', `a host call is nested deeper than ${MAX_DEPTH} levels`);
    }
    let fn = '';
    let args: unknown[] = [];
    try {
      const parsed = JSON.parse(request) as { fn: unknown; args: unknown };
      if (!parsed || typeof parsed.fn !== 'string' || !Array.isArray(parsed.args)) throw new Error('shape');
      fn = parsed.fn.slice(0, 100);
      args = parsed.args;
    } catch {
      throw new AppError('INVALID_INPUT', 'malformed host call');
    }
    try {
      let value: unknown;
      if (fn === 'checkpoint') {
        if (job.checkpoints.length >= MAX_CHECKPOINTS) {
          throw new AppError('SANDBOX_LIMIT', `at most ${MAX_CHECKPOINTS} checkpoints per run`);
        }
        if (job.checkpointBytes + request.length > CHECKPOINT_BUDGET) {
          throw new AppError(
            'SANDBOX_LIMIT',
            `checkpoints of one run may hold at most ${CHECKPOINT_BUDGET} bytes`,
          );
        }
        job.checkpointBytes += request.length;
        job.checkpoints.push(args[0] ?? null);
        job.opts.onCheckpoint?.(args[0] ?? null);
        value = null;
      } else if (job.opts.host) {
        value = await job.opts.host.call(fn, args);
      } else {
        throw new AppError(
          'HANDLER_NOT_AVAILABLE',
          `${fn} is not available: no host functions were given to this run`,
        );
      }
      return value ?? null;
    } catch (e) {
      if (isAppError(e)) throw e;
      this.opts.log?.(`sandbox host function ${fn} failed: ${(e as Error)?.stack ?? e}`);
      throw new AppError('INTERNAL', 'host function failed');
    }
  }

  private onResult(job: Pending, r: RunResult): void {
    let result: unknown = null;
    if (
      typeof r.result === 'string' &&
      r.result.length <= job.limits.result_bytes &&
      jsonDepth(r.result, MAX_DEPTH) <= MAX_DEPTH
    ) {
      try {
        result = JSON.parse(r.result);
      } catch {
        result = null;
      }
    }
    const cap = job.limits.output_bytes;
    const marker = (text: string, cut: boolean) =>
      `${text.slice(0, cap)}${cut ? `\n[output truncated at ${cap} bytes]\n` : ''}`;
    this.statsData.runs++;
    if (job.proc && typeof r.process_rss_mb === 'number') job.proc.rssMb = r.process_rss_mb;
    this.finish(job, {
      ok: r.ok,
      result,
      submitted: r.submitted,
      stdout: marker(r.stdout, r.truncated.stdout),
      stderr: marker(r.stderr, r.truncated.stderr),
      stdout_truncated: r.truncated.stdout,
      stderr_truncated: r.truncated.stderr,
      error: sanitizeError(r.error),
      duration_ms: 0,
      checkpoints: job.checkpoints,
      host_calls: r.host_calls,
      llm: emptyUsage(),
      limits: job.limits,
      timing: {
        wait_ms: r.wait_ms,
        run_ms: r.run_ms,
        worker_boot_ms: r.worker_boot_ms,
        worker_id: r.worker_id,
        worker_run: r.worker_run,
      },
    });
  }

  /**
   * Threads that ended leave memory with the allocator that the process never gives back, so a
   * process that started many workers only grows. Once it holds more than half its memory cap it is
   * stopped while idle (nothing running or queued, so no run is lost) and the next run starts a new
   * one: no sequence of runs can push a later one into the cap.
   */
  private recycleIfBloated(proc: Proc | undefined): void {
    if (!proc?.alive || this.proc !== proc) return;
    const capMb = this.opts.rssLimitMb ?? 1536;
    if (proc.rssMb < capMb / 2 || this.running.size > 0 || this.queue.size > 0) return;
    this.opts.log?.(`sandbox process ${proc.handle.pid} holds ${proc.rssMb} MB: restarting it while idle`);
    this.statsData.recycles++;
    this.killProc(proc);
  }

  private failure(
    job: Pending | null,
    code: SandboxError['code'],
    type: string,
    message: string,
  ): SandboxRunResult {
    return {
      ok: false,
      result: null,
      submitted: false,
      stdout: '',
      stderr: '',
      stdout_truncated: false,
      stderr_truncated: false,
      error: { type, message, code },
      duration_ms: 0,
      checkpoints: job?.checkpoints ?? [],
      host_calls: 0,
      llm: emptyUsage(),
      limits: job?.limits ?? this.defaults,
      timing: { wait_ms: 0, run_ms: 0, worker_boot_ms: 0 },
    };
  }

  private finish(job: Pending, result: SandboxRunResult): void {
    if (!this.running.delete(job)) return;
    result.duration_ms = performance.now() - job.enqueuedAt;
    result.llm = job.opts.host?.usage?.() ?? result.llm;
    job.resolve(result);
    this.recycleIfBloated(job.proc);
    queueMicrotask(() => this.pump());
  }
}

function emptyUsage() {
  return { calls: 0, input_tokens: 0, output_tokens: 0, models: [] };
}

function sanitizeError(e: unknown): SandboxError | null {
  if (!e || typeof e !== 'object') return null;
  const o = e as Record<string, unknown>;
  const out: SandboxError = {
    type: typeof o.type === 'string' ? o.type.slice(0, 200) : 'Exception',
    message: typeof o.message === 'string' ? o.message : String(o.message ?? ''),
  };
  if (typeof o.code === 'string' && /^[A-Z_]+$/.test(o.code)) out.code = o.code as SandboxError['code'];
  if (typeof o.traceback === 'string' && o.traceback) out.traceback = o.traceback;
  return out;
}

/** Create a pool and start warming it in the background (errors surface on the first run). */
export function createSandboxPool(opts: SandboxPoolOptions = {}): SandboxPool {
  const pool = new SandboxPool(opts);
  pool.warmup().catch(() => {});
  return pool;
}
