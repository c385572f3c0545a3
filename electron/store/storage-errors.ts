/**
 * What the operating system and SQLite say when storage fails, named as users understand it: a
 * full disk is `DISK_FULL` (never "corrupt" or "not a SkillDesk database", which would invite the
 * user to move their data aside), a lock held by another writer is `STORE_BUSY`.
 */
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { AppError, isAppError } from '../contract/errors.js';

const BUSY_CODES = new Set([
  'SQLITE_BUSY',
  'SQLITE_BUSY_SNAPSHOT',
  'SQLITE_BUSY_RECOVERY',
  'SQLITE_BUSY_TIMEOUT',
  'SQLITE_LOCKED',
  'SQLITE_LOCKED_SHAREDCACHE',
]);

/** Free space below which an I/O error while writing is taken to mean the disk is full. */
const NEARLY_FULL_BYTES = 256 * 1024;

function codeOf(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** True when `e` says the database is locked by another connection (SQLite's SQLITE_BUSY family). */
export function isBusyError(e: unknown): boolean {
  const code = codeOf(e);
  return code !== undefined && BUSY_CODES.has(code);
}

/** Bytes free for this user on the filesystem holding `path` (its folder when it does not exist), or null. */
export function freeBytes(path: string): number | null {
  for (const p of [path, dirname(path)]) {
    try {
      const st = statfsSync(p);
      return Number(st.bavail) * Number(st.bsize);
    } catch {
      // Try the folder next (the file itself may not exist yet).
    }
  }
  return null;
}

/**
 * True when `e` is a full disk or quota: Node's ENOSPC/EDQUOT, SQLite's SQLITE_FULL, or an SQLite
 * write/fsync I/O error on a filesystem with (almost) no space left — SQLite reports some short
 * writes (the WAL index, a truncate) as I/O errors rather than as SQLITE_FULL.
 */
export function isDiskFullError(e: unknown, path?: string): boolean {
  const code = codeOf(e);
  if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL') return true;
  if (code?.startsWith('SQLITE_IOERR') && path) {
    const free = freeBytes(path);
    return free !== null && free < NEARLY_FULL_BYTES;
  }
  return false;
}

/** The `DISK_FULL` error for `path`: where, how much is free, and how much was needed when known. */
export function diskFullError(path: string, neededBytes?: number): AppError {
  const free = freeBytes(path);
  const need =
    neededBytes !== undefined && neededBytes > 0
      ? ` at least ${formatBytes(neededBytes)} more is needed`
      : ' more space is needed';
  const have = free === null ? '' : ` (${formatBytes(free)} free)`;
  return new AppError(
    'DISK_FULL',
    `The disk holding ${path} is full${have}:${need}. Nothing was half-written; free some space and try again.`,
    {
      file: path,
      ...(free === null ? {} : { free_bytes: free }),
      ...(neededBytes ? { needed_bytes: neededBytes } : {}),
    },
  );
}

/** The `STORE_BUSY` error for a store whose write lock could not be had within `waitedMs`. */
export function storeBusyError(file: string, waitedMs: number): AppError {
  return new AppError(
    'STORE_BUSY',
    `Another SkillDesk (a window or a skilldesk command) has been writing to ${file} for more than ${Math.round(waitedMs / 1000)} s, so nothing was written. Try again when it has finished, or close the other one.`,
    { file, waited_ms: waitedMs },
  );
}

/**
 * Turn a storage failure into the AppError that names it (`DISK_FULL`, `STORE_BUSY`); anything
 * else — an AppError already, a bug — is returned unchanged.
 */
export function toStorageError(
  e: unknown,
  path: string,
  opts: { neededBytes?: number; waitedMs?: number } = {},
): unknown {
  if (isAppError(e)) return e;
  if (isDiskFullError(e, path)) return diskFullError(path, opts.neededBytes);
  if (isBusyError(e)) return storeBusyError(path, opts.waitedMs ?? 0);
  return e;
}

/** `1.5 MB`, `512 bytes`: sizes as users read them. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(1)} GB`;
}

/**
 * The named form of a storage failure met where its file is not known (a full disk: the path Node
 * gives, else "SkillDesk's data"), or null when `e` is no storage failure.
 */
export function namedStorageError(e: unknown): AppError | null {
  if (isAppError(e)) return null;
  const path = (e as { path?: unknown } | null)?.path;
  const where = typeof path === 'string' ? path : undefined;
  if (isDiskFullError(e, where)) {
    if (where) return diskFullError(where);
    return new AppError(
      'DISK_FULL',
      "The disk holding SkillDesk's data is full: more space is needed. Nothing was half-written; free some space and try again.",
    );
  }
  if (isBusyError(e)) {
    return new AppError(
      'STORE_BUSY',
      'Another SkillDesk (a window or a skilldesk command) is writing to the same store, so nothing was written. Try again when it has finished.',
    );
  }
  return null;
}
