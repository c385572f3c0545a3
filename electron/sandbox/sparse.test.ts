import { describe, expect, it } from 'vitest';
import {
  expandSparse,
  isSparseCopy,
  packSparse,
  sparseCopy,
  unpackSparse,
  writeSparse,
} from './runtime/sparse.mjs';

const PAGE = 4096;

/** Bytes with data in some pages only (a pseudo-random, repeatable pattern), at any offset. */
function patchy(length: number, seed: number, offset = 0): Uint8Array {
  const buf = new Uint8Array(new ArrayBuffer(length + offset), offset, length);
  let x = seed;
  for (let p = 0; p * PAGE < length; p++) {
    x = (x * 1103515245 + 12345) >>> 0;
    if (x % 3 === 0) continue; // a zero page
    // Sometimes one byte only, at the page's very end: the scan must not stop early.
    if (x % 5 === 0) buf[Math.min(length - 1, p * PAGE + PAGE - 1)] = 1 + (x % 250);
    else for (let i = p * PAGE; i < Math.min(length, p * PAGE + 300); i++) buf[i] = (x + i) % 256;
  }
  return buf;
}

describe('sparse copies (the pristine interpreter memory, the kept snapshot)', () => {
  it('round-trips aligned and unaligned arrays of any length, holding only the pages with data', () => {
    for (const [length, offset] of [
      [16 * PAGE, 0],
      [16 * PAGE + 13, 0],
      [7 * PAGE + 2, 3],
      [5, 1],
      [0, 0],
    ] as const) {
      const bytes = patchy(length, length + offset, offset);
      const copy = sparseCopy(bytes);
      expect(isSparseCopy(copy)).toBe(true);
      expect(copy.byteLength).toBe(length);
      expect(Buffer.from(expandSparse(copy)).equals(Buffer.from(bytes))).toBe(true);
      const zeroPages = Array.from({ length: Math.ceil(length / PAGE) }, (_, p) =>
        bytes.subarray(p * PAGE, (p + 1) * PAGE).every((b) => b === 0),
      ).filter(Boolean).length;
      expect(copy.data.length).toBeLessThanOrEqual(length - (zeroPages - 1) * PAGE);
    }
  });

  it('a copy is independent of its source', () => {
    const bytes = patchy(8 * PAGE, 7);
    const copy = sparseCopy(bytes);
    const before = Buffer.from(bytes);
    bytes.fill(9);
    expect(Buffer.from(expandSparse(copy)).equals(before)).toBe(true);
  });

  it('writing back restores every byte: data pages, pages dirtied since, and memory grown since', () => {
    const pristine = patchy(32 * PAGE, 11);
    const copy = sparseCopy(pristine);
    // A job scribbles everywhere, and the memory grew by 4 pages.
    const live = new Uint8Array(36 * PAGE);
    live.set(pristine);
    for (let i = 0; i < live.length; i += 997) live[i] = 0xaa;
    writeSparse(live, copy);
    expect(Buffer.from(live.subarray(0, pristine.length)).equals(Buffer.from(pristine))).toBe(true);
    expect(live.subarray(pristine.length).every((b) => b === 0)).toBe(true);
  });

  it('refuses malformed copies (they cross a thread boundary)', () => {
    const good = sparseCopy(patchy(8 * PAGE, 3));
    expect(isSparseCopy(good)).toBe(true);
    expect(isSparseCopy(null)).toBe(false);
    expect(isSparseCopy({ ...good, runs: Array.from(good.runs) })).toBe(false);
    expect(isSparseCopy({ ...good, data: good.data.subarray(1) })).toBe(false);
    expect(isSparseCopy({ ...good, byteLength: 1 })).toBe(false);
    const overlapping = Int32Array.from([0, 2 * PAGE, 0, PAGE, 3 * PAGE, 2 * PAGE]);
    expect(isSparseCopy({ byteLength: 8 * PAGE, runs: overlapping, data: new Uint8Array(4 * PAGE) })).toBe(
      false,
    );
  });

  it('packs a copy into one buffer for the pipe and unpacks it to the same bytes', () => {
    for (const length of [0, 5, 16 * PAGE + 13, 40 * PAGE]) {
      const bytes = patchy(length, length + 1);
      const packed = packSparse(bytes);
      expect(packed.length).toBeLessThanOrEqual(
        12 + sparseCopy(bytes).runs.length * 4 + sparseCopy(bytes).data.length,
      );
      const copy = unpackSparse(packed);
      expect(copy).not.toBeNull();
      expect(Buffer.from(expandSparse(copy!)).equals(Buffer.from(bytes))).toBe(true);
    }
  });

  it('refuses a packed buffer that is cut, mislabelled or whose runs lie', () => {
    const packed = packSparse(patchy(16 * PAGE, 5));
    expect(unpackSparse(packed.subarray(0, 8))).toBeNull();
    expect(unpackSparse(packed.slice(0, packed.length - 1))).toBeNull();
    const tag = packed.slice();
    tag[0] = (tag[0] ?? 0) ^ 1;
    expect(unpackSparse(tag)).toBeNull();
    const runs = packed.slice();
    const words = new Int32Array(runs.buffer);
    words[4] = (words[4] ?? 0) + PAGE; // the first run's end
    expect(unpackSparse(runs)).toBeNull();
    const count = packed.slice();
    new Int32Array(count.buffer)[2] = 1 << 29; // more runs than bytes
    expect(unpackSparse(count)).toBeNull();
    expect(unpackSparse(packed.slice())).not.toBeNull();
  });
});
