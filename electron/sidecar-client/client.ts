import { type ChildProcess, spawn as nodeSpawn } from 'node:child_process';
import { AppError, ERROR_CODES, type ErrorCode, isAppError } from '../contract/errors.js';
import {
  defaultSidecarDataDir,
  type ResolveSidecarOptions,
  resolveSidecarCommand,
  type SidecarCommand,
  sidecarEnv,
} from './command.js';
import {
  type ExecuteReq,
  type ExecuteRes,
  type LmRequest,
  LmRequestSchema,
  type LmResponse,
  LmResponseSchema,
  type ManifestRes,
  type OptimizeProgress,
  OptimizeProgressSchema,
  type OptimizeReq,
  type OptimizeRes,
  RESULT_SCHEMAS,
  SIDECAR_PROTOCOL_VERSION,
  type SidecarLine,
  SidecarLineSchema,
  type SidecarMethod,
  type SidecarMethodMap,
  type SidecarUsage,
  type VersionRes,
} from './protocol.js';

/** What the LM handler learns about the call besides the request. */
export interface LmCallContext {
  /** Aborted when the sidecar request is cancelled, times out or the sidecar dies. */
  signal: AbortSignal;
  /** The sidecar method the completion is for. */
  method: 'execute' | 'optimize';
}

/**
 * Answers the sidecar's completion requests through the main process's provider layer
 * (keys, usage, cost, traces live there). Throw an AppError to fail the call with its code.
 */
export type LmHandler = (req: LmRequest, ctx: LmCallContext) => Promise<LmResponse>;

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's timeout for this call. */
  timeoutMs?: number;
}

/** Options of {@link createSidecarClient}. */
export interface SidecarClientOptions extends ResolveSidecarOptions {
  /** Answers every LM completion the sidecar asks for. */
  lm: LmHandler;
  /** How to start the sidecar; `null` means none is installed. Default: {@link resolveSidecarCommand}. */
  command?: SidecarCommand | null;
  /** Folder for the sidecar's caches (DSPY_CACHEDIR). */
  dataDir?: string;
  /** The environment the allow-list is taken from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Start-up handshake (DSPy import included). Default 60 s. */
  startTimeoutMs?: number;
  /** Default timeout of `execute`/`manifest`. Default 120 s. */
  requestTimeoutMs?: number;
  /** Default timeout of `optimize`. Default 30 min. */
  optimizeTimeoutMs?: number;
  /** Stop the process after this long without requests. Default 5 min; 0 disables. */
  idleTimeoutMs?: number;
  /** After a timed-out or cancelled request, how long the sidecar has to let go before it is killed. Default 10 s. */
  cancelGraceMs?: number;
  /** How long a clean shutdown may take before the process is killed. Default 3 s. */
  shutdownTimeoutMs?: number;
  /** Restart back-off after consecutive failures: 0, then initial, doubling up to max. Defaults 1 s / 30 s. */
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  /** Longest accepted line from the sidecar. Default 16 MiB. */
  maxLineBytes?: number;
  /** Sidecar stderr and client diagnostics. */
  log?: (line: string) => void;
  /** Injected for tests. */
  spawn?: typeof nodeSpawn;
  now?: () => number;
}

/** Lifecycle of the sidecar process as the client sees it. */
export type SidecarState = 'stopped' | 'starting' | 'running' | 'backoff' | 'disposed';

/** A snapshot of the client (no I/O). */
export interface SidecarStatus {
  state: SidecarState;
  pid?: number;
  command?: SidecarCommand;
  version?: VersionRes;
  inFlight: number;
  restarts: number;
  consecutiveFailures: number;
  /** Why the last start or run failed. */
  lastError?: { code: ErrorCode; message: string };
  /** When `state` is `backoff`: milliseconds until the next start is allowed. */
  retryInMs?: number;
}

