import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AppError, isAppError } from '../contract/errors.js';
import { resolveLimits, type SandboxLimits, type SandboxLimitsOverride } from './limits.js';
import { spawnNodeSandbox } from './spawn.js';
import type {
  SandboxError,
  SandboxProcessHandle,
  SandboxRunOptions,
  SandboxRunResult,
  SpawnSandboxProcess,
} from './types.js';

/** The folder holding the sandbox process and worker scripts. */
export const RUNTIME_DIR = join(dirname(fileURLToPath(import.meta.url)), 'runtime');

/** The folder of the installed `pyodide` package. */
export function pyodideDir(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('pyodide/package.json'));
}

/** Options of {@link SandboxPool}. */
export interface SandboxPoolOptions {
  /** Starts the sandbox process (default: a Node process with the permission model). */
  spawn?: SpawnSandboxProcess;
  /** Workers kept booted and waiting (more = better bursts, more memory). Default 1. */
  spares?: number;
  /** Default limits for every run (artifact metadata and callers override them). */
  limits?: SandboxLimitsOverride;
  /** Where to keep the Pyodide memory snapshot between app runs (skips the ~4 s cold start). */
  cacheDir?: string;
  /** Whole-process memory cap checked while a job runs (MB). Default 1536. */
  rssLimitMb?: number;
  /** Called with diagnostics (process restarts, snapshot writes). */
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
  runs: number;
}

interface Pending {
  id: number;
  code: string;
  limits: SandboxLimits;
  opts: SandboxRunOptions;
  enqueuedAt: number;
  resolve: (r: SandboxRunResult) => void;
  reject: (e: unknown) => void;
  checkpoints: unknown[];
  backstop?: NodeJS.Timeout;
}

interface Proc {
  handle: SandboxProcessHandle;
  spawnedAt: number;
  ready: Promise<void>;
  alive: boolean;
}

const MAX_CHECKPOINTS = 100;
const BACKSTOP_MS = 3_000;

/**
 * A pool of pre-warmed Pyodide workers inside one locked-down sandbox process. Runs execute one at
 * a time, each in a fresh worker that is terminated afterwards; a run that breaks a limit (or kills
 * the process) ends with a typed error in its result and the pool keeps serving.
 */
export class SandboxPool {
  private readonly spawn: SpawnSandboxProcess;
  private readonly defaults: SandboxLimits;
  private proc: Proc | null = null;
  private readonly queue: Pending[] = [];
  private current: Pending | null = null;
  private nextId = 1;
  private closed = false;
  private fatal: AppError | null = null;
  private readonly statsData: SandboxPoolStats = {
    pid: undefined,
    processStarts: 0,
    coldStartMs: null,
    snapshotMs: null,
    snapshotFromCache: false,
    workerBootMs: [],
    runs: 0,
  };

  constructor(private readonly opts: SandboxPoolOptions = {}) {
    this.spawn = opts.spawn ?? spawnNodeSandbox;
    this.defaults = resolveLimits(opts.limits);
  }

  /** Start the sandbox process (if needed) and wait for its first warm worker. */
  async warmup(): Promise<void> {
    await this.ensureProcess().ready;
  }

  /** Figures for benchmarks and diagnostics. */
  stats(): SandboxPoolStats {
    return { ...this.statsData, workerBootMs: [...this.statsData.workerBootMs] };
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
    return new Promise((resolve, reject) => {
      this.queue.push({
        id: this.nextId++,
        code,
        limits,
        opts,
        enqueuedAt: performance.now(),
        resolve,
        reject,
        checkpoints: [],
      });
      this.pump();
    });
  }

