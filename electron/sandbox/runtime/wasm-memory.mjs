// @ts-check
// Caps the linear memories a core WebAssembly module defines, by rewriting the maximum in its memory
// section before it is compiled: `memory.grow` past the cap then fails inside the module (the
// allocator sees -1) instead of taking the process's memory. Only the memory section changes; no
// other section holds offsets into it.

const PAGE = 65536;

/** @param {Uint8Array} b @param {number} p @returns {[number, number]} value and the next offset */
function readLeb(b, p) {
  let result = 0;
  let shift = 0;
  for (;;) {
    if (p >= b.length) throw new Error('truncated LEB128');
    const byte = b[p++];
    result += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return [result, p];
    shift += 7;
    if (shift > 63) throw new Error('LEB128 too long');
  }
}

/** @param {number} n */
function leb(n) {
  const out = [];
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    out.push(byte);
  } while (n > 0);
  return out;
}

/**
 * A copy of core module `bytes` whose every defined memory has a maximum of at most `maxBytes`.
 * Throws when a memory's initial size is already above it, or the module is not one.
 * @param {Uint8Array} bytes
 * @param {number} maxBytes
 * @returns {Uint8Array}
 */
export function capMemory(bytes, maxBytes) {
  const maxPages = Math.max(1, Math.floor(maxBytes / PAGE));
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d)
    throw new Error('not a WebAssembly module');
  if (bytes[4] !== 1 || bytes[5] !== 0 || bytes[6] !== 0 || bytes[7] !== 0)
    throw new Error('not a core WebAssembly module');
  /** @type {Array<Uint8Array | number[]>} */
  const parts = [bytes.subarray(0, 8)];
  let p = 8;
  while (p < bytes.length) {
    const id = bytes[p];
    const [size, start] = readLeb(bytes, p + 1);
    const end = start + size;
    if (end > bytes.length) throw new Error('truncated section');
    if (id !== 5) {
      parts.push(bytes.subarray(p, end));
      p = end;
      continue;
    }
    let [count, r] = readLeb(bytes, start);
    const body = [...leb(count)];
    for (let i = 0; i < count; i++) {
      const flags = bytes[r++];
      let min;
      [min, r] = readLeb(bytes, r);
      let max = Number.POSITIVE_INFINITY;
      if (flags & 1) [max, r] = readLeb(bytes, r);
      if (min > maxPages) {
        throw new Error(
          `the component starts with ${Math.ceil((min * PAGE) / 1048576)} MB of memory, above its limit of ${Math.floor(maxBytes / 1048576)} MB`,
        );
      }
      body.push(flags | 1, ...leb(min), ...leb(Math.min(max, maxPages)));
    }
    if (r !== end) throw new Error('malformed memory section');
    parts.push([5, ...leb(body.length)], body);
    p = end;
  }
  const total = parts.reduce((n, x) => n + x.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const x of parts) {
    out.set(x, at);
    at += x.length;
  }
  return out;
}