/** The main-process client of the DSPy sidecar. */
export interface SidecarClient {
  /** Run a shipped template. SIDECAR_UNAVAILABLE means: run the fallback prompt template. */
  execute(req: ExecuteReq & CallOptions): Promise<ExecuteRes>;
  /** Compile a template on a training set; returns the new state blob. */
  optimize(
    req: OptimizeReq & CallOptions & { onProgress?: (p: OptimizeProgress) => void },
  ): Promise<OptimizeRes>;
  /** The shipped templates, metrics and optimizers. */
  manifest(opts?: CallOptions): Promise<ManifestRes>;
  /** Start (if needed) and return the versions from the handshake. */
  start(): Promise<VersionRes>;
  /** Health check: a round trip to the running sidecar (starts it if needed). */
  ping(opts?: CallOptions): Promise<void>;
  /** A snapshot of the lifecycle. */
  status(): SidecarStatus;
  /** Stop the process; the next request starts it again. */
  stop(): Promise<void>;
  /** Stop for good (app shutdown); later calls fail with SIDECAR_UNAVAILABLE. */
  dispose(): Promise<void>;
}

interface Pending {
  method: SidecarMethod;
  resolve: (value: unknown) => void;
  reject: (e: AppError) => void;
  timer?: NodeJS.Timeout;
  lmAbort: AbortController;
  usage: SidecarUsage;
  onProgress?: (p: OptimizeProgress) => void;
  cleanup: () => void;
}

const unavailable = (message: string, details?: Record<string, unknown>): AppError =>
  new AppError('SIDECAR_UNAVAILABLE', message, details);

const STDERR_TAIL = 20;

/** One spawned sidecar process and its in-flight requests. */
class Connection {
  readonly pending = new Map<string, Pending>();
  /** Requests given up on (timeout, abort) whose answer the sidecar still owes. */
  private readonly abandoned = new Map<string, NodeJS.Timeout>();
  private nextId = 0;
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private stderrPartial = '';
  readonly stderrTail: string[] = [];
  exited = false;
  version?: VersionRes;
  private readonly exitWaiters: Array<() => void> = [];

