/**
 * The protocol between the app (pool.ts) and the sandbox process (runtime/process.mjs): the one
 * source of its messages, checked by both sides. The process runs a generated bundle of this file
 * and the RPC peer (`runtime/peer.bundle.mjs`, `npm run build:sandbox-peer`), so the two cannot
 * drift; a test fails when the bundle is stale.
 *
 * Messages travel as length-prefixed frames (`runtime/frames.mjs`). Two kinds share the pipe:
 * - lifecycle messages (`hello`, `init`, `snapshot`, `worker-ready`, `fatal`, `shutdown`), which
 *   move the process through its phases and are handled by each side's phase checks, and
 *   `cancel`, which stops an open run;
 * - calls, carried by the RPC peer (`electron/rpc`): the app calls `run`, and while a run is open
 *   the process calls `host` (a host function asked for by Python). On the wire they are `run` /
 *   `result` and `host` / `host-reply`; {@link rpcToWire} and {@link wireToRpc} map them to the
 *   peer's messages one to one, so ids, pending calls, timeouts and nesting are the peer's.
 *
 * Everything from the process is hostile: its schemas bound every size, and objects are strict.
 */
import { z } from 'zod';
import { ERROR_CODES } from '../contract/errors.js';
import type { RpcMessage } from '../rpc/index.js';
import { MAX_LIMITS } from './limits.js';

/** Methods the app calls on the process. */
export const SANDBOX_METHODS = ['run', 'component'] as const;
/** Methods the process calls on the app while a `run` is open. */
export const SANDBOX_CALLBACKS = ['host'] as const;
/** Error codes the process may answer a call with (anything else is a broken protocol). */
export const SANDBOX_ERROR_CODES = [
  'SANDBOX_FAILED',
  'SANDBOX_LIMIT',
  'SANDBOX_TIMEOUT',
  'CANCELLED',
] as const;

/** Largest host request (other than `submit`, which never leaves the process) the app accepts. */
export const MAX_HOST_REQUEST = 1024 * 1024;
/** Largest snapshot the process may send or receive (Pyodide's is ~30 MB plus its heap). */
export const MAX_SNAPSHOT_BYTES = 512 * 1024 * 1024;
/** Prefixes of each side's call ids (the app checks the process's host call ids increase). */
export const SANDBOX_ID_PREFIX = { app: 'r', process: 'p' } as const;
/** Largest program the app sends. */
export const MAX_CODE = 16 * 1024 * 1024;

const Id = z.string().min(1).max(64);
const text = (max: number) => z.string().max(max);
const count = z.number().int().nonnegative();
const ms = z.number().finite().nonnegative();

/** Per-run limits as the app sends them (already resolved and clamped by `resolveLimits`). */
export const WireLimitsSchema = z.strictObject(
  Object.fromEntries(
    Object.entries(MAX_LIMITS).map(([k, max]) => [k, z.number().int().nonnegative().max(max)]),
  ) as Record<keyof typeof MAX_LIMITS, z.ZodNumber>,
);

/** Largest total size of the files one run is given (each follows its `run` frame as binary frames). */
export const MAX_RUN_FILES_BYTES = 512 * 1024 * 1024;
/** Most files one run is given. */
export const MAX_RUN_FILES = 20_000;
/** Largest binary frame of a run's file: a file is sent in chunks of at most this size. */
export const RUN_FILE_CHUNK = 8 * 1024 * 1024;

/**
 * A file the run is given, written into the worker's file system before the program runs (under
 * one of the run's own folders: `/skill/`, `/packages/`, `/tmp/`). Its bytes follow the `run`
 * frame as binary frames of at most {@link RUN_FILE_CHUNK} bytes, file after file in this order
 * (none for an empty file): never inside the program.
 */
export const RunFileSchema = z.strictObject({
  path: z
    .string()
    .min(2)
    .max(1100)
    .regex(/^\/(skill|packages|tmp)\/[^\0]+$/),
  size: z.number().int().nonnegative().max(MAX_RUN_FILES_BYTES),
  /** Writable by the run (default: read-only, mode 0444). */
  writable: z.boolean().optional(),
});

