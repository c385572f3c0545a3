import { AppError } from '../contract/errors.js';
import { codePointLabel, skillNameKey } from '../store/index.js';

/**
 * Check a path taken from a package (zip entry, bundled file, artifact name used as a file name)
 * and return it normalised with forward slashes. Refuses absolute paths, drive letters,
 * backslashes, `..`, empty or dot segments, and control characters.
 */
export function safeRelativePath(p: string, where: string): string {
  const bad =
    /[\u0000-\u001f\u007f]/.test(p) || p.includes('\\') || /^[a-zA-Z]:/.test(p) || p.startsWith('/');
  const segments = p.split('/').filter((s, i, all) => !(s === '' && i === all.length - 1));
  if (bad || segments.length === 0 || segments.some((s) => s === '' || s === '.' || s === '..')) {
    throw new AppError(
      'UNSAFE_PATH',
      `${where}: the path "${p}" escapes the skill folder or is not a plain relative path`,
      {
        path: p,
      },
    );
  }
  return segments.join('/');
}

// Device names Windows reserves in every folder, whatever the case or extension (`nul.txt` is NUL).
const WINDOWS_RESERVED =
  /^(?:con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3]|conin\$|conout\$)$/i;
// Characters Windows does not allow in a file name (besides `/` and `\`, which separate folders).
const WINDOWS_INVALID = /[<>:"|?*\u0000-\u001f\u007f]/u;

/**
 * Why a bundled file path would not be written faithfully on every OS, or null when it is
 * portable. Besides what {@link safeRelativePath} refuses: a segment that Windows reserves (`CON`,
 * `PRN`, `AUX`, `NUL`, `COM0`–`COM9`, `LPT0`–`LPT9`, with or without an extension, in any case),
 * that ends in a dot or a space, or that holds `<>:"|?*` or a control character.
 */
export function portablePathProblem(p: string): string | null {
  if (p.startsWith('/') || p.includes('\\') || /^[a-zA-Z]:/.test(p)) {
    return 'is not a plain relative path inside the skill folder';
  }
  const segments = p.split('/');
  for (const seg of segments) {
    if (seg === '' || seg === '.' || seg === '..') {
      return 'is not a plain relative path inside the skill folder';
    }
    const bad = WINDOWS_INVALID.exec(seg);
    if (bad) {
      const ch = bad[0];
      const shown = ch >= ' ' && ch !== '\u007f' ? `"${ch}"` : `the control character ${codePointLabel(ch)}`;
      return `contains ${shown}, which Windows does not allow in file names`;
    }
    if (/[. ]$/.test(seg)) return `has "${seg}", which ends in a dot or a space (Windows drops them)`;
    const base = seg.split('.')[0]!.trimEnd();
    if (WINDOWS_RESERVED.test(base)) {
      return `has "${seg}", which Windows reserves for the ${base.toUpperCase()} device (with any extension, in any case)`;
    }
  }
  return null;
}

/**
 * Refuse a set of bundled file paths that cannot be written faithfully everywhere: each must pass
 * {@link portablePathProblem}, and no two may differ only by letter case or Unicode width (they
 * would overwrite each other on Windows and macOS). Errors name `where` and the path.
 */
export function assertPortablePaths(paths: Iterable<string>, where: string): void {
  const problem = firstPathProblem(paths);
  if (problem) {
    throw new AppError(
      'UNSAFE_PATH',
      `${where}: the bundled file "${problem.path}" ${problem.message}; rename it`,
      {
        file: where,
        path: problem.path,
      },
    );
  }
}

/** The first non-portable or colliding path of a set, or null (see {@link assertPortablePaths}). */
export function firstPathProblem(paths: Iterable<string>): { path: string; message: string } | null {
  const taken: TakenPaths = new Map();
  for (const path of paths) {
    const message = portablePathProblem(path) ?? collision(taken, path);
    if (message) return { path, message };
  }
  return null;
}

/** Paths seen so far by {@link skillNameKey}: the spelling first seen and whether it is a folder. */
export type TakenPaths = Map<string, { path: string; folder: boolean }>;

/**
 * Record a file `path` and its folders in `taken`; returns why it collides with one seen before
 * (same path but for letter case or width, or a file where a folder is), else null. The same file
 * twice is no collision.
 */
export function collision(taken: TakenPaths, path: string): string | null {
  const segments = path.split('/');
  for (let i = 1; i <= segments.length; i++) {
    const prefix = segments.slice(0, i).join('/');
    const folder = i < segments.length;
    const key = skillNameKey(prefix);
    const seen = taken.get(key);
    if (seen === undefined) {
      taken.set(key, { path: prefix, folder });
      continue;
    }
    if (seen.path !== prefix) {
      return `collides with ${seen.folder ? 'the folder ' : ''}"${seen.path}"${folder ? ` (its folder "${prefix}")` : ''}: they differ only by letter case or width`;
    }
    if (seen.folder !== folder) return `is both a file and a folder ("${prefix}")`;
  }
  return null;
}