  constructor(
    readonly child: ChildProcess,
    private readonly opts: {
      maxLineBytes: number;
      cancelGraceMs: number;
      log: (line: string) => void;
      lm: LmHandler;
      onExit: (conn: Connection, reason: AppError) => void;
    },
  ) {
    child.stdout?.on('data', (chunk: Buffer) => this.onStdout(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.onStderr(chunk));
    child.stdin?.on('error', () => {}); // EPIPE after a crash surfaces through 'exit'
    child.on('error', (e) =>
      this.fail(unavailable(`the sidecar could not start: ${e.message}`, { reason: 'spawn' })),
    );
    child.on('exit', (code, signal) =>
      this.fail(
        unavailable(`the sidecar exited (${signal ?? `code ${code}`})`, {
          reason: 'exited',
          exitCode: code,
          signal,
          stderr: this.stderrTail.slice(-5),
        }),
      ),
    );
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Send a request; resolves with the validated result. */
  request<M extends SidecarMethod>(
    method: M,
    params: SidecarMethodMap[M]['params'],
    opts: { timeoutMs: number; signal?: AbortSignal; onProgress?: (p: OptimizeProgress) => void },
  ): { id: string; promise: Promise<SidecarMethodMap[M]['result']> } {
    const id = `n${++this.nextId}`;
    const promise = new Promise<SidecarMethodMap[M]['result']>((resolve, reject) => {
      if (this.exited) {
        reject(unavailable('the sidecar is not running', { reason: 'exited' }));
        return;
      }
      const onAbort = () => {
        this.settle(id, new AppError('CANCELLED', 'the sidecar request was cancelled'));
        this.abandon(id);
      };
      const entry: Pending = {
        method,
        resolve: resolve as (value: unknown) => void,
        reject,
        lmAbort: new AbortController(),
        usage: { lm_calls: 0, input_tokens: 0, output_tokens: 0 },
        onProgress: opts.onProgress,
        cleanup: () => {
          if (entry.timer) clearTimeout(entry.timer);
          opts.signal?.removeEventListener('abort', onAbort);
        },
      };
      if (opts.signal?.aborted) {
        reject(new AppError('CANCELLED', 'the sidecar request was cancelled'));
        return;
      }
      this.pending.set(id, entry);
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      if (opts.timeoutMs > 0 && Number.isFinite(opts.timeoutMs)) {
        entry.timer = setTimeout(() => {
          this.settle(
            id,
            unavailable(`the sidecar did not answer ${method} within ${opts.timeoutMs} ms`, {
              reason: 'timeout',
            }),
          );
          this.abandon(id);
        }, opts.timeoutMs);
      }
      this.write({ id, type: 'req', method, params });
    });
    return { id, promise };
  }

  /** Usage counted for an open request (read before it settles). */
  usageOf(id: string): SidecarUsage | undefined {
    return this.pending.get(id)?.usage;
  }

  /**
   * Tell the sidecar to drop a request the caller gave up on. It must answer (even with
   * CANCELLED) within the grace period, or the process is killed: a stuck worker is not kept.
   */
  private abandon(id: string): void {
    if (this.exited) return;
    const timer = setTimeout(() => {
      if (!this.abandoned.delete(id)) return;
      this.opts.log(`[sidecar-client] the sidecar did not let go of ${id}; restarting it`);
      this.kill();
    }, this.opts.cancelGraceMs);
    timer.unref();
    this.abandoned.set(id, timer);
    this.write({ id: `n${++this.nextId}`, type: 'req', method: 'cancel', params: { id } });
  }

  private write(message: unknown): void {
    if (this.exited || !this.child.stdin?.writable) return;
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Settle one request (first outcome wins) and release its LM calls. */
  private settle(id: string, outcome: AppError | { value: unknown }): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    entry.cleanup();
    entry.lmAbort.abort();
    if (outcome instanceof AppError) entry.reject(outcome);
    else entry.resolve(outcome.value);
  }

  private fail(reason: AppError): void {
    if (this.exited) return;
    this.exited = true;
    for (const timer of this.abandoned.values()) clearTimeout(timer);
    this.abandoned.clear();
    for (const id of [...this.pending.keys()]) this.settle(id, reason);
    for (const wake of this.exitWaiters.splice(0)) wake();
    this.opts.onExit(this, reason);
  }

  /** Resolves when the process has exited (or at once if it has). */
  waitForExit(): Promise<void> {
    if (this.exited || this.child.exitCode !== null || this.child.signalCode !== null)
      return Promise.resolve();
    return new Promise((resolve) => this.exitWaiters.push(resolve));
  }

  /** Close stdin (the sidecar exits at EOF); kill after `graceMs`. */
  async shutdown(graceMs: number): Promise<void> {
    if (this.exited) return;
    this.child.stdin?.end();
    const timer = setTimeout(() => this.kill(), graceMs);
    await this.waitForExit();
    clearTimeout(timer);
  }

  kill(): void {
    if (!this.exited) this.child.kill('SIGKILL');
  }

  private protocolViolation(message: string): void {
    this.opts.log(`[sidecar-client] protocol violation: ${message}`);
    this.kill();
    this.fail(unavailable(`the sidecar broke the protocol: ${message}`, { reason: 'protocol' }));
  }

  private onStdout(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) break;
      const piece = chunk.subarray(start, nl);
      const line = this.buffered.length ? Buffer.concat([...this.buffered, piece]) : piece;
      this.buffered = [];
      this.bufferedBytes = 0;
      if (line.length > this.opts.maxLineBytes) {
        this.protocolViolation('a line is too long');
        return;
      }
      this.onLine(line.toString('utf8'));
      if (this.exited) return;
      start = nl + 1;
    }
    if (start < chunk.length) {
      this.buffered.push(chunk.subarray(start));
      this.bufferedBytes += chunk.length - start;
      if (this.bufferedBytes > this.opts.maxLineBytes) this.protocolViolation('a line is too long');
    }
  }

  private onStderr(chunk: Buffer): void {
    const lines = (this.stderrPartial + chunk.toString('utf8')).split('\n');
    this.stderrPartial = (lines.pop() ?? '').slice(-10_000);
    for (const line of lines) {
      const text = line.slice(0, 2000);
      this.stderrTail.push(text);
      if (this.stderrTail.length > STDERR_TAIL) this.stderrTail.shift();
      this.opts.log(`[sidecar] ${text}`);
    }
  }

