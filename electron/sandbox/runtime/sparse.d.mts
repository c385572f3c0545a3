/** Types of `sparse.mjs` (plain JavaScript, shared with the sandbox process and its workers). */
/** A copy of a byte array that keeps only its runs of 4 KiB pages holding data. */
export interface SparseCopy {
  /** Length of the array copied. */
  byteLength: number;
  /** `[start, end, offset in data]` per run of pages holding data. */
  runs: Int32Array;
  /** The bytes of those runs, back to back. */
  data: Uint8Array;
}
/** The runs of `bytes` that hold data, copied. */
export function sparseCopy(bytes: Uint8Array): SparseCopy;
/** Write `copy` back over `target`: its runs, zeros everywhere else (past `copy.byteLength` too). */
export function writeSparse(target: Uint8Array, copy: SparseCopy, zeroed?: boolean): void;
/** The bytes a sparse copy was made of. */
export function expandSparse(copy: SparseCopy): Uint8Array;
/** Whether `value` is a well-formed sparse copy (runs in order, inside the array and the data). */
export function isSparseCopy(value: unknown): value is SparseCopy;
/** `bytes` as a packed sparse copy in one buffer (its wire form). */
export function packSparse(bytes: Uint8Array): Uint8Array;
/** The sparse copy a packed buffer holds (data viewed, not copied), or null when malformed. */
export function unpackSparse(packed: Uint8Array): SparseCopy | null;
