import { parquetMetadata, parquetReadObjects, parquetSchema } from 'hyparquet';

/** A Parquet file read for the canvas's table: the same shape as a CSV's, cells as text. */
export interface ParquetTable {
  header: string[];
  /** The first rows, at most `maxRows`. */
  rows: string[][];
  /** Rows in the file. */
  total: number;
}

/** One cell as the table shows it: dates as ISO text (a midnight as its day), big integers whole, nested values as JSON. */
function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Date) {
    if (Number.isNaN(v.getTime())) return '';
    // A day (midnight UTC, what pandas writes for a date) reads as the day alone.
    const iso = v.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
  }
  if (typeof v === 'object')
    return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)) ?? '';
  return String(v);
}

/**
 * Read the first rows of a Parquet file with hyparquet (pure JavaScript: its own Snappy, no
 * native code in the renderer). What pandas and pyarrow write by default (Snappy) opens; a codec
 * hyparquet does not know fails with its message, which the canvas shows beside Download.
 */
export async function readParquet(bytes: Uint8Array, opts: { maxRows?: number } = {}): Promise<ParquetTable> {
  const maxRows = opts.maxRows ?? 1000;
  // hyparquet reads from an ArrayBuffer of the file alone (a view's buffer may hold more).
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const metadata = parquetMetadata(file);
  const header = parquetSchema(metadata).children.map((c) => c.element.name);
  const total = Number(metadata.num_rows);
  const objects = await parquetReadObjects({ file, metadata, rowStart: 0, rowEnd: Math.min(total, maxRows) });
  return { header, rows: objects.map((o) => header.map((h) => cell(o[h]))), total };
}