  /** Stop the sandbox process; pending runs are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.reject(new AppError('CANCELLED', 'The sandbox pool was closed'));
    if (this.current)
      this.finishCurrent(this.failure('CANCELLED', 'SandboxFault', 'The sandbox pool was closed'));
    const proc = this.proc;
    this.proc = null;
    if (proc?.alive) {
      const exited = new Promise<void>((r) => proc.handle.onExit(() => r()));
      proc.handle.kill();
      await Promise.race([exited, new Promise((r) => setTimeout(r, 2000))]);
    }
  }

  // --- process lifecycle ----------------------------------------------------------------------------

  private ensureProcess(): Proc {
    if (this.fatal) throw this.fatal;
    if (this.proc?.alive) return this.proc;
    const spawnedAt = performance.now();
    const handle = this.spawn({
      entry: join(RUNTIME_DIR, 'process.mjs'),
      readPaths: [`${RUNTIME_DIR}/`, `${pyodideDir()}/`],
      maxOldSpaceMb: 512,
    });
    this.statsData.processStarts++;
    this.statsData.pid = handle.pid;
    let markReady: () => void = () => {};
    let markFailed: (e: unknown) => void = () => {};
    const ready = new Promise<void>((res, rej) => {
      markReady = res;
      markFailed = rej;
    });
    ready.catch(() => {});
    const proc: Proc = { handle, spawnedAt, ready, alive: true };
    this.proc = proc;
    const cached = this.readSnapshot();
    let sawReady = false;
    handle.onMessage((m) => {
      if (this.proc !== proc || !m || typeof m !== 'object') return;
      const msg = m as Record<string, unknown>;
      switch (msg.type) {
        case 'hello':
          handle.send({
            type: 'init',
            pyodideDir: `${pyodideDir()}/`,
            pyodideUrl: `${pathToFileURL(pyodideDir()).href}/`,
            spares: Math.max(1, Math.min(4, this.opts.spares ?? 1)),
            rssLimitMb: this.opts.rssLimitMb ?? 1536,
            snapshot: cached ?? undefined,
          });
          this.statsData.snapshotFromCache = cached !== null;
          if (cached) this.statsData.snapshotMs = 0;
          break;
        case 'snapshot':
          this.statsData.snapshotMs = Number(msg.ms);
          this.writeSnapshot(msg.bytes);
          break;
        case 'worker-ready':
          this.statsData.workerBootMs = [...this.statsData.workerBootMs.slice(-49), Number(msg.ms)];
          if (!sawReady) {
            sawReady = true;
            this.statsData.coldStartMs = performance.now() - spawnedAt;
            markReady();
          }
          break;
        case 'host':
          void this.onHostCall(proc, msg);
          break;
        case 'result':
          this.onResult(msg);
          break;
        case 'fatal': {
          const err = new AppError(
            'SANDBOX_FAILED',
            `The Python sandbox cannot start: ${String(msg.message)}`,
          );
          // A lockdown failure will not fix itself: refuse every later run too.
          if (/not locked down/.test(String(msg.message))) this.fatal = err;
          markFailed(err);
          this.opts.log?.(err.message);
          break;
        }
        default:
          break;
      }
    });
    handle.onExit((code, signal) => {
      proc.alive = false;
      if (this.proc === proc) this.proc = null;
      const why = `sandbox process exited (${signal ?? code})`;
      markFailed(this.fatal ?? new AppError('SANDBOX_FAILED', `${why}: ${handle.stderrTail().slice(-500)}`));
      if (this.current) {
        this.finishCurrent(this.failure('SANDBOX_FAILED', 'SandboxFault', why));
      }
      this.pump();
    });
    return proc;
  }

  private snapshotFile(): string | null {
    if (!this.opts.cacheDir) return null;
    const h = createHash('sha256');
    for (const f of ['worker.mjs', 'prelude.py']) h.update(readFileSync(join(RUNTIME_DIR, f)));
    const version = JSON.parse(readFileSync(join(pyodideDir(), 'package.json'), 'utf8')).version as string;
    h.update(version).update(process.versions.v8);
    return join(this.opts.cacheDir, `pyodide-${version}-${h.digest('hex').slice(0, 16)}.snapshot`);
  }

  private readSnapshot(): Uint8Array | null {
    try {
      const file = this.snapshotFile();
      if (!file || !existsSync(file)) return null;
      return new Uint8Array(readFileSync(file));
    } catch {
      return null;
    }
  }

  private writeSnapshot(bytes: unknown): void {
    try {
      const file = this.snapshotFile();
      if (!file || !(bytes instanceof Uint8Array)) return;
      mkdirSync(dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, bytes);
      renameSync(tmp, file);
      this.opts.log?.(`sandbox snapshot cached in ${file}`);
    } catch (e) {
      this.opts.log?.(`could not cache the sandbox snapshot: ${(e as Error).message}`);
    }
  }

  // --- jobs -----------------------------------------------------------------------------------------

  private pump(): void {
    if (this.current || this.queue.length === 0 || this.closed) return;
    let proc: Proc;
    try {
      proc = this.ensureProcess();
    } catch (e) {
      for (const p of this.queue.splice(0)) p.reject(e);
      return;
    }
    const job = this.queue.shift()!;
    this.current = job;
    proc.ready.then(
      () => {
        if (this.current !== job) return;
        proc.handle.send({ type: 'run', id: job.id, code: job.code, limits: job.limits });
        // Backstop: the process should answer by the deadline plus grace; if not, kill it.
        job.backstop = setTimeout(
          () => {
            if (this.current !== job) return;
            this.opts.log?.('sandbox process did not answer in time: killing it');
            this.finishCurrent(
              this.failure('SANDBOX_TIMEOUT', 'Timeout', `timed out after ${job.limits.timeout_ms} ms`),
            );
            proc.handle.kill();
          },
          job.limits.timeout_ms + job.limits.grace_ms + BACKSTOP_MS,
        );
      },
      (e) => {
        if (this.current !== job) return;
        this.current = null;
        job.reject(isAppError(e) ? e : new AppError('SANDBOX_FAILED', String(e)));
        if (this.proc === proc) {
          proc.handle.kill();
          this.proc = null;
        }
        this.pump();
      },
    );
  }

  private async onHostCall(proc: Proc, msg: Record<string, unknown>): Promise<void> {
    const job = this.current;
    const reply = (value: unknown) =>
      proc.handle.send({ type: 'host-reply', id: msg.id, seq: msg.seq, reply: value });
    if (!job || job.id !== msg.id) return;
    let fn = '';
    let args: unknown[] = [];
    try {
      const parsed = JSON.parse(String(msg.request)) as { fn: unknown; args: unknown };
      fn = String(parsed.fn);
      args = Array.isArray(parsed.args) ? parsed.args : [];
    } catch {
      reply({ ok: false, error: { code: 'INVALID_INPUT', message: 'malformed host call' } });
      return;
    }
    try {
      let value: unknown;
      if (fn === 'checkpoint') {
        if (job.checkpoints.length >= MAX_CHECKPOINTS) {
          throw new AppError('SANDBOX_LIMIT', `at most ${MAX_CHECKPOINTS} checkpoints per run`);
        }
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
      const text = JSON.stringify({ ok: true, value: value ?? null });
      if (this.current === job) reply(text);
    } catch (e) {
      const err = isAppError(e) ? e : new AppError('INTERNAL', 'host function failed');
      if (!isAppError(e)) this.opts.log?.(`sandbox host function ${fn} failed: ${(e as Error)?.stack ?? e}`);
      if (this.current === job) reply({ ok: false, error: { code: err.code, message: err.message } });
    }
  }

  private onResult(msg: Record<string, unknown>): void {
    const job = this.current;
    if (!job || job.id !== msg.id) return;
    const r = msg.result as Record<string, unknown>;
    const truncated = (r.truncated ?? {}) as { stdout?: boolean; stderr?: boolean };
    let result: unknown = null;
    if (typeof r.result === 'string') {
      try {
        result = JSON.parse(r.result);
      } catch {
        result = null;
      }
    }
    const marker = (text: unknown, cut: boolean | undefined) =>
      `${String(text ?? '')}${cut ? `\n[output truncated at ${job.limits.output_bytes} bytes]\n` : ''}`;
    this.statsData.runs++;
    this.finishCurrent({
      ok: r.ok === true,
      result,
      submitted: r.submitted === true,
      stdout: marker(r.stdout, truncated.stdout),
      stderr: marker(r.stderr, truncated.stderr),
      stdout_truncated: truncated.stdout === true,
      stderr_truncated: truncated.stderr === true,
      error: sanitizeError(r.error),
      duration_ms: 0,
      checkpoints: job.checkpoints,
      host_calls: Number(r.host_calls ?? 0),
      llm: emptyUsage(),
      limits: job.limits,
      timing: {
        wait_ms: Number(r.wait_ms ?? 0),
        run_ms: Number(r.run_ms ?? 0),
        worker_boot_ms: Number(r.worker_boot_ms ?? 0),
      },
    });
  }

  private failure(code: SandboxError['code'], type: string, message: string): SandboxRunResult {
    const job = this.current;
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

  private finishCurrent(result: SandboxRunResult): void {
    const job = this.current;
    if (!job) return;
    this.current = null;
    if (job.backstop) clearTimeout(job.backstop);
    result.duration_ms = performance.now() - job.enqueuedAt;
    result.llm = job.opts.host?.usage?.() ?? result.llm;
    job.resolve(result);
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
