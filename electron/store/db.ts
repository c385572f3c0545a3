import {
  chmodSync,
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { AppError, isAppError } from '../contract/errors.js';
import { skillNameKey } from './skill-name.js';
import { isDiskFullError, toStorageError } from './storage-errors.js';
import {
  DEFAULT_STORE_WAIT_MS,
  setStoreWait,
  withWriteRetry,
  writeTransaction,
} from './write-transaction.js';

/** A better-sqlite3 connection. */
export type Db = Database.Database;

/** One forward-only schema step from `migrations/NNNN_name.sql`. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const SQLITE_MAGIC = 'SQLite format 3\0';

/** The folder holding the shipped `NNNN_name.sql` files. */
export const MIGRATIONS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../migrations');

let cachedMigrations: Migration[] | undefined;

/** Read and order the shipped migrations (cached: they never change while the app runs). */
export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  if (dir === MIGRATIONS_DIR && cachedMigrations) return cachedMigrations;
  const list = readdirSync(dir)
    .map((file) => /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(file))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ version: Number(m[1]), name: m[2]!, sql: readFileSync(join(dir, m[0]), 'utf8') }))
    .sort((a, b) => a.version - b.version);
  list.forEach((m, i) => {
    if (m.version !== i + 1) {
      throw new AppError('INTERNAL', `Migrations must be numbered 0001.. without gaps; found ${m.version}`);
    }
  });
  if (dir === MIGRATIONS_DIR) cachedMigrations = list;
  return list;
}

/** Options for {@link openDatabase}. */
export interface OpenOptions {
  /** Open without creating or migrating; fails if the file is missing. */
  readonly?: boolean;
  /** Apply migrations only up to this version (tests of upgrades). */
  targetVersion?: number;
  migrations?: Migration[];
  /** How long a writer waits for another SkillDesk to finish writing before `STORE_BUSY`. */
  waitMs?: number;
}

/**
 * Open (creating if needed) an `agents.db` file, check it is ours and not from a newer app, and
 * apply pending migrations, one transaction each. WAL and foreign keys are on.
 *
 * A file that is not SQLite, or whose schema is newer than this build knows, is refused with an
 * error naming the file — before anything is written to it.
 */
