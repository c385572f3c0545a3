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
  /** A weight per vector, `capacity` of them (a view: re-read it after {@link reserve}). */
  weights: Float64Array;
  /**
   * The vectors `from` ≤ i < `to` whose `(dot − offset) · weights[i]` (in float64, as JavaScript
   * computes it) is at least `least`: their indexes and dot products, in index order, into fresh
   * views. A scan that leaves the choosing of a few to the caller without reading every result.
   */
  scanAbove(
    from: number,
    to: number,
    query: Int16Array,
    offset: number,
    least: number,
  ): { rows: Int32Array; dots: Int32Array };
  /** Whether the SIMD path runs (false: JavaScript). */
  readonly simd: boolean;
  /**
   * The scanner's memory for another thread (the scan thread), or null where it cannot be shared
   * (no SIMD, or no shared WebAssembly memory).
   */
  readonly shared: SharedScan | null;
}

/**
 * A scanner's memory as another thread (the scan thread) scans it: the compiled module and the
 * shared memory, so that thread instantiates the same kernel over the same vectors, and the
 * kernel's `above` in chunks, on either thread. The shared query and result areas are apart from
 * the ones {@link VectorScanner.scan} and {@link VectorScanner.scanAbove} use, and a chunk
 * `from`..`to` writes its kept rows at its own place (from `from` on), so chunks never overlap.
 */
export interface SharedScan {
  readonly memory: WebAssembly.Memory;
  readonly module: WebAssembly.Module;
  /** Copy the query into the shared query area (read by every chunk's `above`). */
  setQuery(query: Int16Array): void;
  /** `above`'s pointer arguments for the vectors `from` ≤ i < `to`. */
  chunk(from: number, to: number): AboveArgs;
  /** Run `above` over a chunk on this thread: how many rows it kept (at `args.rows`, `args.dots`). */
  above(args: AboveArgs, offset: number, least: number): number;
}

/** The integer arguments of the kernel's `above` function (its two f64 ones travel apart). */
export interface AboveArgs {
  v: number;
  n: number;
  q: number;
  w: number;
  rows: number;
  dots: number;
  first: number;
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

/** The largest memory a scanner may grow to, in pages (a shared memory must declare one): 4 GiB. */
const MAX_PAGES = 65536;

/**
 * The module scanning vectors of `dims` components (a multiple of 16): `scan` and `above`, over
 * an imported memory, shared (so another thread can scan it too) or not.
 */
function scanModule(dims: number, shared: boolean): Uint8Array<ArrayBuffer> {
  const steps = dims / 16;
  // The query's first halves sit in v128 locals (up to 16: more would spill out of the registers;
  // the rest is read from memory), then two accumulators and the loaded row part.
  const held = Math.min(2 * steps, 16);
  /** The body of a function whose params are `params` and whose i32 locals are `ints`, with `q` its query param. */
  const frame = (params: number, ints: number, q: number) => {
    const base = params + ints;
    const qGet = (h: number) => (h < held ? [GET, ...leb(base + h)] : [GET, q, ...V128_LOAD(h * 16)]);
    const acc = [base + held, base + held + 1];
    const x = base + held + 2;
    const decl = [0x02, ...leb(ints), 0x7f, ...leb(held + 3), 0x7b];
    const load: number[] = [];
    for (let h = 0; h < held; h++) load.push(GET, q, ...V128_LOAD(h * 16), SET, ...leb(base + h));
    // One row's dot product (the row at local `v`), left on the stack as an i32.
    const row = (v: number) => {
      const out: number[] = [];
      for (let b = 0; b < steps; b++) {
        const a = acc[b % 2]!;
        out.push(GET, v, ...V128_LOAD(b * 16), TEE, ...leb(x));
        out.push(...EXTEND_LOW, ...qGet(2 * b), ...DOT);
        if (b >= 2) out.push(GET, ...leb(a), ...ADD);
        out.push(GET, ...leb(x), ...EXTEND_HIGH, ...qGet(2 * b + 1), ...DOT, ...ADD, SET, ...leb(a));
      }
      if (steps > 1) out.push(GET, ...leb(acc[0]!), GET, ...leb(acc[1]!), ...ADD, SET, ...leb(acc[0]!));
      const a0 = leb(acc[0]!);
      out.push(GET, ...a0, ...LANE(0), GET, ...a0, ...LANE(1), 0x6a, GET, ...a0, ...LANE(2), 0x6a);
      out.push(GET, ...a0, ...LANE(3), 0x6a);
      return out;
    };
    return { decl, load, row };
  };
  // scan(v 0, n 1, q 2, out 3); i 4.
  const f1 = frame(4, 1, 2);
  const scan: number[] = [...f1.decl, ...f1.load, 0x02, 0x40, 0x03, 0x40];
  scan.push(GET, 4, GET, 1, 0x4f /* i32.ge_u */, 0x0d, 1 /* br_if 1: done */);
  scan.push(GET, 3, ...f1.row(0), 0x36, 0x02, 0x00 /* i32.store align=4 */);
  scan.push(GET, 0, ...I32(dims), 0x6a, SET, 0); // v += dims
  scan.push(GET, 3, ...I32(4), 0x6a, SET, 3); // out += 4
  scan.push(GET, 4, ...I32(1), 0x6a, SET, 4); // i++
  scan.push(0x0c, 0, 0x0b, 0x0b, 0x0b); // br 0 (next row), end loop, end block, end function
  // above(v 0, n 1, q 2, w 3, offset 4 f64, least 5 f64, rows 6, dots 7, first 8) → count;
  // i 9, count 10, d 11.
  const f2 = frame(9, 3, 2);
  const above: number[] = [...f2.decl, ...f2.load, 0x02, 0x40, 0x03, 0x40];
  above.push(GET, 9, GET, 1, 0x4f, 0x0d, 1);
  above.push(...f2.row(0), SET, 11);
  // (f64(d) − offset) · w[i] ≥ least
  above.push(GET, 11, 0xb7 /* f64.convert_i32_s */, GET, 4, 0xa1 /* f64.sub */);
  above.push(GET, 3, 0x2b, 0x03, 0x00 /* f64.load align=8 */, 0xa2 /* f64.mul */, GET, 5, 0x66 /* f64.ge */);
  above.push(0x04, 0x40); // if
  above.push(GET, 6, GET, 10, ...I32(2), 0x74, 0x6a, GET, 9, GET, 8, 0x6a, 0x36, 0x02, 0x00); // rows[count] = first + i
  above.push(GET, 7, GET, 10, ...I32(2), 0x74, 0x6a, GET, 11, 0x36, 0x02, 0x00); // dots[count] = d
  above.push(GET, 10, ...I32(1), 0x6a, SET, 10, 0x0b); // count++, end if
  above.push(GET, 0, ...I32(dims), 0x6a, SET, 0); // v += dims
  above.push(GET, 3, ...I32(8), 0x6a, SET, 3); // w += 8
  above.push(GET, 9, ...I32(1), 0x6a, SET, 9); // i++
  above.push(0x0c, 0, 0x0b, 0x0b, GET, 10, 0x0b); // br 0, end loop, end block, count, end
  const I = 0x7f;
  const F = 0x7c;
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, [2, 0x60, 4, I, I, I, I, 0, 0x60, 9, I, I, I, I, F, F, I, I, I, 1, I]),
    ...section(2, [
      1,
      ...str('env'),
      ...str('mem'),
      0x02,
      ...(shared ? [0x03, 0x01, ...leb(MAX_PAGES)] : [0x00, 0x01]),
    ]),
    ...section(3, [2, 0, 1]),
    ...section(7, [2, ...str('scan'), 0x00, 0, ...str('above'), 0x00, 1]),
    ...section(10, [2, ...leb(scan.length), ...scan, ...leb(above.length), ...above]),
  ]);
}

