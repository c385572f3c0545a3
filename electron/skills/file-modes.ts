import type { FileMap } from './zip.js';

// The executable bit of a file read from a folder or a zip, kept beside its map of bytes rather
// than in it: every reader of a FileMap keeps working, and an export can set the bit again.
const executables = new WeakMap<FileMap, Set<string>>();

/** Mark `path` of `files` as executable (a script with its x bit, on disk or in a zip). */
export function markExecutable(files: FileMap, path: string): void {
  let set = executables.get(files);
  if (!set) {
    set = new Set();
    executables.set(files, set);
  }
  set.add(path);
}

/** Whether `path` of `files` was marked executable. */
export function isExecutable(files: FileMap, path: string): boolean {
  return executables.get(files)?.has(path) ?? false;
}

/** The files under `prefix/` (prefix stripped), their executable marks carried over. */
export function subFiles(files: FileMap, prefix: string): FileMap {
  const out: FileMap = new Map();
  for (const [p, b] of files) {
    if (!prefix) out.set(p, b);
    else if (p.startsWith(`${prefix}/`)) out.set(p.slice(prefix.length + 1), b);
  }
  for (const p of executables.get(files) ?? []) {
    const rel = prefix ? (p.startsWith(`${prefix}/`) ? p.slice(prefix.length + 1) : null) : p;
    if (rel !== null) markExecutable(out, rel);
  }
  return out;
}

/** Unix mode bits for an exported file: 0o755 for one marked executable, else 0o644. */
export function fileMode(files: FileMap, path: string): number {
  return isExecutable(files, path) ? 0o755 : 0o644;
}
