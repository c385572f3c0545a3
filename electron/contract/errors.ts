/**
 * The one error type that crosses every boundary of the app (IPC, WebSocket, CLI, sidecar).
 * Expected outcomes — a Python traceback, a failed assertion — are data, not AppErrors.
 */

/** Every error code the app can report. Add a code here before throwing it anywhere. */
export const ERROR_CODES = [
  'INVALID_INPUT',
  'USAGE',
  'NOT_FOUND',
  'CONFLICT',
  'VERSION_CONFLICT',
  'TOO_LARGE',
  'UNSAFE_PATH',
  'STORE_NOT_SQLITE',
  'STORE_TOO_NEW',
  'STORE_FAILED',
  /** Another SkillDesk (window or command) held the store's write lock for longer than we wait. */
  'STORE_BUSY',
  /** The disk (or quota) holding a file is full; nothing was half-written. */
  'DISK_FULL',
  'TEMPLATE_SYNTAX',
  'TEMPLATE_RENDER',
  'HANDLER_NOT_AVAILABLE',
  'LLM_NOT_CONFIGURED',
  'LLM_MISSING_KEY',
  'LLM_RATE_LIMITED',
  'LLM_FAILED',
  'LLM_TIMEOUT',
  'LLM_REFUSED',
  'ASSERTION_FAILED',
  'CANCELLED',
  'FORBIDDEN',
  'DISCONNECTED',
  'SANDBOX_TIMEOUT',
  'SANDBOX_LIMIT',
  'SANDBOX_FAILED',
  'SIDECAR_UNAVAILABLE',
  'SIDECAR_FAILED',
  'INTERNAL',
] as const;

/** A machine-readable error category. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The serialisable form of an AppError, as it crosses a process boundary. */
export interface AppErrorData {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/** An error with a stable code, a human message that says what to do, and optional details. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }

  /** The plain-data form, safe to send to an untrusted peer (no stack). */
  toData(): AppErrorData {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }

  /** Rebuild an AppError received from a peer. */
  static fromData(data: AppErrorData): AppError {
    return new AppError(data.code, data.message, data.details);
  }
}

/** True when `e` is an AppError (optionally of one of the given codes). */
export function isAppError(e: unknown, ...codes: ErrorCode[]): e is AppError {
  return e instanceof AppError && (codes.length === 0 || codes.includes(e.code));
}

/** Compile-time exhaustiveness guard for switches over unions. */
export function assertNever(value: never): never {
  throw new AppError('INTERNAL', `Unexpected value: ${JSON.stringify(value)}`);
}
