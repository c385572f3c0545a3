/**
 * Exact integer dot products of one query with every vector of a catalog: int8 vectors (rows of
 * `dims`, a multiple of 16) against an int16 query, in a WebAssembly SIMD loop (16 components a
 * step) where the runtime has it, else the same arithmetic in JavaScript. Integer arithmetic
 * makes the two paths agree exactly, so a ranking never depends on which one ran.
 */
export interface VectorScanner {
  /** Vectors, `capacity × dims` int8 (a view: re-read it after {@link reserve}). */
  vectors: Int8Array;
  readonly dims: number;
  /** Make room for `n` vectors (keeping the first ones); views taken before are stale. */
  reserve(n: number): void;
  /** Dot products of the first `n` vectors with `query` (int16 components), into a fresh view. */
  scan(n: number, query: Int16Array): Int32Array;
  /** Whether the SIMD path runs (false: JavaScript). */
  readonly simd: boolean;
}

// The scan function, hand-assembled (no toolchain at build time) for one vector length:
// scan(v, n, q, out): for i < n: out[i] = Σ_j v[i·dims + j] · q[j]. The query sits in v128 locals
// for the whole scan and each row is unrolled, 16 components a step (one load,
// i16x8.extend_{low,high}_i8x16_s, i32x4.dot_i16x8_s, i32x4.add) into two accumulators (so
// consecutive steps do not wait on each other), whose lanes are summed at the end of the row.
// Sums wrap modulo 2³² exactly as the JavaScript path's `| 0` does, so the two always agree.
const simd = (op: number) => [0xfd, ...leb(op)];
const leb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};
const section = (id: number, body: number[]) => [id, ...leb(body.length), ...body];
const str = (s: string) => [s.length, ...[...s].map((c) => c.charCodeAt(0))];

const GET = 0x20;
const SET = 0x21;
const TEE = 0x22;
const I32 = (n: number) => [0x41, ...sleb(n)];
function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}
const V128_LOAD = (offset: number) => [...simd(0x00), 0x00, ...leb(offset)];
const EXTEND_LOW = simd(0x87); // i16x8.extend_low_i8x16_s
const EXTEND_HIGH = simd(0x88); // i16x8.extend_high_i8x16_s
const DOT = simd(0xba); // i32x4.dot_i16x8_s
const ADD = simd(0xae); // i32x4.add
const LANE = (i: number) => [...simd(0x1b), i]; // i32x4.extract_lane

/** The module scanning vectors of `dims` components (a multiple of 16). */
function scanModule(dims: number): Uint8Array<ArrayBuffer> {
  const steps = dims / 16;
  // Params: 0 v, 1 n, 2 q, 3 out. Locals: 4 i (i32); the query's first halves (up to 16: more
  // would spill out of the registers; the rest is read from memory), then two accumulators and
  // the loaded row part (v128).
  const held = Math.min(2 * steps, 16);
  const qGet = (h: number) => (h < held ? [GET, ...leb(5 + h)] : [GET, 2, ...V128_LOAD(h * 16)]);
  const acc = [5 + held, 6 + held];
  const x = 7 + held;
  const body: number[] = [0x02, 0x01, 0x7f, ...leb(held + 3), 0x7b];
  for (let h = 0; h < held; h++) body.push(GET, 2, ...V128_LOAD(h * 16), SET, ...leb(5 + h));
  body.push(0x02, 0x40, 0x03, 0x40); // block, loop (rows)
  body.push(GET, 4, GET, 1, 0x4f /* i32.ge_u */, 0x0d, 1 /* br_if 1: done */);
  for (let b = 0; b < steps; b++) {
    const a = acc[b % 2]!;
    body.push(GET, 0, ...V128_LOAD(b * 16), TEE, ...leb(x));
    body.push(...EXTEND_LOW, ...qGet(2 * b), ...DOT);
    if (b >= 2) body.push(GET, ...leb(a), ...ADD);
    body.push(GET, ...leb(x), ...EXTEND_HIGH, ...qGet(2 * b + 1), ...DOT, ...ADD, SET, ...leb(a));
  }
  if (steps > 1) body.push(GET, ...leb(acc[0]!), GET, ...leb(acc[1]!), ...ADD, SET, ...leb(acc[0]!));
  const a0 = leb(acc[0]!);
  body.push(GET, 3, GET, ...a0, ...LANE(0), GET, ...a0, ...LANE(1), 0x6a, GET, ...a0, ...LANE(2), 0x6a);
  body.push(GET, ...a0, ...LANE(3), 0x6a, 0x36, 0x02, 0x00 /* i32.store align=4 */);
  body.push(GET, 0, ...I32(dims), 0x6a, SET, 0); // v += dims
  body.push(GET, 3, ...I32(4), 0x6a, SET, 3); // out += 4
  body.push(GET, 4, ...I32(1), 0x6a, SET, 4); // i++
  body.push(0x0c, 0, 0x0b, 0x0b, 0x0b); // br 0 (next row), end loop, end block, end function
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, [1, 0x60, 4, 0x7f, 0x7f, 0x7f, 0x7f, 0]),
    ...section(2, [1, ...str('env'), ...str('mem'), 0x02, 0x00, 0x01]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...str('scan'), 0x00, 0]),
    ...section(10, [1, ...leb(body.length), ...body]),
  ]);
}