  private onLine(text: string): void {
    if (!text.trim()) return;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      this.opts.log(`[sidecar-client] ignoring a non-JSON line: ${text.slice(0, 200)}`);
      return;
    }
    const parsed = SidecarLineSchema.safeParse(raw);
    if (!parsed.success) {
      const id = (raw as { id?: unknown } | null)?.id;
      if (typeof id === 'string' && this.pending.has(id)) {
        this.settle(id, new AppError('SIDECAR_FAILED', 'the sidecar sent a malformed response', { id }));
      } else {
        this.opts.log(`[sidecar-client] ignoring a malformed message: ${text.slice(0, 200)}`);
      }
      return;
    }
    this.onMessage(parsed.data, raw as Record<string, unknown>);
  }

  private onMessage(msg: SidecarLine, raw: Record<string, unknown>): void {
    switch (msg.type) {
      case 'res': {
        if (msg.id === null) {
          this.opts.log(`[sidecar-client] the sidecar refused a message: ${msg.error?.message ?? '?'}`);
          return;
        }
        const entry = this.pending.get(msg.id);
        if (!entry) {
          // A late answer to a request given up on: the sidecar let go of it.
          clearTimeout(this.abandoned.get(msg.id));
          this.abandoned.delete(msg.id);
          return;
        }
        const hasResult = Object.hasOwn(raw, 'result');
        if (hasResult === (msg.error !== undefined)) {
          this.settle(msg.id, new AppError('SIDECAR_FAILED', 'the sidecar sent a malformed response'));
          return;
        }
        if (msg.error) {
          this.settle(msg.id, errorFromSidecar(msg.error));
          return;
        }
        const result = RESULT_SCHEMAS[entry.method].safeParse(msg.result);
        if (!result.success) {
          this.settle(
            msg.id,
            new AppError('SIDECAR_FAILED', `the sidecar's ${entry.method} result is malformed`, {
              issues: result.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`),
            }),
          );
          return;
        }
        let value: unknown = result.data;
        if (entry.method === 'execute' || entry.method === 'optimize') {
          value = { ...(result.data as ExecuteRes | OptimizeRes), usage: { ...entry.usage } };
        }
        this.settle(msg.id, { value });
        return;
      }
      case 'event': {
        const entry = this.pending.get(msg.parent);
        const progress = OptimizeProgressSchema.safeParse(msg.data);
        if (entry?.onProgress && progress.success) {
          try {
            entry.onProgress(progress.data);
          } catch (e) {
            this.opts.log(`[sidecar-client] a progress callback threw: ${String(e)}`);
          }
        }
        return;
      }
      case 'req':
        void this.onLmRequest(msg.id, msg.parent, msg.params);
        return;
    }
  }

  private async onLmRequest(id: string, parent: string, params: unknown): Promise<void> {
    const entry = this.pending.get(parent);
    if (!entry || (entry.method !== 'execute' && entry.method !== 'optimize')) {
      this.write({ id, type: 'res', error: { code: 'CANCELLED', message: 'no such open request' } });
      return;
    }
    const req = LmRequestSchema.safeParse(params);
    if (!req.success) {
      this.write({
        id,
        type: 'res',
        error: { code: 'INVALID_INPUT', message: 'malformed lm.complete params' },
      });
      return;
    }
    try {
      const answer = LmResponseSchema.parse(
        await this.opts.lm(req.data, { signal: entry.lmAbort.signal, method: entry.method }),
      );
      entry.usage.lm_calls += 1;
      entry.usage.input_tokens += answer.input_tokens ?? 0;
      entry.usage.output_tokens += answer.output_tokens ?? 0;
      this.write({ id, type: 'res', result: answer });
    } catch (e) {
      const err = isAppError(e)
        ? e
        : new AppError('LLM_FAILED', e instanceof Error ? e.message : String(e), { from: 'lm handler' });
      // Only code and message cross: details may hold provider data the sidecar has no need for.
      this.write({ id, type: 'res', error: { code: err.code, message: err.message } });
    }
  }
}

function errorFromSidecar(error: {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}): AppError {
  const known = (ERROR_CODES as readonly string[]).includes(error.code);
  const code: ErrorCode = known ? (error.code as ErrorCode) : 'SIDECAR_FAILED';
  const details = known ? error.details : { ...error.details, sidecarCode: error.code };
  return new AppError(code, error.message, details);
}

/**
 * Create the sidecar client. Nothing starts until the first request: the process starts lazily,
 * stops after `idleTimeoutMs`, restarts after a crash (with back-off after repeated failures)
 * and every failure to reach it is an `AppError('SIDECAR_UNAVAILABLE', …)`: the caller's cue to
 * run the artifact's fallback prompt template.
 */
export function createSidecarClient(opts: SidecarClientOptions): SidecarClient {
  const spawn = opts.spawn ?? nodeSpawn;
  const now = opts.now ?? Date.now;
  const log = opts.log ?? (() => {});
  const dataDir = opts.dataDir ?? defaultSidecarDataDir();
  const startTimeoutMs = opts.startTimeoutMs ?? 60_000;
  const requestTimeoutMs = opts.requestTimeoutMs ?? 120_000;
  const optimizeTimeoutMs = opts.optimizeTimeoutMs ?? 30 * 60_000;
  const idleTimeoutMs = opts.idleTimeoutMs ?? 5 * 60_000;
  const cancelGraceMs = opts.cancelGraceMs ?? 10_000;
  const shutdownTimeoutMs = opts.shutdownTimeoutMs ?? 3_000;
  const backoffInitialMs = opts.backoffInitialMs ?? 1_000;
  const backoffMaxMs = opts.backoffMaxMs ?? 30_000;
  const maxLineBytes = opts.maxLineBytes ?? 16 * 1024 * 1024;

  let conn: Connection | undefined;
  let starting: Promise<Connection> | undefined;
  let disposed = false;
  let restarts = 0;
  let started = 0;
  let consecutiveFailures = 0;
  let retryAt = 0;
  let lastError: AppError | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  let command: SidecarCommand | undefined;

  const resolveCommand = (): SidecarCommand | undefined =>
    opts.command === null ? undefined : (opts.command ?? resolveSidecarCommand(opts));

  const recordFailure = (e: AppError): void => {
    lastError = e;
    consecutiveFailures += 1;
    const delay =
      consecutiveFailures <= 1
        ? 0
        : Math.min(backoffMaxMs, backoffInitialMs * 2 ** (consecutiveFailures - 2));
    retryAt = now() + delay;
  };

  const onExit = (c: Connection, reason: AppError): void => {
    if (conn !== c) return;
    conn = undefined;
    clearIdle();
    const details = reason.details ?? {};
    if (!disposed && details.reason !== 'stopped') {
      log(`[sidecar-client] ${reason.message}`);
      recordFailure(reason);
    }
  };

  function clearIdle(): void {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = undefined;
  }

  function armIdle(): void {
    clearIdle();
    if (idleTimeoutMs <= 0 || !conn || conn.pending.size > 0) return;
    idleTimer = setTimeout(() => void stopProcess(), idleTimeoutMs);
    idleTimer.unref();
  }

  async function spawnConnection(): Promise<Connection> {
    command = resolveCommand();
    if (!command) {
      throw unavailable(
        'the DSPy sidecar is not installed (run `node scripts/setup-sidecar.mjs` or `npm run build:sidecar`)',
        { reason: 'not-installed' },
      );
    }
    const child = spawn(command.command, command.args, {
      cwd: command.cwd,
      env: sidecarEnv(opts.env ?? process.env, dataDir),
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const c = new Connection(child, { maxLineBytes, cancelGraceMs, log, lm: opts.lm, onExit });
    conn = c;
    started += 1;
    if (started > 1) restarts += 1;
    try {
      const { promise } = c.request('version', {}, { timeoutMs: startTimeoutMs });
      const version = await promise;
      if (version.protocol !== SIDECAR_PROTOCOL_VERSION) {
        throw unavailable(
          `the sidecar speaks protocol ${version.protocol}, expected ${SIDECAR_PROTOCOL_VERSION}`,
          {
            reason: 'protocol',
          },
        );
      }
      if (version.dspy === null) {
        throw unavailable(version.dspy_error ?? 'DSPy is not installed in the sidecar', {
          reason: 'no-dspy',
        });
      }
      c.version = version;
      log(`[sidecar-client] started pid ${c.pid} (${command.kind}, DSPy ${version.dspy})`);
      return c;
    } catch (e) {
      const recorded = conn !== c; // the process already exited and onExit counted the failure
      const err = isAppError(e, 'SIDECAR_UNAVAILABLE')
        ? e
        : unavailable(
            `the sidecar failed its start-up check: ${e instanceof Error ? e.message : String(e)}`,
            {
              reason: 'handshake',
            },
          );
      if (conn === c) conn = undefined;
      c.kill();
      if (recorded) lastError = err;
      else recordFailure(err);
      throw err;
    }
  }

  async function ensure(): Promise<Connection> {
    if (disposed) throw unavailable('the sidecar client was shut down', { reason: 'disposed' });
    clearIdle();
    if (conn?.version && !conn.exited) return conn;
    if (starting) return starting;
    const wait = retryAt - now();
    if (wait > 0) {
      throw unavailable(
        `the sidecar failed recently; next start in ${wait} ms: ${lastError?.message ?? ''}`,
        {
          reason: 'backoff',
          retryInMs: wait,
        },
      );
    }
    starting = spawnConnection().finally(() => {
      starting = undefined;
    });
    return starting;
  }

  async function call<M extends SidecarMethod>(
    method: M,
    params: SidecarMethodMap[M]['params'],
    callOpts: CallOptions & { onProgress?: (p: OptimizeProgress) => void },
    defaultTimeout: number,
  ): Promise<SidecarMethodMap[M]['result']> {
    if (callOpts.signal?.aborted) throw new AppError('CANCELLED', 'the sidecar request was cancelled');
    const c = await ensure();
    const { promise } = c.request(method, params, {
      timeoutMs: callOpts.timeoutMs ?? defaultTimeout,
      signal: callOpts.signal,
      onProgress: callOpts.onProgress,
    });
    try {
      const value = await promise;
      consecutiveFailures = 0;
      return value;
    } finally {
      if (conn === c) armIdle();
    }
  }

  async function stopProcess(): Promise<void> {
    clearIdle();
    const c = conn ?? (starting ? await starting.catch(() => undefined) : undefined);
    if (!c) return;
    if (conn === c) conn = undefined;
    await c.shutdown(shutdownTimeoutMs);
  }

  const split = <T extends CallOptions>(req: T): [Omit<T, keyof CallOptions | 'onProgress'>, CallOptions] => {
    const { signal, timeoutMs, onProgress: _ignored, ...rest } = req as T & { onProgress?: unknown };
    return [rest, { signal, timeoutMs }];
  };

  return {
    async execute(req) {
      const [params, callOpts] = split(req);
      return call('execute', params, callOpts, requestTimeoutMs);
    },
    async optimize(req) {
      const [params, callOpts] = split(req);
      return call('optimize', params, { ...callOpts, onProgress: req.onProgress }, optimizeTimeoutMs);
    },
    async manifest(callOpts = {}) {
      return call('manifest', {}, callOpts, requestTimeoutMs);
    },
    async start() {
      const c = await ensure();
      armIdle();
      return c.version!;
    },
    async ping(callOpts = {}) {
      await call('ping', {}, callOpts, callOpts.timeoutMs ?? 10_000);
    },
    status() {
      const wait = retryAt - now();
      const state: SidecarState = disposed
        ? 'disposed'
        : starting
          ? 'starting'
          : conn && !conn.exited
            ? 'running'
            : wait > 0
              ? 'backoff'
              : 'stopped';
      return {
        state,
        pid: state === 'running' || state === 'starting' ? conn?.pid : undefined,
        command: command ?? resolveCommand(),
        version: conn?.version,
        inFlight: conn?.pending.size ?? 0,
        restarts,
        consecutiveFailures,
        lastError: lastError ? { code: lastError.code, message: lastError.message } : undefined,
        retryInMs: state === 'backoff' ? wait : undefined,
      };
    },
    stop: stopProcess,
    async dispose() {
      disposed = true;
      await stopProcess();
    },
  };
}