const compiled = new Map<string, WebAssembly.Module | null>();

function wasmModule(dims: number, shared: boolean): WebAssembly.Module | null {
  const key = `${dims}:${shared}`;
  let mod = compiled.get(key);
  if (mod === undefined) {
    try {
      const bytes = scanModule(dims, shared);
      mod =
        typeof WebAssembly === 'object' && WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
    } catch {
      mod = null;
    }
    compiled.set(key, mod);
  }
  return mod;
}

/** A shared memory of `pages` (never grown) and the module for it; null where the runtime has none. */
function sharedMemory(
  dims: number,
  pages: number,
): { memory: WebAssembly.Memory; mod: WebAssembly.Module } | null {
  const mod = wasmModule(dims, true);
  if (!mod || typeof SharedArrayBuffer !== 'function') return null;
  try {
    return { memory: new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true }), mod };
  } catch {
    return null;
  }
}

const PAGE = 65536;

/** A scanner for vectors of `dims` components (a multiple of 16); `useSimd: false` forces JS. */
export function createVectorScanner(dims: number, useSimd = true): VectorScanner {
  if (dims % 16 !== 0 || dims <= 0)
    throw new Error(`vector dimensions must be a multiple of 16, not ${dims}`);
  const sharing = useSimd ? sharedMemory(dims, 1) : null;
  const mod = sharing?.mod ?? (useSimd ? wasmModule(dims, false) : null);
  if (!mod) return jsScanner(dims);
  let memory = sharing?.memory ?? new WebAssembly.Memory({ initial: 1 });
  type Above = (
    v: number,
    n: number,
    q: number,
    w: number,
    offset: number,
    least: number,
    rows: number,
    dots: number,
    first: number,
  ) => number;
  let scanFn: (v: number, n: number, q: number, out: number) => void;
  let aboveFn: Above;
  const instantiate = () => {
    const instance = new WebAssembly.Instance(mod, { env: { mem: memory } });
    scanFn = instance.exports.scan as typeof scanFn;
    aboveFn = instance.exports.above as Above;
  };
  instantiate();
  let capacity = 0;
  // Layout: vectors (capacity × dims), weights (capacity f64), the query (dims int16), then the
  // results (capacity i32, twice: dot products, and the rows `above` keeps); where shared, the
  // scan thread's own query and results after them.
  const layout = (cap: number) => {
    const w = Math.ceil((cap * dims) / 8) * 8;
    const q = w + cap * 8;
    const out = q + dims * 2;
    const rows = out + cap * 4;
    const tq = rows + cap * 4;
    const tout = tq + dims * 2;
    const trows = tout + cap * 4;
    return { w, q, out, rows, tq, tout, trows, end: sharing ? trows + cap * 4 : tq };
  };
  const s: VectorScanner = {
    dims,
    simd: true,
    vectors: new Int8Array(0),
    weights: new Float64Array(0),
    reserve(n: number) {
      if (n <= capacity) return;
      const cap = Math.max(n, capacity * 2, 64);
      // The weights move (the vectors grow over them): kept aside while the memory grows.
      const kept = s.weights.slice();
      const need = layout(cap).end;
      if (memory.buffer.byteLength < need) {
        const pages = Math.ceil(need / PAGE);
        if (sharing) {
          // A shared memory is not grown but replaced (its vectors copied over): a scan thread
          // still writing into the old one, stopped but not yet gone, can never touch the new one.
          const grown = sharedMemory(dims, pages);
          if (!grown) throw new Error('no shared memory for the vectors');
          new Int8Array(grown.memory.buffer).set(new Int8Array(memory.buffer, 0, capacity * dims));
          memory = grown.memory;
          instantiate();
        } else memory.grow(pages - memory.buffer.byteLength / PAGE);
      }
      capacity = cap;
      s.vectors = new Int8Array(memory.buffer, 0, cap * dims);
      s.weights = new Float64Array(memory.buffer, layout(cap).w, cap);
      s.weights.fill(0);
      s.weights.set(kept);
    },
    scan(n: number, query: Int16Array): Int32Array {
      if (n > capacity) throw new Error('scan beyond the reserved vectors');
      const { q, out } = layout(capacity);
      new Int16Array(memory.buffer, q, dims).set(query);
      scanFn(0, n, q, out);
      return new Int32Array(memory.buffer, out, n);
    },
    scanAbove(from: number, to: number, query: Int16Array, offset: number, least: number) {
      if (to > capacity || from < 0 || from > to) throw new Error('scan beyond the reserved vectors');
      const { w, q, out, rows } = layout(capacity);
      new Int16Array(memory.buffer, q, dims).set(query);
      const n = aboveFn(from * dims, to - from, q, w + from * 8, offset, least, rows, out, from);
      return { rows: new Int32Array(memory.buffer, rows, n), dots: new Int32Array(memory.buffer, out, n) };
    },
    shared: sharing
      ? {
          get memory() {
            return memory;
          },
          module: mod,
          setQuery(query: Int16Array) {
            new Int16Array(memory.buffer, layout(capacity).tq, dims).set(query);
          },
          chunk(from: number, to: number): AboveArgs {
            if (to > capacity || from < 0 || from > to) throw new Error('scan beyond the reserved vectors');
            const { w, tq, tout, trows } = layout(capacity);
            return {
              v: from * dims,
              n: to - from,
              q: tq,
              w: w + from * 8,
              rows: trows + from * 4,
              dots: tout + from * 4,
              first: from,
            };
          },
          above(a: AboveArgs, offset: number, least: number): number {
            return aboveFn(a.v, a.n, a.q, a.w, offset, least, a.rows, a.dots, a.first);
          },
        }
      : null,
  };
  return s;
}

function jsScanner(dims: number): VectorScanner {
  let out = new Int32Array(0);
  const s: VectorScanner = {
    dims,
    simd: false,
    shared: null,
    vectors: new Int8Array(0),
    weights: new Float64Array(0),
    reserve(n: number) {
      if (n * dims <= s.vectors.length) return;
      const cap = Math.max(n, (s.vectors.length / dims) * 2, 64);
      const grown = new Int8Array(cap * dims);
      grown.set(s.vectors);
      s.vectors = grown;
      const weights = new Float64Array(cap);
      weights.set(s.weights);
      s.weights = weights;
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
    scanAbove(from: number, to: number, query: Int16Array, offset: number, least: number) {
      const all = s.scan(to, query);
      const rows: number[] = [];
      const dots: number[] = [];
      for (let i = from; i < to; i++) {
        if ((all[i]! - offset) * s.weights[i]! >= least) {
          rows.push(i);
          dots.push(all[i]!);
        }
      }
      return { rows: Int32Array.from(rows), dots: Int32Array.from(dots) };
    },
  };
  return s;
}
