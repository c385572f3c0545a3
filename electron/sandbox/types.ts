import type { ErrorCode } from '../contract/errors.js';
import type { SandboxLimits, SandboxLimitsOverride } from './limits.js';

/** Why a run did not end normally: a Python exception (`type` is its class) or a broken limit. */
export interface SandboxError {
  /** Python exception class (`ZeroDivisionError`), or `Timeout`, `MemoryLimit`, `SandboxFault`. */
  type: string;
  message: string;
  /** Set for limits and sandbox failures (`SANDBOX_TIMEOUT`, `SANDBOX_LIMIT`, `SANDBOX_FAILED`). */
  code?: ErrorCode | null;
  traceback?: string;
}

/** LLM usage of one run, for the trace. */
export interface SandboxLlmUsage {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  models: string[];
}

/** The outcome of one run: always data, never an exception. */
export interface SandboxRunResult {
  /** True when the program ran to its end without raising or breaking a limit. */
  ok: boolean;
  /** What the first `submit()` received (JSON value), or null. */
  result: unknown;
  submitted: boolean;
  stdout: string;
  stderr: string;
  stdout_truncated: boolean;
  stderr_truncated: boolean;
  error: SandboxError | null;
  /** Wall time seen by the caller, queueing included. */
  duration_ms: number;
  checkpoints: unknown[];
  host_calls: number;
  llm: SandboxLlmUsage;
  limits: SandboxLimits;
  /**
   * Where the time went; `worker_id` (per sandbox process) and `worker_run` (1 for a worker's first
   * run) say which worker served the run, so a restored worker can be told from a new one.
   */
  timing: {
    wait_ms: number;
    run_ms: number;
    worker_boot_ms: number;
    worker_id?: number;
    worker_run?: number;
  };
}

/** The main-process side of the host functions for one run. */
export interface SandboxHost {
  /**
   * Handle `fn(...args)` from Python; resolve to a JSON-compatible value. Throw an AppError to send
   * Python a `SkillDeskError` with its code and message.
   */
  call(fn: string, args: unknown[]): Promise<unknown>;
  /** LLM usage so far (read when the run ends). */
  usage?(): SandboxLlmUsage;
}

/** Options of one run. */
export interface SandboxRunOptions {
  /** Overrides on the pool's defaults (validated and clamped). */
  limits?: SandboxLimitsOverride;
  /** Host functions; without one, every host call but `submit`/`checkpoint` fails in Python. */
  host?: SandboxHost;
  /** Called for each `checkpoint(data)`. */
  onCheckpoint?: (data: unknown) => void;
  /**
   * Fair-queue key: runs waiting for the sandbox are served round-robin across keys, so
   * one chat's burst never starves another chat. Runs without one share the key ''.
   */
  queue?: string;
  /**
   * Files the run is given, written into the worker's file system before the program runs, each
   * at an absolute path under `/skill/`, `/packages/` or `/tmp/` (the run's own folders, fresh for
   * it and dropped after it). Their bytes cross the pipe as binary frames, never inside the program.
   */
  files?: SandboxRunFile[];
  /**
   * Cancels the run: a queued run is answered at once, a running one is interrupted in Python
   * (KeyboardInterrupt) and its worker ended if it does not stop within the run's `grace_ms`.
   * Either way the run resolves with a `CANCELLED` error (and what it printed until then).
   */
  signal?: AbortSignal;
}

/** A file a run is given (see {@link SandboxRunOptions.files}). */
export interface SandboxRunFile {
  path: string;
  bytes: Uint8Array;
  /** Writable by the run (default: read-only). */
  writable?: boolean;
}

/** What the pool asks a spawner to start. */
export interface SandboxSpawnSpec {
  /** Absolute path of the sandbox process entry (`runtime/process.mjs`). */
  entry: string;
  /** Absolute path of the module guard loaded first in every thread (`runtime/guard.mjs`). */
  guard: string;
  /** Folders the process may read (the runtime folder and `node_modules/pyodide`); nothing else. */
  readPaths: string[];
  /** V8 heap cap of the process. */
  maxOldSpaceMb: number;
  /** The app's listeners the process tries to reach on start (it must not). */
  probe?: { tcpPort: number; unixPath: string | null };
  /**
   * Pyodide's folder as a `file:` URL ending in `/` (inside `readPaths`): given, the process starts
   * its first worker and the wasm compile before it installs its own module hooks and hears from
   * the app, so those start-ups overlap.
   */
  pyodideUrl?: string;
}

/** How the operating system confines the sandbox process. */
export interface SandboxIsolation {
  /** `bwrap` (Linux namespaces), `unshare`, `sandbox-exec` (macOS) or `none` (in-process only). */
  method: 'bwrap' | 'unshare' | 'sandbox-exec' | 'none';
  /** The OS refuses TCP/UDP connections (the start-up self-check must confirm it). */
  blocks_tcp: boolean;
  /** The OS refuses UNIX-socket connections (the start-up self-check must confirm it). */
  blocks_unix: boolean;
  /** In words, for the settings screen and logs. */
  detail: string;
}

/**
 * A started sandbox process, as the pool sees it: a byte pipe each way (framed by
 * `runtime/frames.mjs`), stderr kept for diagnostics.
 */
export interface SandboxProcessHandle {
  readonly pid: number | undefined;
  /** How the OS confines this process. */
  readonly isolation: SandboxIsolation;
  write(chunk: Uint8Array): void;
  onData(cb: (chunk: Uint8Array) => void): void;
  onExit(cb: (code: number | null, signal: string | null) => void): void;
  /** Kill at once (SIGKILL). */
  kill(): void;
  /** The last few KB of the process's stderr, for diagnostics. */
  stderrTail(): string;
}

/** Starts one locked-down sandbox process; injectable so the desktop can use `utilityProcess`. */
export type SpawnSandboxProcess = (spec: SandboxSpawnSpec) => SandboxProcessHandle;

/** The provider layer as the sandbox sees it (injected; the sandbox never holds keys). */
export interface SandboxLlm {
  complete(
    prompt: string,
    opts?: { model?: string },
  ): Promise<{ text: string; input_tokens?: number; output_tokens?: number; model?: string }>;
}
