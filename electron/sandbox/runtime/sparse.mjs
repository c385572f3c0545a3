// @ts-check
// Sparse copies of large byte arrays that are half zeros: the interpreter's linear memory and the
// memory snapshot it boots from (free heap, unused stack and pages the allocator has not reached
// are zero). A copy keeps only the runs of 4 KiB pages that hold data; writing it back zeroes
// everything between them. Half the memory held, the same bytes written.
//
// Plain JavaScript: imported by the sandbox process and its workers (no TypeScript loader there).

const PAGE_BYTES = 4096;
const ZERO_PAGE = new Uint8Array(PAGE_BYTES);
// Node's native compare (a memcmp) scans a page five times faster than a JS loop on a worker's
// first pass. Taken at import, before the worker strips its globals; never reachable from Python.
const compareBytes =
  typeof globalThis.Buffer?.compare === 'function' ? globalThis.Buffer.compare.bind(globalThis.Buffer) : null;

/**
 * @typedef {object} SparseCopy
 * @property {number} byteLength length of the array copied
 * @property {Int32Array} runs [start, end, offset in data] per run of pages holding data
 * @property {Uint8Array} data the bytes of those runs, back to back
 */

/**
 * Whether bytes [start, end) of `bytes` are all zero (`words`: a 32-bit view of the same bytes
 * when they are aligned, which is about four times faster to scan).
 * @param {Uint8Array} bytes @param {Int32Array | null} words @param {number} start @param {number} end
 */
function allZero(bytes, words, start, end) {
  if (compareBytes && end - start === PAGE_BYTES)
    return compareBytes(bytes.subarray(start, end), ZERO_PAGE) === 0;
  let i = start;
  if (words) {
    const wordEnd = end >>> 2;
    for (let w = start >>> 2; w < wordEnd; w++) if (words[w] !== 0) return false;
    i = wordEnd << 2;
  }
  for (; i < end; i++) if (bytes[i] !== 0) return false;
  return true;
}

/**
 * The runs of `bytes` that hold data, copied (the source may change afterwards).
 * @param {Uint8Array} bytes
 * @returns {SparseCopy}
 */
export function sparseCopy(bytes) {
  const length = bytes.length;
  const words =
    bytes.byteOffset % 4 === 0 ? new Int32Array(bytes.buffer, bytes.byteOffset, length >>> 2) : null;
  const pages = Math.ceil(length / PAGE_BYTES);
  /** @type {number[]} */
  const runs = [];
  let size = 0;
  let start = -1;
  for (let p = 0; p <= pages; p++) {
    const used = p < pages && !allZero(bytes, words, p * PAGE_BYTES, Math.min(length, (p + 1) * PAGE_BYTES));
    if (used && start < 0) start = p * PAGE_BYTES;
    else if (!used && start >= 0) {
      const end = Math.min(length, p * PAGE_BYTES);
      runs.push(start, end, size);
      size += end - start;
      start = -1;
    }
  }
  const data = new Uint8Array(size);
  for (let r = 0; r < runs.length; r += 3) data.set(bytes.subarray(runs[r], runs[r + 1]), runs[r + 2]);
  return { byteLength: length, runs: Int32Array.from(runs), data };
}

/**
 * Write `copy` back over `target` (at least `copy.byteLength` long): its runs of data, and zeros
 * everywhere else, past `copy.byteLength` included (`zeroed`: the target is known to be zero
 * already, a fresh buffer).
 * @param {Uint8Array} target @param {SparseCopy} copy @param {boolean} [zeroed]
 */
export function writeSparse(target, copy, zeroed = false) {
  const { runs, data } = copy;
  let zeroFrom = 0;
  for (let r = 0; r < runs.length; r += 3) {
    const start = runs[r];
    const end = runs[r + 1];
    if (!zeroed && start > zeroFrom) target.fill(0, zeroFrom, start);
    target.set(data.subarray(runs[r + 2], runs[r + 2] + (end - start)), start);
    zeroFrom = end;
  }
  if (!zeroed && target.length > zeroFrom) target.fill(0, zeroFrom);
}

/**
 * The bytes a sparse copy was made of.
 * @param {SparseCopy} copy
 */
export function expandSparse(copy) {
  const out = new Uint8Array(copy.byteLength);
  writeSparse(out, copy, true);
  return out;
}

/**
 * Whether `value` is a well-formed sparse copy (it crosses a thread boundary): runs in order,
 * inside the array and the data.
 * @param {unknown} value
 * @returns {value is SparseCopy}
 */
export function isSparseCopy(value) {
  if (!value || typeof value !== 'object') return false;
  const { byteLength, runs, data } = /** @type {Record<string, unknown>} */ (value);
  if (!Number.isSafeInteger(byteLength) || !(runs instanceof Int32Array) || !(data instanceof Uint8Array)) {
    return false;
  }
  if (runs.length % 3 !== 0) return false;
  let prevEnd = 0;
  let offset = 0;
  for (let r = 0; r < runs.length; r += 3) {
    const [start, end, at] = [runs[r], runs[r + 1], runs[r + 2]];
    if (start < prevEnd || end <= start || end > /** @type {number} */ (byteLength) || at !== offset)
      return false;
    offset += end - start;
    prevEnd = end;
  }
  return offset === data.length;
}

// The wire form of a sparse copy (the app sends the cached snapshot so: half the bytes on the pipe,
// and the process keeps it as it arrives instead of scanning it again): three 32-bit words (a tag,
// the array's length, the number of run entries), the runs, then the data.
const PACK_TAG = 0x53505253; // "SPRS"
const PACK_HEADER = 12;

/**
 * `bytes` as a packed sparse copy, in one buffer.
 * @param {Uint8Array} bytes
 * @returns {Uint8Array}
 */
export function packSparse(bytes) {
  const { byteLength, runs, data } = sparseCopy(bytes);
  const out = new Uint8Array(PACK_HEADER + runs.length * 4 + data.length);
  const head = new Int32Array(out.buffer, 0, 3 + runs.length);
  head[0] = PACK_TAG;
  head[1] = byteLength;
  head[2] = runs.length;
  head.set(runs, 3);
  out.set(data, PACK_HEADER + runs.length * 4);
  return out;
}

/**
 * The sparse copy a packed buffer holds, or null when it is not a well-formed one. The data is a
 * view of `packed` (no copy).
 * @param {Uint8Array} packed
 * @returns {SparseCopy | null}
 */
export function unpackSparse(packed) {
  if (packed.length < PACK_HEADER || packed.byteOffset % 4 !== 0) return null;
  const head = new Int32Array(packed.buffer, packed.byteOffset, 3);
  const [tag, byteLength, n] = [head[0], head[1], head[2]];
  if (tag !== PACK_TAG || byteLength < 0 || n < 0 || PACK_HEADER + n * 4 > packed.length) return null;
  const copy = {
    byteLength,
    runs: new Int32Array(packed.buffer, packed.byteOffset + PACK_HEADER, n).slice(),
    data: packed.subarray(PACK_HEADER + n * 4),
  };
  return isSparseCopy(copy) ? copy : null;
}
