/**
 * Imported text is decoded strictly: a byte sequence that is not UTF-8 is refused with the file
 * and where it is, instead of becoming replacement characters (a JSON package imported silently
 * altered) or a misleading parse error (a SKILL.md "without frontmatter").
 */
import { isUtf8 } from 'node:buffer';
import { AppError } from '../contract/errors.js';

/** Extensions of files that must be text: invalid UTF-8 in them is an error, not a binary file. */
const TEXT_EXTENSIONS = new Set([
  'md',
  'markdown',
  'txt',
  'py',
  'json',
  'jsonl',
  'yaml',
  'yml',
  'toml',
  'j2',
  'jinja',
  'jinja2',
  'csv',
  'tsv',
  'html',
  'htm',
  'xml',
  'js',
  'mjs',
  'ts',
  'sh',
  'ps1',
  'sql',
  'css',
]);

/** True when a bundled file at `path` is text by its extension. */
export function isTextPath(path: string): boolean {
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  return ext !== undefined && TEXT_EXTENSIONS.has(ext);
}

/** Byte offset of the first byte that does not start or continue a valid UTF-8 sequence, or -1. */
export function invalidUtf8Offset(bytes: Uint8Array): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let len: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) {
      len = 2;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      len = 3;
      min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      len = 4;
      min = 0x10000;
    } else return i;
    if (i + len > n) return i;
    let cp = b & (0xff >> (len + 1));
    for (let k = 1; k < len; k++) {
      const c = bytes[i + k]!;
      if ((c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8.
    if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return i;
    i += len;
  }
  return -1;
}

/** The INVALID_INPUT error for `file`, naming the byte offset and the byte found there. */
export function notUtf8Error(file: string, bytes: Uint8Array, offset: number): AppError {
  const byte = bytes[offset]!.toString(16).toUpperCase().padStart(2, '0');
  return new AppError(
    'INVALID_INPUT',
    `${file}: not valid UTF-8 at byte offset ${offset} (byte 0x${byte}); save the file as UTF-8 and import it again`,
    { file, offset },
  );
}

/** Decode `bytes` as UTF-8 (a leading BOM dropped), or throw INVALID_INPUT naming `file` and the offset. */
export function decodeUtf8Strict(bytes: Uint8Array, file: string): string {
  if (!isUtf8(bytes)) throw notUtf8Error(file, bytes, Math.max(0, invalidUtf8Offset(bytes)));
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
}
