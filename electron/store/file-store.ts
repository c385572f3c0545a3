/**
 * The user's files kept as themselves (chat attachments of any type, files an MCP client sends to
 * a script): content-addressed, `<dir>/<first two hex digits>/<sha256>`, written whole or not at
 * all, readable only by the user. A file is named by its SHA-256 everywhere else (a stored
 * message, a `run_script` call), so a name cannot point outside the store and the same bytes are
 * kept once.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../contract/errors.js';
import { writeFileAtomic } from './atomic-file.js';

/** A file in the store. */
export interface StoredFileRef {
  sha256: string;
  size: number;
}

/** The content-addressed store of the user's files. */
export interface FileStore {
  /** Keep `bytes` (once: the same bytes are one file) and say how to name them. */
  put(bytes: Uint8Array): StoredFileRef;
  /** The file's path on this machine, or null when the store has no such file. */
  pathOf(sha256: string): string | null;
}

const SHA256 = /^[0-9a-f]{64}$/;

/** Whether `s` can name a stored file (64 lower-case hex digits). */
export function isFileHash(s: unknown): s is string {
  return typeof s === 'string' && SHA256.test(s);
}

/** The store in `dir` (created on first write, mode 0700). */
export function createFileStore(dir: string): FileStore {
  const pathFor = (sha256: string) => join(dir, sha256.slice(0, 2), sha256);
  return {
    put(bytes) {
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      const path = pathFor(sha256);
      if (!existsSync(path)) {
        mkdirSync(join(dir, sha256.slice(0, 2)), { recursive: true, mode: 0o700 });
        writeFileAtomic(path, bytes, { mode: 0o600 });
      }
      return { sha256, size: bytes.byteLength };
    },
    pathOf(sha256) {
      if (!isFileHash(sha256)) throw new AppError('INVALID_INPUT', `"${sha256}" does not name a stored file`);
      const path = pathFor(sha256);
      try {
        return statSync(path).isFile() ? path : null;
      } catch {
        return null;
      }
    },
  };
}
