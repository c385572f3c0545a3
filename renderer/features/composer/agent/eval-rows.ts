/**
 * A skill's `evals/evals.json` as rows the Composer edits: each row holds what the form shows
 * (prompt, expected output, checks, files, whether it is a trigger eval) beside the eval object it
 * came from, so a write puts back every field the form does not show (ids, names, context,
 * `contains` checks, fields of tools we do not know). Pure functions only.
 */
import { EvalsFileSchema } from '../../../../electron/contract/evals.js';

/** Where the evals live among a skill's bundled files. */
export const EVALS_FILE = 'evals/evals.json';

/** Whether a row is an output eval or a trigger eval that should (or should not) fire. */
export type EvalRowKind = 'output' | 'trigger-yes' | 'trigger-no';

/** One eval as the rows editor holds it. */
export interface EvalRow {
  kind: EvalRowKind;
  prompt: string;
  expected_output: string;
  /** Statements the judge model grades (the string `assertions`, or `expectations`). */
  checks: string[];
  /** Paths of bundled files given to the model as attachments. */
  files: string[];
  /** The eval object as read (or `{}` for a new row): its other fields are written back as they were. */
  original: Record<string, unknown>;
}

/** The rows and the file's own fields (threshold, skill_name, unknown ones). */
export interface EvalRows {
  rows: EvalRow[];
  top: Record<string, unknown>;
}

/** The file read: rows to edit, or why it cannot be edited as rows (the raw text is then shown). */
export type ParsedEvals = { ok: true; value: EvalRows; issues: string[] } | { ok: false; error: string };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The field an eval's string checks live in: `expectations` when it uses only those, else `assertions`. */
function checksField(e: Record<string, unknown>): 'assertions' | 'expectations' {
  const hasStringAssertion = Array.isArray(e.assertions) && e.assertions.some((a) => typeof a === 'string');
  return Array.isArray(e.expectations) && !hasStringAssertion ? 'expectations' : 'assertions';
}

function rowOf(e: Record<string, unknown>): EvalRow {
  const field = checksField(e);
  const list = Array.isArray(e[field]) ? (e[field] as unknown[]) : [];
  return {
    kind: e.should_trigger === true ? 'trigger-yes' : e.should_trigger === false ? 'trigger-no' : 'output',
    prompt: typeof e.prompt === 'string' ? e.prompt : '',
    expected_output: typeof e.expected_output === 'string' ? e.expected_output : '',
    checks: list.filter((x): x is string => typeof x === 'string'),
    files: Array.isArray(e.files) ? e.files.filter((x): x is string => typeof x === 'string') : [],
    original: e,
  };
}

/**
 * Read the file's text as rows. Text that is not JSON, or JSON that is not an object with an
 * `evals` list of objects, cannot be edited as rows (`ok: false`, the caller keeps the text).
 * What the main process would refuse on a run (an empty prompt, no evals) is said in `issues`.
 */
export function parseEvalRows(text: string): ParsedEvals {
  if (text.trim() === '') return { ok: true, value: { rows: [], top: {} }, issues: [] };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `${EVALS_FILE} is not JSON: ${(e as Error).message}` };
  }
  if (!isObject(raw) || !Array.isArray(raw.evals) || !raw.evals.every(isObject)) {
    return {
      ok: false,
      error: `${EVALS_FILE} should be an object with an "evals" list of objects ({"evals": [{"id": 1, "prompt": "…"}]})`,
    };
  }
  const { evals, ...top } = raw;
  return {
    ok: true,
    value: { rows: (evals as Record<string, unknown>[]).map(rowOf), top },
    issues: evalIssues(raw),
  };
}

/** What a run would refuse in the file, in words ("eval 2: prompt: …"); empty when it is valid. */
export function evalIssues(raw: unknown): string[] {
  const r = EvalsFileSchema.safeParse(raw);
  if (r.success) return [];
  return r.error.issues.slice(0, 5).map((i) => {
    const [first, n, ...rest] = i.path;
    if (first === 'evals' && typeof n === 'number') {
      const where = rest.length > 0 ? `${rest.join('.')}: ` : '';
      return `eval ${n + 1}: ${where}${i.message}`;
    }
    return `${i.path.join('.') || 'the file'}: ${i.message}`;
  });
}

function sameList(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** One row as an eval object: the original's fields, with what the form edits written over them. */
function evalOf(row: EvalRow): Record<string, unknown> {
  const o: Record<string, unknown> = { ...row.original, prompt: row.prompt };
  if (row.kind === 'output') delete o.should_trigger;
  else o.should_trigger = row.kind === 'trigger-yes';
  if (row.expected_output !== '' || 'expected_output' in row.original)
    o.expected_output = row.expected_output;
  if (row.files.length > 0 || 'files' in row.original) o.files = row.files;
  const before = rowOf(row.original);
  // Unchanged checks leave the fields exactly as they were (order of mixed lists included).
  if (!sameList(before.checks, row.checks)) {
    const field = checksField(row.original);
    const others = Array.isArray(row.original[field])
      ? (row.original[field] as unknown[]).filter((x) => typeof x !== 'string')
      : [];
    o[field] = [...row.checks, ...others];
  }
  return o;
}

/** The file's text for these rows: the file's own fields first, then the evals, two-space indented. */
export function writeEvalRows(value: EvalRows): string {
  return `${JSON.stringify({ ...value.top, evals: value.rows.map(evalOf) }, null, 2)}\n`;
}

/** A new row with the next free numeric id. */
export function newEvalRow(rows: readonly EvalRow[], kind: EvalRowKind = 'output'): EvalRow {
  const ids = rows.map((r) => r.original.id).filter((x): x is number => typeof x === 'number');
  const id = rows.length === 0 ? 1 : Math.max(rows.length, ...ids) + 1;
  return {
    kind,
    prompt: '',
    expected_output: '',
    checks: kind === 'output' ? [''] : [],
    files: [],
    original: { id },
  };
}

/** The id an eval result carries for the row (the eval's `id`, as the main process names it). */
export function rowId(row: EvalRow, index: number): string {
  const id = row.original.id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : String(index + 1);
}
