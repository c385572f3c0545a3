/**
 * Files written whole or not at all. A file is written to a temp file beside it (same folder, so
 * the rename cannot cross filesystems), flushed to disk, then renamed over the target: a crash, a
 * kill -9 or a full disk leaves either the old file or the new one, never half of one. A temp that
 * a failed write leaves is removed at once; one that a killed process left is removed by
 * {@link cleanStaleTemps}, which the next write to the same file and the app's start call.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  type Stats,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { diskFullError, freeBytes, isDiskFullError } from './storage-errors.js';

/** The suffix of every temp file written here (and what {@link cleanStaleTemps} looks for). */
export const TEMP_SUFFIX = '.skilldesk-tmp';

/** A temp whose writer is gone, or that is older than this, is stale. */
const STALE_AFTER_MS = 60 * 60 * 1000;

// `.<name>.<pid>.<random>.skilldesk-tmp`, and `<name>.<pid>.tmp` as earlier builds named theirs.
const TEMP_NAME = /^\.(.+)\.(\d+)\.[0-9a-f]+\.skilldesk-tmp$/;
const OLD_TEMP_NAME = /^(.+)\.(\d+)\.tmp$/;

/** The temp file name for `file` in its folder. */
function tempPathFor(file: string): string {
  return join(
    dirname(file),
    `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}${TEMP_SUFFIX}`,
  );
}

/** Options of {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** File mode of the new file (default 0o644 less the umask; 0o600 for private files). */
  mode?: number;
}

/**
 * Write `data` to `file` atomically: temp file in the same folder, fsync, rename, fsync of the
 * folder. Refused up front with `DISK_FULL` when the disk has less free space than `data`; a write
 * that fills the disk anyway is `DISK_FULL` too, with the temp removed and the old file intact.
 */
export function writeFileAtomic(
  target: string,
  data: string | Uint8Array,
  opts: AtomicWriteOptions = {},
): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let file = target;
  const existing = lstatOrNull(file);
  if (existing && !existing.isFile() && !existing.isSymbolicLink()) {
    // A device or a pipe (`--out /dev/stdout`) cannot be replaced by a rename: it is written to.
    writeFileSync(file, bytes);
    return;
  }
  // Through a link, the file it points to is the one replaced (the link stays).
  if (existing?.isSymbolicLink()) file = realpathSync(file);
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true });
  cleanStaleTemps(dir, basename(file));
  const free = freeBytes(dir);
  if (free !== null && free < bytes.length) throw diskFullError(file, bytes.length);
  const tmp = tempPathFor(file);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'wx', opts.mode ?? 0o666);
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, file);
  } catch (e) {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // Already failing: the temp is removed below either way.
      }
    }
    rmSync(tmp, { force: true });
    if (isDiskFullError(e, dir)) throw diskFullError(file, bytes.length);
    throw e;
  }
  syncFolder(dir);
}

/** Flush a folder's entries so a rename in it survives a power cut (not possible on Windows). */
function syncFolder(dir: string): void {
  if (process.platform === 'win32') return;
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some filesystems refuse fsync on a folder; the rename itself is still atomic.
  }
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/**
 * Write a folder of files (relative path → bytes) as one: into a temp folder beside `dir`, each
 * file flushed, then renamed to `dir`. An existing `dir` is replaced only with `replace` (moved
 * aside first and removed once the new one is in place). A failure removes the temp folder and
 * leaves `dir` as it was; a full disk is `DISK_FULL`.
 */
export function writeFolderAtomic(
  dir: string,
  files: ReadonlyMap<string, Uint8Array>,
  opts: { replace?: boolean } = {},
): void {
  const parent = dirname(dir);
  mkdirSync(parent, { recursive: true });
  cleanStaleTemps(parent, basename(dir));
  let total = 0;
  for (const bytes of files.values()) total += bytes.length;
  const free = freeBytes(parent);
  if (free !== null && free < total) throw diskFullError(dir, total);
  const tmp = tempPathFor(dir);
  let aside: string | null = null;
  try {
    mkdirSync(tmp);
    for (const [rel, bytes] of files) {
      const abs = join(tmp, rel);
      mkdirSync(dirname(abs), { recursive: true });
      const fd = openSync(abs, 'wx');
      try {
        let off = 0;
        while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    const existing = lstatOrNull(dir);
    if (existing?.isDirectory() && readdirSync(dir).length === 0) rmSync(dir, { recursive: true });
    else if (existing) {
      if (!opts.replace) throw Object.assign(new Error(`${dir} already exists`), { code: 'EEXIST' });
      aside = tempPathFor(dir);
      renameSync(dir, aside);
    }
    renameSync(tmp, dir);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    if (aside) renameSync(aside, dir);
    if (isDiskFullError(e, parent)) throw diskFullError(dir, total);
    throw e;
  }
  if (aside) rmSync(aside, { recursive: true, force: true });
  syncFolder(parent);
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but is someone else's.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Remove temp files of {@link writeFileAtomic} (and earlier builds' `<name>.<pid>.tmp`) in `dir`
 * whose writer is no longer running or that are more than an hour old; only those of `name`
 * when given. A temp of a live writer (another window, a command running now) is left alone.
 * Returns the files removed.
 */
export function cleanStaleTemps(dir: string, name?: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const entry of entries) {
    const m = TEMP_NAME.exec(entry) ?? OLD_TEMP_NAME.exec(entry);
    if (!m || (name !== undefined && m[1] !== name)) continue;
    const abs = join(dir, entry);
    try {
      const st = lstatSync(abs);
      if (!st.isFile() && !st.isDirectory()) continue;
      if (st.isDirectory() && !TEMP_NAME.test(entry)) continue;
      if (alive(Number(m[2])) && Date.now() - st.mtimeMs < STALE_AFTER_MS) continue;
      rmSync(abs, { recursive: true, force: true });
      removed.push(abs);
    } catch {
      // Gone meanwhile, or not ours to remove.
    }
  }
  return removed;
}
