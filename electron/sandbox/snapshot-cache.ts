import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statfsSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { AppError } from '../contract/errors.js';
import { pyodideDir, RUNTIME_DIR } from './runtime-paths.js';

/**
 * The sandbox's snapshot cache on disk: a Pyodide memory snapshot taken after boot, checked before
 * it is trusted (magic, bounds, this build's id, a JSON header that parses), written durably and
 * only with room to spare, its stale temp files cleared. The pool (`pool.ts`) decides when.
 */

export const SNAPSHOT_FORMAT = 'skilldesk-pyodide-snapshot/1';
/** Pyodide's snapshot header: magic, offset of the heap, JSON length, 0, 256-bit build id. */
const SNAPSHOT_MAGIC = 1886286592;
const SNAPSHOT_HEADER = 48;

/** Free space the snapshot cache leaves on its disk beyond the snapshot itself. */
export const SNAPSHOT_FREE_MARGIN = 256 * 1024 * 1024;
export const SNAPSHOT_TEMP_SUFFIX = '.tmp';

/** Bytes available to this user on the file system holding `dir` (null when unknown). */
export function freeBytes(dir: string): number | null {
  try {
    const s = statfsSync(dir);
    return Number(s.bavail) * Number(s.bsize);
  } catch {
    return null;
  }
}

