// A Parquet file pandas wrote (pyarrow, Snappy, the defaults `df.to_parquet` uses) is read as a
// table: the fixture was made with pandas 2 and pyarrow from PyPI, not by this code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isParquet } from './canvas-docs.js';
import { readParquet } from './parquet.js';

const bytes = new Uint8Array(readFileSync(join(import.meta.dirname, 'fixtures', 'sales.parquet')));

describe('a Parquet file in the canvas', () => {
  it('is known by its magic bytes, not its name', () => {
    expect(isParquet(bytes)).toBe(true);
    expect(isParquet(new TextEncoder().encode('region,amount\nnorth,1\n'))).toBe(false);
    expect(isParquet(bytes.subarray(0, bytes.length - 1))).toBe(false);
  });

  it('reads as rows of text cells: numbers, big integers whole, dates as their day, nulls empty', async () => {
    const t = await readParquet(bytes);
    expect(t.header).toEqual(['region', 'amount', 'orders', 'day', 'note']);
    expect(t.total).toBe(3);
    expect(t.rows[0]).toEqual(['north', '10.5', '3', '2026-01-02', 'ok']);
    expect(t.rows[1]![4]).toBe('');
    expect(t.rows[2]).toEqual(['east', '33.25', '1000000000000', '2026-01-04', 'big, "quoted"']);
  });

  it('stops at the rows asked for and still says how many there are', async () => {
    const t = await readParquet(bytes, { maxRows: 2 });
    expect(t.rows).toHaveLength(2);
    expect(t.total).toBe(3);
  });
});
