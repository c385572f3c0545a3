import { AppError } from '../contract/errors.js';

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