/** Write `bytes` to a new file (mode 0600) and flush it to the disk before returning. */
export function writeDurably(path: string, bytes: Uint8Array): void {
  const fd = openSync(path, 'wx', 0o600);
  try {
    let at = 0;
    while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Remove temp files of snapshot writes that can no longer finish: their writer (the pid in the
 * name) is gone — killed, or out of disk — or they are over an hour old.
 */
export function removeStaleTemps(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^pyodide-.*\.(\d+)\.[0-9a-f]{8}\.tmp$/.exec(name);
    if (!m) continue;
    const path = join(dir, name);
    let stale = false;
    try {
      process.kill(Number(m[1]), 0);
      stale = Date.now() - statSync(path).mtimeMs > 3_600_000;
    } catch (e) {
      stale = (e as NodeJS.ErrnoException).code === 'ESRCH';
    }
    if (stale) rmSync(path, { force: true });
  }
}

/** The Pyodide build id of the installed package (snapshots carry it). */
let buildIdCache: string | null = null;
export function pyodideBuildId(): string {
  if (buildIdCache) return buildIdCache;
  const src = readFileSync(join(pyodideDir(), 'pyodide.mjs'), 'utf8');
  const m = /BUILD_ID:"([0-9a-f]{64})"/.exec(src);
  if (!m) throw new AppError('SANDBOX_FAILED', 'cannot read the Pyodide build id');
  buildIdCache = m[1]!;
  return buildIdCache;
}

/**
 * Whether `bytes` is a Pyodide memory snapshot of this build: magic, header bounds, build id and a
 * JSON header that parses. Returns the reason when it is not.
 */
export function checkSnapshot(bytes: Uint8Array, buildId = pyodideBuildId()): string | null {
  if (bytes.length < SNAPSHOT_HEADER + 16 || bytes.byteOffset % 4 !== 0) return 'too short';
  const u32 = new Uint32Array(bytes.buffer, bytes.byteOffset, SNAPSHOT_HEADER / 4);
  if (u32[0] !== SNAPSHOT_MAGIC) return 'bad magic number';
  const heapAt = u32[1]!;
  const jsonLen = u32[2]!;
  if (heapAt % 16 !== 0 || heapAt < SNAPSHOT_HEADER || heapAt >= bytes.length) return 'bad header';
  if (jsonLen > heapAt - SNAPSHOT_HEADER) return 'bad header';
  let id = '';
  for (let i = 4; i < 12; i++) id += u32[i]!.toString(16).padStart(8, '0');
  if (id !== buildId) return 'built by another Pyodide';
  try {
    const header = JSON.parse(
      new TextDecoder('utf-8', { fatal: true }).decode(
        bytes.subarray(SNAPSHOT_HEADER, SNAPSHOT_HEADER + jsonLen),
      ),
    );
    if (!header || typeof header !== 'object' || Array.isArray(header)) return 'bad JSON header';
  } catch {
    return 'bad JSON header';
  }
  return null;
}

/** The snapshot of one runtime (the worker sources and the Pyodide version) in a cache folder. */
export class SnapshotCache {
  constructor(
    private readonly cacheDir: string | undefined,
    private readonly log?: (line: string) => void,
  ) {}

  private filesMemo: { bin: string; meta: string; runtimeHash: string; version: string } | null | undefined;

  /** The cache files of this runtime (hashing the runtime sources once per pool, not per use). */
  private files(): { bin: string; meta: string; runtimeHash: string; version: string } | null {
    if (this.filesMemo !== undefined) return this.filesMemo;
    if (!this.cacheDir) {
      this.filesMemo = null;
      return null;
    }
    const h = createHash('sha256');
    for (const f of ['worker.mjs', 'prelude.py', 'guard.mjs', 'gate.mjs', 'harden.mjs'])
      h.update(readFileSync(join(RUNTIME_DIR, f)));
    const version = JSON.parse(readFileSync(join(pyodideDir(), 'package.json'), 'utf8')).version as string;
    h.update(version).update(process.versions.v8);
    const runtimeHash = h.digest('hex').slice(0, 16);
    const base = join(this.cacheDir, `pyodide-${version}-${runtimeHash}`);
    this.filesMemo = { bin: `${base}.snapshot`, meta: `${base}.json`, runtimeHash, version };
    return this.filesMemo;
  }

  read(): Uint8Array | null {
    if (this.cacheDir) removeStaleTemps(this.cacheDir);
    const files = (() => {
      try {
        return this.files();
      } catch {
        return null;
      }
    })();
    if (!files || !existsSync(files.bin)) return null;
    try {
      const meta = JSON.parse(readFileSync(files.meta, 'utf8')) as Record<string, unknown>;
      const bytes = new Uint8Array(readFileSync(files.bin));
      const why =
        meta.format !== SNAPSHOT_FORMAT
          ? 'unknown format'
          : meta.pyodide_version !== files.version || meta.runtime_hash !== files.runtimeHash
            ? 'another runtime'
            : meta.build_id !== pyodideBuildId()
              ? 'another Pyodide build'
              : meta.size !== bytes.length
                ? 'wrong size'
                : meta.sha256 !== createHash('sha256').update(bytes).digest('hex')
                  ? 'hash mismatch'
                  : checkSnapshot(bytes);
      if (why) throw new Error(why);
      return bytes;
    } catch (e) {
      this.log?.(`sandbox snapshot cache refused (${(e as Error).message}): rebuilding it`);
      this.drop();
      return null;
    }
  }

  drop(): void {
    try {
      const files = this.files();
      if (!files) return;
      rmSync(files.bin, { force: true });
      rmSync(files.meta, { force: true });
    } catch {
      // nothing cached
    }
  }

  write(bytes: Uint8Array): void {
    const temps: string[] = [];
    try {
      const files = this.files();
      if (!files) return;
      const dir = dirname(files.bin);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      removeStaleTemps(dir);
      // A cache is an optimisation: never the thing that fills the disk.
      const free = freeBytes(dir);
      if (free !== null && free < bytes.length + SNAPSHOT_FREE_MARGIN) {
        this.log?.(
          `not caching the sandbox snapshot: ${dir} has ${Math.floor(free / 1048576)} MB free, ${Math.ceil((bytes.length + SNAPSHOT_FREE_MARGIN) / 1048576)} MB needed`,
        );
        return;
      }
      const meta = {
        format: SNAPSHOT_FORMAT,
        pyodide_version: files.version,
        runtime_hash: files.runtimeHash,
        build_id: pyodideBuildId(),
        size: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        created_at: new Date().toISOString(),
      };
      const suffix = `${process.pid}.${randomBytes(4).toString('hex')}${SNAPSHOT_TEMP_SUFFIX}`;
      const binTemp = `${files.bin}.${suffix}`;
      const metaTemp = `${files.meta}.${suffix}`;
      temps.push(binTemp, metaTemp);
      writeDurably(binTemp, bytes);
      writeDurably(metaTemp, Buffer.from(JSON.stringify(meta)));
      renameSync(binTemp, files.bin);
      renameSync(metaTemp, files.meta);
      temps.length = 0;
      this.log?.(`sandbox snapshot cached in ${files.bin}`);
    } catch (e) {
      this.log?.(`could not cache the sandbox snapshot: ${(e as Error).message}`);
    } finally {
      for (const t of temps) rmSync(t, { force: true });
    }
  }
}