const compiled = new Map<number, WebAssembly.Module | null>();

function wasmModule(dims: number): WebAssembly.Module | null {
  let mod = compiled.get(dims);
  if (mod === undefined) {
    try {
      const bytes = scanModule(dims);
      mod =
        typeof WebAssembly === 'object' && WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
    } catch {
      mod = null;
    }
    compiled.set(dims, mod);
  }
  return mod;
}

const PAGE = 65536;

/** A scanner for vectors of `dims` components (a multiple of 16); `useSimd: false` forces JS. */
export function createVectorScanner(dims: number, useSimd = true): VectorScanner {
  if (dims % 16 !== 0 || dims <= 0)
    throw new Error(`vector dimensions must be a multiple of 16, not ${dims}`);
  const mod = useSimd ? wasmModule(dims) : null;
  if (!mod) return jsScanner(dims);
  const memory = new WebAssembly.Memory({ initial: 1 });
  const instance = new WebAssembly.Instance(mod, { env: { mem: memory } });
  const scanFn = instance.exports.scan as (v: number, n: number, q: number, out: number) => void;
  let capacity = 0;
  // Layout: vectors (capacity × dims), then the query (dims int16), then the results (capacity i32).
  const layout = (cap: number) => {
    const q = cap * dims;
    const out = q + dims * 2;
    return { q, out, end: out + cap * 4 };
  };
  const s: VectorScanner = {
    dims,
    simd: true,
    vectors: new Int8Array(0),
    reserve(n: number) {
      if (n <= capacity) return;
      const cap = Math.max(n, capacity * 2, 64);
      const need = layout(cap).end;
      if (memory.buffer.byteLength < need) memory.grow(Math.ceil((need - memory.buffer.byteLength) / PAGE));
      capacity = cap;
      s.vectors = new Int8Array(memory.buffer, 0, cap * dims);
    },
    scan(n: number, query: Int16Array): Int32Array {
      if (n > capacity) throw new Error('scan beyond the reserved vectors');
      const { q, out } = layout(capacity);
      new Int16Array(memory.buffer, q, dims).set(query);
      scanFn(0, n, q, out);
      return new Int32Array(memory.buffer, out, n);
    },
  };
  return s;
}

function jsScanner(dims: number): VectorScanner {
  let out = new Int32Array(0);
  const s: VectorScanner = {
    dims,
    simd: false,
    vectors: new Int8Array(0),
    reserve(n: number) {
      if (n * dims <= s.vectors.length) return;
      const grown = new Int8Array(Math.max(n, (s.vectors.length / dims) * 2, 64) * dims);
      grown.set(s.vectors);
      s.vectors = grown;
    },
    scan(n: number, query: Int16Array): Int32Array {
      if (out.length < n) out = new Int32Array(Math.max(n, out.length * 2));
      const v = s.vectors;
      for (let i = 0, o = 0; i < n; i++, o += dims) {
        let d = 0;
        for (let j = 0; j < dims; j++) d = (d + v[o + j]! * query[j]!) | 0;
        out[i] = d;
      }
      return out.subarray(0, n);
    },
  };
  return s;
}
