import Papa from 'papaparse';

/** A CSV (or TSV) file read for the canvas's table. */
export interface CsvTable {
  /** The first row, taken as the header. */
  header: string[];
  /** The rows after the header, at most `maxRows`; every row has the header's width. */
  rows: string[][];
  /** Data rows in the file (after the header). */
  total: number;
  /** The delimiter found (`,`, `;`, tab, `|`). */
  delimiter: string;
  /** Problems the parser met (an unclosed quote, rows of another width), in words, at most 5. */
  problems: string[];
}

/**
 * Parse CSV text with Papa Parse (quotes, embedded newlines and delimiters, its delimiter
 * guessing), the first row as the header. Short rows are padded and long ones keep their extra
 * cells under generated headers, so nothing in the file goes missing from the table.
 */
export function parseCsv(text: string, opts: { maxRows?: number } = {}): CsvTable {
  const maxRows = opts.maxRows ?? 1000;
  const r = Papa.parse<string[]>(text.replace(/^\uFEFF/, ''), {
    skipEmptyLines: 'greedy',
    delimitersToGuess: [',', ';', '\t', '|'],
  });
  const all = r.data;
  const header = [...(all[0] ?? [])];
  const body = all.slice(1);
  const width = Math.max(header.length, ...body.slice(0, maxRows).map((row) => row.length));
  for (let i = header.length; i < width; i++) header.push(`column ${i + 1}`);
  const rows = body.slice(0, maxRows).map((row) => {
    const out = [...row];
    while (out.length < width) out.push('');
    return out;
  });
  const problems = r.errors
    .filter((e) => e.code !== 'UndetectableDelimiter')
    .slice(0, 5)
    .map((e) => `${e.row !== undefined ? `Row ${e.row + 1}: ` : ''}${e.message}`);
  return { header, rows, total: body.length, delimiter: r.meta.delimiter, problems };
}

/** Rows of plain objects as CSV text (a tool's table result, to open or download as a file). */
export function toCsv(rows: Array<Record<string, unknown>>): string {
  const cell = (v: unknown) =>
    v === null || v === undefined
      ? ''
      : Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')
        ? v.join('; ')
        : typeof v === 'object'
          ? JSON.stringify(v)
          : v;
  return Papa.unparse(rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, cell(v)]))));
}
