import { type ChildProcess, spawn as nodeSpawn } from 'node:child_process';
import { AppError, type ErrorCode, isAppError } from '../contract/errors.js';
import { createPeer, type IncomingCall, type Peer } from '../rpc/index.js';
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

/**
 * Options of a call that may make the sidecar ask for completions (`execute`, `optimize`). Each
 * such call brings the handler that answers them, bound to that run's model: the one sidecar
 * process serves every chat at once, and the `model` the sidecar echoes back is not trusted to
 * pick one.
 */
export interface ModelCallOptions extends CallOptions {
  lm: LmHandler;
}

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's timeout for this call. */
  timeoutMs?: number;
}

/** Options of {@link createSidecarClient}. */
export interface SidecarClientOptions extends ResolveSidecarOptions {
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
  /**
   * Called after each successful start (the handshake done), with the versions: the lifecycle hook
   * policies that depend on the running DSPy register here (the app's re-optimization).
   */
  onStarted?: (version: VersionRes) => void;
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
  execute(req: ExecuteReq & ModelCallOptions): Promise<ExecuteRes>;
  /** Compile a template on a training set; returns the new state blob. */
  optimize(
    req: OptimizeReq & ModelCallOptions & { onProgress?: (p: OptimizeProgress) => void },
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

/** What a call into the sidecar carries for the completions the sidecar asks for while it runs. */
interface OpenCall {
  method: SidecarMethod;
  usage: SidecarUsage;
  /** Answers the completions this call's run asks for (absent for calls that make none). */
  lm?: LmHandler;
}

const unavailable = (message: string, details?: Record<string, unknown>): AppError =>
  new AppError('SIDECAR_UNAVAILABLE', message, details);

const STDERR_TAIL = 20;

/**
 * One spawned sidecar process: its stdio framed as JSON lines and an RPC peer on top, which owns
 * ids, pending calls, timeouts, cancellation and the sidecar's nested `lm.complete` calls.
 */
class Connection {
  private readonly peer: Peer;
  private receive: (message: unknown) => void = () => {};
  /** Requests given up on (timeout, abort) whose answer the sidecar still owes. */
  private readonly abandoned = new Map<string, NodeJS.Timeout>();
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
      onExit: (conn: Connection, reason: AppError) => void;
    },
  ) {
    this.peer = createPeer(
      {
        send: (message) => this.write(message),
        onMessage: (receive) => {
          this.receive = receive;
        },
      },
      {
        idPrefix: 'n',
        cancelMethod: 'cancel',
        results: RESULT_SCHEMAS,
        foreignCode: 'SIDECAR_FAILED',
        // Only code and message cross: details may hold provider data the sidecar has no need for.
        sendDetails: false,
        answerProtocolErrors: false,
        timeoutError: (method, ms) =>
          unavailable(`the sidecar did not answer ${method} within ${ms} ms`, { reason: 'timeout' }),
        handle: (params, call) => this.onLmRequest(params, call),
        onAbandon: (id) => this.graceFor(id),
        onLateAnswer: (id) => {
          clearTimeout(this.abandoned.get(id));
          this.abandoned.delete(id);
        },
        onProtocolError: (message) => this.opts.log(`[sidecar-client] ${message}`),
        onHandlerBug: (e) => this.opts.log(`[sidecar-client] a callback threw: ${String(e)}`),
      },
    );
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

  /** Requests awaiting an answer. */
  get inFlight(): number {
    return this.peer.pending;
  }

  /** Send a request; resolves with the validated result (usage counted here for execute/optimize). */
  async request<M extends SidecarMethod>(
    method: M,
    params: SidecarMethodMap[M]['params'],
    opts: {
      timeoutMs: number;
      signal?: AbortSignal;
      lm?: LmHandler;
      onProgress?: (p: OptimizeProgress) => void;
    },
  ): Promise<SidecarMethodMap[M]['result']> {
    if (this.exited) throw unavailable('the sidecar is not running', { reason: 'exited' });
    const open: OpenCall = {
      method,
      usage: { lm_calls: 0, input_tokens: 0, output_tokens: 0 },
      lm: opts.lm,
    };
    const onProgress = opts.onProgress;
    const result = (await this.peer.call(method, params, {
      timeoutMs: opts.timeoutMs,
      signal: opts.signal,
      context: open,
      onEvent: (event, data) => {
        const progress = OptimizeProgressSchema.safeParse(data);
        if (event === 'progress' && progress.success) onProgress?.(progress.data);
      },
    })) as SidecarMethodMap[M]['result'];
    if (method === 'execute' || method === 'optimize')
      return { ...(result as ExecuteRes | OptimizeRes), usage: { ...open.usage } } as typeof result;
    return result;
  }

  /**
   * The sidecar must let go of an abandoned request (answer it, even with CANCELLED) within the
   * grace period, or the process is killed: a stuck worker is not kept.
   */
  private graceFor(id: string): void {
    if (this.exited) return;
    const timer = setTimeout(() => {
      if (!this.abandoned.delete(id)) return;
      this.opts.log(`[sidecar-client] the sidecar did not let go of ${id}; restarting it`);
      this.kill();
    }, this.opts.cancelGraceMs);
    timer.unref();
    this.abandoned.set(id, timer);
  }

  private write(message: unknown): void {
    if (this.exited || !this.child.stdin?.writable) return;
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  private fail(reason: AppError): void {
    if (this.exited) return;
    this.exited = true;
    for (const timer of this.abandoned.values()) clearTimeout(timer);
    this.abandoned.clear();
    this.peer.close(reason);
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
    // The sidecar's own narrower shapes (its callbacks and events only) before the peer's.
    const line = SidecarLineSchema.safeParse(raw);
    if (!line.success) {
      const id = (raw as { id?: unknown } | null)?.id;
      if (typeof id === 'string' && this.peer.isOpen(id)) {
        this.peer.receive({
          type: 'res',
          id,
          error: { code: 'SIDECAR_FAILED', message: 'the sidecar sent a malformed response' },
        });
      } else {
        this.opts.log(`[sidecar-client] ignoring a malformed message: ${text.slice(0, 200)}`);
      }
      return;
    }
    this.receive(raw);
  }

  /** `lm.complete`: the sidecar asks for a completion while one of our requests is open. */
  private async onLmRequest(params: unknown, call: IncomingCall): Promise<LmResponse> {
    const open = call.parent as OpenCall | undefined;
    if (!open?.lm || (open.method !== 'execute' && open.method !== 'optimize'))
      throw new AppError('CANCELLED', 'no such open request');
    const req = LmRequestSchema.safeParse(params);
    if (!req.success) throw new AppError('INVALID_INPUT', 'malformed lm.complete params');
    let answer: LmResponse;
    try {
      answer = LmResponseSchema.parse(await open.lm(req.data, { signal: call.signal, method: open.method }));
    } catch (e) {
      if (isAppError(e)) throw e;
      throw new AppError('LLM_FAILED', e instanceof Error ? e.message : String(e), { from: 'lm handler' });
    }
    open.usage.lm_calls += 1;
    open.usage.input_tokens += answer.input_tokens ?? 0;
    open.usage.output_tokens += answer.output_tokens ?? 0;
    return answer;
  }
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
    if (idleTimeoutMs <= 0 || !conn || conn.inFlight > 0) return;
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
    const c = new Connection(child, { maxLineBytes, cancelGraceMs, log, onExit });
    conn = c;
    started += 1;
    if (started > 1) restarts += 1;
    try {
      const version = await c.request('version', {}, { timeoutMs: startTimeoutMs });
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
      if (opts.onStarted) {
        const started = opts.onStarted;
        // After the caller that started it has its connection: the hook's own calls queue behind.
        setTimeout(() => {
          try {
            started(version);
          } catch (e) {
            log(`[sidecar-client] a start hook failed: ${e instanceof Error ? e.message : String(e)}`);
          }
        }, 0);
      }
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

  /** Methods that run DSPy (and so wait for its import in the sidecar). */
  const DSPY_METHODS: ReadonlySet<SidecarMethod> = new Set(['manifest', 'execute', 'optimize']);

  async function call<M extends SidecarMethod>(
    method: M,
    params: SidecarMethodMap[M]['params'],
    callOpts: CallOptions & { lm?: LmHandler; onProgress?: (p: OptimizeProgress) => void },
    defaultTimeout: number,
  ): Promise<SidecarMethodMap[M]['result']> {
    if (callOpts.signal?.aborted) throw new AppError('CANCELLED', 'the sidecar request was cancelled');
    const c = await ensure();
    const promise = c.request(method, params, {
      timeoutMs: callOpts.timeoutMs ?? defaultTimeout,
      signal: callOpts.signal,
      lm: callOpts.lm,
      onProgress: callOpts.onProgress,
    });
    try {
      const value = await promise;
      consecutiveFailures = 0;
      // A DSPy request answered: the import the handshake did not wait for is done.
      if (c.version?.dspy_loaded === false && DSPY_METHODS.has(method))
        c.version = { ...c.version, dspy_loaded: true };
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

  const split = <T extends ModelCallOptions>(
    req: T,
  ): [Omit<T, keyof ModelCallOptions | 'onProgress'>, ModelCallOptions] => {
    const { signal, timeoutMs, lm, onProgress: _ignored, ...rest } = req as T & { onProgress?: unknown };
    return [rest, { signal, timeoutMs, lm }];
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
        inFlight: conn?.inFlight ?? 0,
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
