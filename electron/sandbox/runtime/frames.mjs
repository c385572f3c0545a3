// @ts-check
// Framing of the pipe between the app and the sandbox process: each frame is a 4-byte big-endian
// payload length, a 1-byte kind, then the payload (UTF-8 JSON, or raw bytes that belong to the JSON
// message just before). The reader checks every length against a limit before it buffers a byte, so
// a hostile peer cannot make the reader hold more than one bounded frame.
//
// Shared by the app (pool.ts) and the sandbox process (process.mjs): plain JavaScript, no imports.

/** Frame kinds. */
export const KIND_JSON = 1;
export const KIND_BINARY = 2;
const HEADER = 5;

/**
 * Encode one JSON message, optionally followed by one binary attachment.
 * @param {unknown} message
 * @param {Uint8Array} [binary]
 * @returns {Uint8Array[]}
 */
export function encodeFrames(message, binary) {
  const json = new TextEncoder().encode(JSON.stringify(message));
  const out = [header(json.length, KIND_JSON), json];
  if (binary) out.push(header(binary.length, KIND_BINARY), binary);
  return out;
}

/**
 * Encode one binary frame on its own (a run's file chunk, after its run's JSON frame).
 * @param {Uint8Array} binary
 * @returns {Uint8Array[]}
 */
export function encodeBinaryFrame(binary) {
  return [header(binary.length, KIND_BINARY), binary];
}

/** @param {number} length @param {number} kind */
function header(length, kind) {
  const h = new Uint8Array(HEADER);
  new DataView(h.buffer).setUint32(0, length, false);
  h[4] = kind;
  return h;
}

/**
 * @typedef {object} FrameLimits
 * @property {number} maxJson  Largest JSON payload accepted, in bytes.
 * @property {() => number} maxBinary  Largest binary payload accepted now (0: none expected).
 * @property {number} [maxDepth]  Deepest JSON nesting accepted (default 64), checked before parsing.
 */

/**
 * @typedef {object} FrameEvents
 * @property {(message: unknown) => void} onJson  A JSON frame, parsed (not yet validated).
 * @property {(bytes: Uint8Array) => void} onBinary  A binary frame.
 * @property {(why: string) => void} onViolation  The peer broke the framing; stop reading it.
 */

/**
 * An incremental frame reader. `push` the bytes as they arrive; after a violation every later
 * byte is ignored.
 */
export class FrameReader {
  /** @param {FrameLimits} limits @param {FrameEvents} events */
  constructor(limits, events) {
    this.limits = limits;
    this.events = events;
    /** @type {Uint8Array[]} */
    this.chunks = [];
    this.buffered = 0;
    /** @type {{length: number, kind: number} | null} */
    this.pending = null;
    this.broken = false;
  }

  /** @param {Uint8Array} chunk */
  push(chunk) {
    if (this.broken) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    for (;;) {
      if (this.broken) return;
      if (!this.pending) {
        if (this.buffered < HEADER) return;
        const h = this.take(HEADER);
        const length = new DataView(h.buffer, h.byteOffset, HEADER).getUint32(0, false);
        const kind = h[4];
        const max =
          kind === KIND_JSON ? this.limits.maxJson : kind === KIND_BINARY ? this.limits.maxBinary() : -1;
        if (max < 0) return this.violate(`unknown frame kind ${kind}`);
        if (length > max) return this.violate(`a frame of ${length} bytes is over the limit of ${max}`);
        this.pending = { length, kind };
      }
      if (this.buffered < this.pending.length) return;
      const { length, kind } = this.pending;
      this.pending = null;
      const payload = this.take(length);
      if (kind === KIND_BINARY) {
        this.events.onBinary(payload);
        continue;
      }
      let message;
      try {
        const text = new TextDecoder('utf-8', { fatal: true }).decode(payload);
        const maxDepth = this.limits.maxDepth ?? 64;
        if (jsonDepth(text, maxDepth) > maxDepth) return this.violate('a frame is nested too deeply');
        message = JSON.parse(text);
      } catch {
        return this.violate('a frame is not UTF-8 JSON');
      }
      this.events.onJson(message);
    }
  }

  /** @param {string} why */
  violate(why) {
    this.broken = true;
    this.chunks = [];
    this.buffered = 0;
    this.events.onViolation(why);
  }

  /** @param {number} n */
  take(n) {
    const out = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const c = /** @type {Uint8Array} */ (this.chunks[0]);
      const need = n - at;
      if (c.length <= need) {
        out.set(c, at);
        at += c.length;
        this.chunks.shift();
      } else {
        out.set(c.subarray(0, need), at);
        this.chunks[0] = c.subarray(need);
        at += need;
      }
    }
    this.buffered -= n;
    return out;
  }
}

/**
 * The nesting depth of a JSON text, found by scanning (no parse), so a hostile payload can be
 * refused before `JSON.parse` recurses on it. Returns `Infinity` as soon as `max` is passed.
 * @param {string} text
 * @param {number} max
 */
export function jsonDepth(text, max) {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > max) return Number.POSITIVE_INFINITY;
      }
    } else if (c === 93 || c === 125) depth--;
  }
  return deepest;
}