export function openDatabase(file: string, opts: OpenOptions = {}): Db {
  const migrations = opts.migrations ?? loadMigrations();
  const target = opts.targetVersion ?? migrations.length;
  assertSqliteFile(file);
  if (existsSync(file)) {
    // Read the version through a read-only handle first so a newer or foreign file is never touched.
    const probe = openRaw(file, true);
    try {
      // Another process may be creating the schema right now; its lock is waited for.
      setStoreWait(probe, opts.waitMs ?? DEFAULT_STORE_WAIT_MS);
      const version = readUserVersion(probe, file);
      if (version > migrations.length) {
        throw new AppError(
          'STORE_TOO_NEW',
          `${file} was written by a newer version of SkillDesk (schema ${version}, this build knows up to ${migrations.length}). Update SkillDesk to open it; the file was not modified.`,
          { file, version, supported: migrations.length },
        );
      }
    } finally {
      probe.close();
    }
  } else if (opts.readonly) {
    throw new AppError('NOT_FOUND', `${file} does not exist`, { file });
  } else {
    // Chats, traces and workspace pages live here: readable by the user only, like secrets.json.
    // SQLite gives the -wal and -shm files it creates the mode of the database file.
    createPrivateFile(file);
  }
  if (!opts.readonly) restrictToOwner(file);
  const db = openRaw(file, opts.readonly ?? false);
  try {
    // Before anything else: several processes may be opening (and creating) this store at once.
    setStoreWait(db, opts.waitMs ?? DEFAULT_STORE_WAIT_MS);
    if (!opts.readonly) {
      withWriteRetry(db, () => db.pragma('journal_mode = WAL'));
      db.pragma('synchronous = NORMAL');
    }
    db.pragma('foreign_keys = ON');
    // SQLite's temporary files (a statement journal for every write that fires triggers, sorts)
    // stay in memory: an import of 1,000 skills wrote ~46,000 pages to a file in /var/tmp, ~10 %
    // of its CPU, and a store's private content has no business in a shared temp folder.
    db.pragma('temp_store = MEMORY');
    if (!opts.readonly) {
      migrate(db, migrations, target, file);
      // Files an older build (or another umask) left readable by others are tightened.
      for (const suffix of ['-wal', '-shm', '-journal']) restrictToOwner(file + suffix);
    }
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

/**
 * Apply migrations after the current `user_version` up to `target`, one transaction each. Each
 * step takes the write lock and then reads the version, so several processes opening a new store
 * at once apply every migration exactly once; a store already at `target` is never locked.
 */
export function migrate(db: Db, migrations: Migration[], target: number, file = db.name): void {
  if (readUserVersion(db, file) >= target) return;
  // Migrations that backfill folded names call the app's key function (SQLite has no NFKC).
  db.function('skilldesk_name_key', { deterministic: true }, (name: unknown) =>
    typeof name === 'string' ? skillNameKey(name) : name,
  );
  for (;;) {
    const step: { m?: Migration } = {};
    try {
      const applied = writeTransaction(db, () => {
        const current = readUserVersion(db, file);
        const next = migrations.find((x) => x.version === current + 1);
        if (!next || next.version > target) return false;
        step.m = next;
        db.exec(next.sql);
        db.pragma(`user_version = ${next.version}`);
        return true;
      });
      if (!applied) return;
    } catch (e) {
      const m = step.m;
      if (!m || isAppError(e)) throw e;
      throw new AppError(
        'STORE_FAILED',
        `Could not upgrade ${file} to schema ${m.version} (${m.name}): ${(e as Error).message}. The file is unchanged.`,
        { file, version: m.version },
      );
    }
  }
}

/** The mode of every `agents.db` file (and its -wal/-shm): read and write for the user only. */
export const STORE_FILE_MODE = 0o600;

function createPrivateFile(file: string): void {
  try {
    // An empty file is a valid new SQLite database; `wx` never truncates one that appeared meanwhile.
    writeFileSync(file, '', { mode: STORE_FILE_MODE, flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
      if (isDiskFullError(e, file)) throw toStorageError(e, file);
      throw new AppError('STORE_FAILED', `Cannot create ${file}: ${(e as Error).message}`, { file });
    }
  }
}

/**
 * Take group and other permissions off a store file that is ours. Best effort: a file we do not
 * own, a filesystem without modes or a refused chmod leaves the file as it is, never fails the open.
 */
export function restrictToOwner(file: string): void {
  if (process.platform === 'win32') return;
  try {
    const st = statSync(file);
    if (!st.isFile() || (st.mode & 0o077) === 0) return;
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return;
    chmodSync(file, st.mode & 0o700);
  } catch {
    // Missing (no -shm yet), not permitted, or a read-only filesystem: nothing to tighten.
  }
}

function openRaw(file: string, readonly: boolean): Db {
  try {
    return new Database(file, { readonly, fileMustExist: readonly });
  } catch (e) {
    const named = toStorageError(e, file);
    if (named !== e) throw named;
    throw new AppError('STORE_FAILED', `Cannot open ${file}: ${(e as Error).message}`, { file });
  }
}

/** SQLite's verdicts on a file that is not a database it can read; anything else is not the file's fault. */
const NOT_A_DATABASE = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT']);

function readUserVersion(db: Db, file: string): number {
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } catch (e) {
    // A full disk, a lock or an I/O error says nothing about whose file this is: only SQLite's
    // own "not a database" is reported as such.
    const named = toStorageError(e, file);
    if (named !== e) throw named;
    if (NOT_A_DATABASE.has(String((e as { code?: unknown }).code)))
      throw notSqlite(file, (e as Error).message);
    throw new AppError('STORE_FAILED', `Cannot read ${file}: ${(e as Error).message}`, { file });
  }
}

/** Refuse a non-empty file whose header is not SQLite's, without opening it for writing. */
function assertSqliteFile(file: string): void {
  if (!existsSync(file)) return;
  const st = statSync(file);
  if (!st.isFile()) throw notSqlite(file, 'not a regular file');
  if (st.size === 0) return;
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(16);
    const n = readSync(fd, buf, 0, 16, 0);
    if (n < 16 || buf.toString('latin1') !== SQLITE_MAGIC) throw notSqlite(file, 'the header is not SQLite');
  } finally {
    closeSync(fd);
  }
}

function notSqlite(file: string, why: string): AppError {
  return new AppError(
    'STORE_NOT_SQLITE',
    `${file} is not a SkillDesk database (${why}). Move it aside or pick another folder; it was not modified.`,
    { file },
  );
}

const stampStatements = new WeakMap<Db, { total: Database.Statement; version: Database.Statement }>();

/**
 * A value that changes whenever the database may have: any commit by another connection
 * (`data_version`) or any row this connection changed (`total_changes()`). Two reads within
 * microseconds: a cache of results computed from the store checks it instead of recomputing.
 */
export function changeStamp(db: Db): string {
  let s = stampStatements.get(db);
  if (!s) {
    s = {
      total: db.prepare('SELECT total_changes()').pluck(),
      version: db.prepare('PRAGMA data_version').pluck(),
    };
    stampStatements.set(db, s);
  }
  return `${s.version.get() as number}.${s.total.get() as number}`;
}

/**
 * A store in memory, with the whole schema: for what must work before a folder has a store of its
 * own (a workspace's pages read by a skill that runs before the first write creates `agents.db`).
 */
export function openMemoryStore(): Db {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  const migrations = loadMigrations();
  migrate(db, migrations, migrations.length, ':memory:');
  return db;
}