/** `run` params: one program and its limits, and the files it is given. */
export const RunParamsSchema = z.strictObject({
  code: z.string().max(MAX_CODE),
  limits: WireLimitsSchema,
  files: z
    .array(RunFileSchema)
    .max(MAX_RUN_FILES)
    .refine((fs) => fs.reduce((n, f) => n + f.size, 0) <= MAX_RUN_FILES_BYTES, {
      message: `a run's files may hold at most ${MAX_RUN_FILES_BYTES} bytes`,
    })
    .optional(),
});

/**
 * `component` params: run the WebAssembly component the app transpiled into its component cache
 * under `sha256` (the component's hash), with `input` (its variables as JSON text) and limits.
 */
export const ComponentParamsSchema = z.strictObject({
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  input: z.string().max(MAX_CODE),
  limits: WireLimitsSchema,
});

/** Why a run did not end normally, as the process reports it. */
export const RunErrorSchema = z.strictObject({
  type: text(200),
  message: text(8000),
  traceback: text(16_000).optional(),
  code: z
    .string()
    .regex(/^[A-Z_]{1,40}$/)
    .nullable()
    .optional(),
});

/** `run` result: the outcome of one program, always data. */
export const RunResultSchema = z.strictObject({
  ok: z.boolean(),
  submitted: z.boolean(),
  /** The JSON text of the first `submit()` value. */
  result: text(MAX_LIMITS.result_bytes * 2).nullable(),
  stdout: text(MAX_LIMITS.output_bytes * 2),
  stderr: text(MAX_LIMITS.output_bytes * 2),
  truncated: z.strictObject({ stdout: z.boolean(), stderr: z.boolean() }),
  error: RunErrorSchema.nullable(),
  host_calls: count,
  wait_ms: z.number().finite(),
  run_ms: z.number().finite(),
  worker_boot_ms: z.number().finite(),
  /** Which worker served the run (numbered per process) and which of its runs this was (1: first). */
  worker_id: count.optional(),
  worker_run: count.optional(),
  /** The sandbox process's resident memory when the run ended (MB): the app recycles a bloated one. */
  process_rss_mb: z.number().finite().nonnegative().optional(),
});

/** The outcome of one run, as the process reports it. */
export type RunResult = z.infer<typeof RunResultSchema>;

/** `host` params: the host call's JSON text (`{fn, args}`), size- and depth-checked before parsing. */
export const HostParamsSchema = z.strictObject({ request: text(MAX_HOST_REQUEST) });

/** The answer to a call: exactly one of `result` and an error with one of `codes`. */
function answer<T extends string>(type: T, result: z.ZodType, codes: readonly [string, ...string[]]) {
  return z
    .strictObject({
      type: z.literal(type),
      id: Id,
      result: result.optional(),
      error: z.strictObject({ code: z.enum(codes), message: text(8000) }).optional(),
    })
    .refine((m) => Object.hasOwn(m, 'result') !== (m.error !== undefined), {
      message: 'an answer holds exactly one of result and error',
    });
}

// --- app → process -----------------------------------------------------------------------------------

/**
 * The process's configuration; `snapshot_bytes` > 0 means a binary frame with the snapshot (the app's
 * verified cache) follows.
 */
export const InitMessageSchema = z.strictObject({
  type: z.literal('init'),
  pyodideDir: text(4096),
  pyodideUrl: text(4096),
  spares: z.number().int().min(1).max(4),
  reuse: z.boolean(),
  maxReuses: z.number().int().min(1).max(10_000),
  rssLimitMb: z.number().int().positive(),
  maxResultBytes: count,
  workerHeapMb: z.number().int().positive().optional(),
  bootMemoryMb: z.number().int().positive().optional(),
  snapshot_bytes: count,
  /** The snapshot's binary frame is packed sparse (runtime/sparse.mjs: only the pages holding data). */
  snapshot_sparse: z.boolean().optional(),
  /** The folder of transpiled components (read-only to the process), when components may run. */
  componentDir: text(4096).optional(),
});

/** Every message the app may send; the process dies on anything else. */
export const AppMessageSchema = z.discriminatedUnion('type', [
  InitMessageSchema,
  z.strictObject({ type: z.literal('run'), id: Id, ...RunParamsSchema.shape }),
  z.strictObject({ type: z.literal('component'), id: Id, ...ComponentParamsSchema.shape }),
  answer('host-reply', z.unknown(), ERROR_CODES),
  /**
   * Stop the open `run` or `component` call `id`: Python is interrupted (KeyboardInterrupt) and
   * its worker ended after the run's grace if it does not stop; the call is still answered, with a
   * `CANCELLED` error in its result. Not a peer call: nothing answers it, and one for a call that
   * is already over is ignored.
   */
  z.strictObject({ type: z.literal('cancel'), id: Id }),
  z.strictObject({ type: z.literal('shutdown') }),
]);

