import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * The byte layout of a serialized phase-1 index: a magic tag, a JSON header (strings and small
 * values), then typed-array sections each aligned to 8 bytes, in the header's order. Numbers go
 * in typed arrays, not JSON, so a 10,000-skill index loads in milliseconds.
 */
const MAGIC = 0x31584453; // "SDX1", little-endian

/** A typed array a section holds. */
export type Section = Int32Array | Float64Array | Int8Array | Uint8Array;
type SectionKind = 'i32' | 'f64' | 'i8' | 'u8';

const kindOf = (a: Section): SectionKind =>
  a instanceof Int32Array ? 'i32' : a instanceof Float64Array ? 'f64' : a instanceof Int8Array ? 'i8' : 'u8';

const pad8 = (n: number) => (n + 7) & ~7;

/** Serialize a header (any JSON) and named typed-array sections into one buffer. */
export function encodeSections(header: unknown, sections: Record<string, Section>): Buffer {
  const names = Object.keys(sections);
  const head = Buffer.from(
    JSON.stringify({
      header,
      sections: names.map((n) => [n, kindOf(sections[n]!), sections[n]!.length]),
    }),
    'utf8',
  );
  let size = pad8(8 + head.length);
  for (const n of names) size += pad8(sections[n]!.byteLength);
  const out = Buffer.alloc(size);
  out.writeUInt32LE(MAGIC, 0);
  out.writeUInt32LE(head.length, 4);
  head.copy(out, 8);
  let at = pad8(8 + head.length);
  for (const n of names) {
    const a = sections[n]!;
    Buffer.from(a.buffer, a.byteOffset, a.byteLength).copy(out, at);
    at += pad8(a.byteLength);
  }
  return out;
}

const BYTES: Record<SectionKind, number> = { i32: 4, f64: 8, i8: 1, u8: 1 };

/**
 * Read back what {@link encodeSections} wrote. Throws on anything malformed (wrong tag, a section
 * past the end, an unknown kind); the caller then ignores the cache.
 */
export function decodeSections(buf: Buffer): { header: unknown; sections: Map<string, Section> } {
  if (buf.length < 8 || buf.readUInt32LE(0) !== MAGIC) throw new Error('not a serialized index');
  const headLen = buf.readUInt32LE(4);
  if (8 + headLen > buf.length) throw new Error('header past the end');
  const parsed = JSON.parse(buf.toString('utf8', 8, 8 + headLen)) as {
    header: unknown;
    sections: Array<[string, SectionKind, number]>;
  };
  if (!parsed || !Array.isArray(parsed.sections)) throw new Error('no section table');
  const sections = new Map<string, Section>();
  let at = pad8(8 + headLen);
  for (const [name, kind, length] of parsed.sections) {
    const bytes = BYTES[kind];
    if (!bytes || !Number.isInteger(length) || length < 0) throw new Error(`bad section ${name}`);
    const byteLength = length * bytes;
    if (at + byteLength > buf.length) throw new Error(`section ${name} past the end`);
    // A copy into its own (aligned) memory: the row's buffer may sit at any offset.
    const raw = buf.buffer.slice(buf.byteOffset + at, buf.byteOffset + at + byteLength);
    sections.set(
      name,
      kind === 'i32'
        ? new Int32Array(raw)
        : kind === 'f64'
          ? new Float64Array(raw)
          : kind === 'i8'
            ? new Int8Array(raw)
            : new Uint8Array(raw),
    );
    at += pad8(byteLength);
  }
  return { header: parsed.header, sections };
}

/** The CRC-32 of a buffer (a cache row's integrity check: cheap next to its size). */
export function checksum(buf: Buffer): number {
  return crc32(buf);
}

/** A short stable hash of some text (the indexing code's fingerprint). */
export function fingerprint(parts: readonly string[]): string {
  const h = createHash('sha1');
  for (const p of parts) h.update(p).update('\u0000');
  return h.digest('hex').slice(0, 16);
}
