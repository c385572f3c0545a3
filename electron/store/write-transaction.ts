/**
 * Writers wait their turn. Every write transaction begins IMMEDIATE, taking SQLite's write lock
 * before it reads: a deferred transaction that reads first and then writes cannot upgrade its lock
 * once another process has committed in between (SQLite refuses at once, without waiting the busy
 * timeout), which lost whole imports when two ran together. A lock not had within the busy
 * timeout is asked for again after a jittered pause, until the store's wait budget is spent; then
 * the caller gets `STORE_BUSY`. Retrying is safe because nothing of the transaction ran yet.
 */
import type { Db } from './db.js';
import { isBusyError, storeBusyError, toStorageError } from './storage-errors.js';

/** How long a writer waits for another one to finish before giving up, unless configured. */
export const DEFAULT_STORE_WAIT_MS = 30_000;

/** SQLite's own busy handler waits at most this long per attempt; the loop here does the rest. */
const BUSY_SLICE_MS = 2_000;

const waits = new WeakMap<Db, number>();

/** Set how long writers on `db` wait for the write lock in total (and SQLite's busy timeout). */
export function setStoreWait(db: Db, waitMs: number): void {
  const ms = Math.max(0, Math.floor(waitMs));
  waits.set(db, ms);
  db.pragma(`busy_timeout = ${Math.min(ms, BUSY_SLICE_MS)}`);
}

/** The wait budget of `db` (see {@link setStoreWait}). */
export function storeWait(db: Db): number {
  return waits.get(db) ?? DEFAULT_STORE_WAIT_MS;
}

/**
 * `SKILLDESK_STORE_WAIT_MS` from an environment, else the default. How long a command or the app
 * waits for another SkillDesk writing the same store before reporting `STORE_BUSY`.
 */
export function storeWaitFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = env.SKILLDESK_STORE_WAIT_MS;
  const n = raw === undefined ? Number.NaN : Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : DEFAULT_STORE_WAIT_MS;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Block this thread for `ms` (the store API is synchronous, as better-sqlite3 is). */
export function sleepSync(ms: number): void {
  if (ms > 0) Atomics.wait(sleeper, 0, 0, ms);
}

/** Options of {@link writeTransaction}. */
export interface WriteOptions {
  /** Wait at most this long in total (default: the store's wait); a cache write may not wait at all. */
  waitMs?: number;
  now?: () => number;
}

/**
 * Run `fn` as one write transaction that holds the write lock from its first statement. Nested in
 * another transaction it becomes a savepoint of it. Failures are named: `STORE_BUSY` when the lock
 * could not be had in time, `DISK_FULL` when the disk filled up (the transaction is rolled back,
 * so nothing is half-written); anything `fn` throws comes out unchanged.
 */
export function writeTransaction<T>(db: Db, fn: () => T, opts: WriteOptions = {}): T {
  if (db.inTransaction) return db.transaction(fn)();
  const now = opts.now ?? Date.now;
  const budget = opts.waitMs ?? storeWait(db);
  const start = now();
  let pause = 10;
  for (;;) {
    let began = false;
    try {
      return db
        .transaction(() => {
          began = true;
          return fn();
        })
        .immediate();
    } catch (e) {
      if (!began && isBusyError(e)) {
        const waited = now() - start;
        if (waited >= budget) throw storeBusyError(db.name, waited);
        sleepSync(Math.min(pause + Math.random() * pause, budget - waited));
        pause = Math.min(pause * 2, 500);
        continue;
      }
      throw toStorageError(e, db.name, { waitedMs: now() - start });
    }
  }
}

/**
 * Run a statement that must take the write lock outside a transaction (a pragma that changes the
 * journal mode), retried like {@link writeTransaction}.
 */
export function withWriteRetry<T>(db: Db, fn: () => T, now: () => number = Date.now): T {
  const budget = storeWait(db);
  const start = now();
  let pause = 10;
  for (;;) {
    try {
      return fn();
    } catch (e) {
      const waited = now() - start;
      if (isBusyError(e) && waited < budget) {
        sleepSync(Math.min(pause + Math.random() * pause, budget - waited));
        pause = Math.min(pause * 2, 500);
        continue;
      }
      if (isBusyError(e)) throw storeBusyError(db.name, waited);
      throw toStorageError(e, db.name);
    }
  }
}