/** A message from the app to the process. */
export type AppMessage = z.infer<typeof AppMessageSchema>;

// --- process → app -----------------------------------------------------------------------------------

/** What the start-up self-check saw (see guard.mjs). */
export const SelfCheckSchema = z.strictObject({ tcp: text(40), unix: text(40) });

/** Every message the process may send; the app kills it on anything else. */
export const SandboxMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('hello'), pid: z.number().int(), self_check: SelfCheckSchema }),
  /** A fresh snapshot of `size` bytes follows in a binary frame. */
  z.strictObject({
    type: z.literal('snapshot'),
    ms,
    size: z.number().int().positive().max(MAX_SNAPSHOT_BYTES),
  }),
  z.strictObject({ type: z.literal('worker-ready'), ms, reused: z.literal(true).optional() }),
  z.strictObject({ type: z.literal('fatal'), message: text(4000) }),
  answer('result', RunResultSchema, SANDBOX_ERROR_CODES),
  z.strictObject({ type: z.literal('host'), id: Id, parent: Id, ...HostParamsSchema.shape }),
]);

/** A message from the process to the app. */
export type SandboxMessage = z.infer<typeof SandboxMessageSchema>;

// --- the calls as peer messages --------------------------------------------------------------------

/** Which side of the pipe a mapping runs on. */
export type SandboxSide = 'app' | 'process';

/**
 * The wire form of a peer message this side sends. Anything the protocol has no place for (the
 * peer's subscriptions, a method of the wrong side) is a bug and throws.
 */
export function rpcToWire(m: RpcMessage, from: SandboxSide): AppMessage | SandboxMessage {
  const id = 'id' in m ? m.id : null;
  if (m.type === 'req' && from === 'app' && m.method === 'run' && !m.parent)
    return { type: 'run', id: m.id, ...(m.params as z.infer<typeof RunParamsSchema>) };
  if (m.type === 'req' && from === 'app' && m.method === 'component' && !m.parent)
    return { type: 'component', id: m.id, ...(m.params as z.infer<typeof ComponentParamsSchema>) };
  if (m.type === 'req' && from === 'process' && m.method === 'host' && m.parent)
    return { type: 'host', id: m.id, parent: m.parent, ...(m.params as z.infer<typeof HostParamsSchema>) };
  if (m.type === 'res' && id !== null) {
    const type = from === 'app' ? 'host-reply' : 'result';
    if (m.error) return { type, id, error: { code: m.error.code, message: m.error.message } } as AppMessage;
    return { type, id, result: m.result ?? null } as AppMessage | SandboxMessage;
  }
  throw new Error(`the sandbox protocol cannot carry ${m.type} ${'method' in m ? m.method : ''}`.trim());
}

/** The peer message a checked call message stands for; null for lifecycle messages. */
export function wireToRpc(m: AppMessage | SandboxMessage): RpcMessage | null {
  switch (m.type) {
    case 'run':
      return {
        type: 'req',
        id: m.id,
        method: 'run',
        params: { code: m.code, limits: m.limits, ...(m.files ? { files: m.files } : {}) },
      };
    case 'component':
      return {
        type: 'req',
        id: m.id,
        method: 'component',
        params: { sha256: m.sha256, input: m.input, limits: m.limits },
      };
    case 'host':
      return { type: 'req', id: m.id, method: 'host', params: { request: m.request }, parent: m.parent };
    case 'result':
    case 'host-reply':
      return 'error' in m
        ? { type: 'res', id: m.id, error: m.error }
        : { type: 'res', id: m.id, result: m.result };
    default:
      return null;
  }
}

/** What both sides must agree on; the bundle exports it too, and a test compares the two. */
export const SANDBOX_PROTOCOL = {
  methods: SANDBOX_METHODS,
  callbacks: SANDBOX_CALLBACKS,
  errorCodes: SANDBOX_ERROR_CODES,
  appMessages: ['init', 'run', 'component', 'host-reply', 'cancel', 'shutdown'],
  sandboxMessages: ['hello', 'snapshot', 'worker-ready', 'fatal', 'result', 'host'],
} as const;
