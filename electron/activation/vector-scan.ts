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

// The scan function, hand-assembled (no toolchain at build time):
// scan(v, n, dims, q, out): for i < n: out[i] = Σ_j v[i·dims + j] · q[j], 16 components a step
// (i16x8.extend_{low,high}_i8x16_s, i32x4.dot_i16x8_s, i32x4.add), lanes summed at the end.
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

// Locals: 0 v, 1 n, 2 dims, 3 q, 4 out (params); 5 i, 6 j (i32); 7 acc, 8 x (v128).
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
const qAddr = [GET, 3, GET, 6, ...I32(1), 0x74 /* i32.shl */, 0x6a /* i32.add */];
const body = [
  // locals: 2 × i32, 2 × v128
  0x02,
  0x02,
  0x7f,
  0x02,
  0x7b,
  0x02,
  0x40, // block
  0x03,
  0x40, // loop (slots)
  GET,
  5,
  GET,
  1,
  0x4f, // i32.ge_u
  0x0d,
  1, // br_if 1 (out of the block)
  ...simd(0x0c),
  ...new Array<number>(16).fill(0), // v128.const 0
  SET,
  7,
  ...I32(0),
  SET,
  6,
  0x03,
  0x40, // loop (components, 16 a step)
  GET,
  0,
  GET,
  6,
  0x6a,
  ...V128_LOAD(0),
  SET,
  8,
  GET,
  7,
  GET,
  8,
  ...simd(0x87), // i16x8.extend_low_i8x16_s
  ...qAddr,
  ...V128_LOAD(0),
  ...simd(0xba), // i32x4.dot_i16x8_s
  ...simd(0xae), // i32x4.add
  GET,
  8,
  ...simd(0x88), // i16x8.extend_high_i8x16_s
  ...qAddr,
  ...V128_LOAD(16),
  ...simd(0xba),
  ...simd(0xae),
  SET,
  7,
  GET,
  6,
  ...I32(16),
  0x6a,
  TEE,
  6,
  GET,
  2,
  0x49, // i32.lt_u
  0x0d,
  0, // br_if 0 (next components)
  0x0b, // end loop
  GET,
  4,
  GET,
  5,
  ...I32(2),
  0x74,
  0x6a, // out + 4i
  GET,
  7,
  ...simd(0x1b),
  0, // i32x4.extract_lane 0
  GET,
  7,
  ...simd(0x1b),
  1,
  0x6a,
  GET,
  7,
  ...simd(0x1b),
  2,
  0x6a,
  GET,
  7,
  ...simd(0x1b),
  3,
  0x6a,
  0x36,
  0x02,
  0x00, // i32.store align=4
  GET,
  0,
  GET,
  2,
  0x6a,
  SET,
  0, // v += dims
  GET,
  5,
  ...I32(1),
  0x6a,
  SET,
  5, // i++
  0x0c,
  0, // br 0 (next slot)
  0x0b, // end loop
  0x0b, // end block
  0x0b, // end function
];
const WASM = new Uint8Array([
  0x00,
  0x61,
  0x73,
  0x6d,
  0x01,
  0x00,
  0x00,
  0x00,
  ...section(1, [1, 0x60, 5, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0]),
  ...section(2, [1, ...str('env'), ...str('mem'), 0x02, 0x00, 0x01]),
  ...section(3, [1, 0]),
  ...section(7, [1, ...str('scan'), 0x00, 0]),
  ...section(10, [1, ...leb(body.length), ...body]),
]);

let compiled: WebAssembly.Module | null | undefined;

function wasmModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    try {
      compiled =
        typeof WebAssembly === 'object' && WebAssembly.validate(WASM) ? new WebAssembly.Module(WASM) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

const PAGE = 65536;

/** A scanner for vectors of `dims` components (a multiple of 16); `useSimd: false` forces JS. */
export function createVectorScanner(dims: number, useSimd = true): VectorScanner {
  if (dims % 16 !== 0 || dims <= 0)
    throw new Error(`vector dimensions must be a multiple of 16, not ${dims}`);
  const mod = useSimd ? wasmModule() : null;
  if (!mod) return jsScanner(dims);
  const memory = new WebAssembly.Memory({ initial: 1 });
  const instance = new WebAssembly.Instance(mod, { env: { mem: memory } });
  const scanFn = instance.exports.scan as (
    v: number,
    n: number,
    dims: number,
    q: number,
    out: number,
  ) => void;
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
      scanFn(0, n, dims, q, out);
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
