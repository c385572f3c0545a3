import { useState } from 'react';
import { CodeBlock } from './CodeBlock.js';
import { Markdown } from './Markdown.js';

type Rec = Record<string, unknown>;

const isRec = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);
const isScalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/** Past these a table stops growing; the raw JSON still has everything. */
const MAX_ROWS = 50;
const MAX_COLUMNS = 8;
/** How deep nested objects are laid out before they are shown as JSON. */
const MAX_DEPTH = 3;

/** The JSON of a value, indented (for the raw view and for cells too deep to lay out). */
export function toJson(v: unknown): string {
  try {
    return JSON.stringify(v, null, 2) ?? String(v);
  } catch {
    return String(v);
  }
}

/** Whether a value fits a table cell: a scalar, a one-line string, or a small nested value. */
function fitsCell(v: unknown): boolean {
  if (typeof v === 'string') return v.length <= 200 && !v.includes('\n');
  if (isScalar(v) || v === undefined) return true;
  return (JSON.stringify(v)?.length ?? 0) <= 80;
}

/**
 * Whether an array reads best as a table: plain objects whose values fit cells. Rows carrying
 * long text (a skill's outputs) are laid out one by one instead, their text rendered.
 */
export function isTable(v: unknown): v is Rec[] {
  return Array.isArray(v) && v.length > 0 && v.every((r) => isRec(r) && Object.values(r).every(fitsCell));
}

/** The columns of a table: every key in first-seen order, at most {@link MAX_COLUMNS}. */
export function tableColumns(rows: Rec[]): { columns: string[]; more: number } {
  const seen: string[] = [];
  for (const r of rows) for (const k of Object.keys(r)) if (!seen.includes(k)) seen.push(k);
  return { columns: seen.slice(0, MAX_COLUMNS), more: Math.max(0, seen.length - MAX_COLUMNS) };
}

function cell(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (isScalar(v)) return String(v);
  return JSON.stringify(v);
}

function Table({ rows }: { rows: Rec[] }) {
  const { columns, more } = tableColumns(rows);
  const shown = rows.slice(0, MAX_ROWS);
  return (
    <div className="md result__table">
      <div className="md-table">
        <table>
          <thead>
            <tr>
              {columns.map((c) => (
                <th key={c}>{c}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((r, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity of their own
              <tr key={i}>
                {columns.map((c) => (
                  <td key={c}>{cell(r[c])}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {(rows.length > shown.length || more > 0) && (
        <p className="result__note">
          {rows.length > shown.length ? `First ${shown.length} of ${rows.length} rows. ` : ''}
          {more > 0 ? `${more} more column${more === 1 ? '' : 's'} in the JSON.` : ''}
        </p>
      )}
    </div>
  );
}

interface RunOutput {
  artifact: string;
  kind?: string;
  ok?: boolean;
  text?: string;
  data?: unknown;
  error?: string;
  fallback?: unknown;
  failed_assertions?: string[];
}

/** A skill's run (`{skill, outputs: [{artifact, text | data | error}]}`), as the chat's skill tools return it. */
function isSkillRun(r: Rec): r is Rec & { outputs: RunOutput[] } {
  return (
    Array.isArray(r.outputs) &&
    r.outputs.length > 0 &&
    r.outputs.every((o) => isRec(o) && typeof o.artifact === 'string')
  );
}

/** Each artifact's output under its name: its text rendered, its data laid out, its failure in words. */
function SkillRun({ outputs, depth }: { outputs: RunOutput[]; depth: number }) {
  return (
    <div className="result__run">
      {outputs.map((o, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: an artifact may run twice in one call
        <section key={i} className="result__output" aria-label={o.artifact}>
          <h5 className="result__artifact">
            {o.artifact}
            {o.kind && <span className="muted"> · {o.kind.replace(/_/g, ' ')}</span>}
          </h5>
          {o.error && <p className="result__error">{o.error}</p>}
          {o.text !== undefined && <Markdown text={o.text} />}
          {o.data !== undefined && <Value v={o.data} depth={depth + 1} />}
          {o.failed_assertions?.length ? (
            <ul className="result__list result__error">
              {o.failed_assertions.map((a) => (
                <li key={a}>{a}</li>
              ))}
            </ul>
          ) : null}
        </section>
      ))}
    </div>
  );
}

/** One value laid out to be read: text as Markdown, rows as a table, an object as labelled parts. */
function Value({ v, depth }: { v: unknown; depth: number }) {
  if (v === undefined || v === null || v === '') return <p className="muted result__empty">Nothing.</p>;
  if (typeof v === 'string') return <Markdown text={v} />;
  if (isScalar(v)) return <p className="result__scalar">{String(v)}</p>;
  if (depth >= MAX_DEPTH) return <CodeBlock text={toJson(v)} lang="json" label="Value" wrap />;
  if (isTable(v)) return <Table rows={v} />;
  if (Array.isArray(v)) {
    if (v.every(isScalar))
      return (
        <ul className="result__list">
          {v.map((x, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: items have no identity of their own
            <li key={i}>{cell(x)}</li>
          ))}
        </ul>
      );
    return (
      <ol className="result__list">
        {v.map((x, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: items have no identity of their own
          <li key={i}>
            <Value v={x} depth={depth + 1} />
          </li>
        ))}
      </ol>
    );
  }
  const rec = v as Rec;
  if (isSkillRun(rec)) return <SkillRun outputs={rec.outputs} depth={depth} />;
  const keys = Object.keys(rec);
  if (keys.length === 0) return <p className="muted result__empty">Nothing.</p>;
  // A tool's answer that is only its text (an MCP tool's usual result) reads as that text.
  if (keys.length === 1 && typeof rec.text === 'string') return <Markdown text={rec.text} />;
  if (typeof rec.error === 'string') {
    const rest = Object.fromEntries(Object.entries(rec).filter(([k]) => k !== 'error'));
    return (
      <>
        <p className="result__error">{rec.error}</p>
        {Object.keys(rest).length > 0 && <Value v={rest} depth={depth} />}
      </>
    );
  }
  return (
    <dl className="result__fields">
      {keys.map((k) => (
        <div key={k} className="result__field">
          <dt>{k.replace(/_/g, ' ')}</dt>
          <dd>
            <Value v={rec[k]} depth={depth + 1} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * A skill's or a tool's result, readable first (rendered text, tables), with the raw JSON one
 * click away for whoever needs the exact value.
 */
export function ResultView({ value, label = 'Result' }: { value: unknown; label?: string }) {
  const [raw, setRaw] = useState(false);
  return (
    <div className="result">
      <div className="result__bar">
        {/* biome-ignore lint/a11y/useSemanticElements: a two-button segmented switch; a fieldset would bring a border and legend it does not have */}
        <span className="segmented segmented--small" role="group" aria-label={`${label} view`}>
          <button
            type="button"
            aria-pressed={!raw}
            className={raw ? '' : 'is-on'}
            onClick={() => setRaw(false)}
          >
            Readable
          </button>
          <button
            type="button"
            aria-pressed={raw}
            className={raw ? 'is-on' : ''}
            onClick={() => setRaw(true)}
          >
            JSON
          </button>
        </span>
      </div>
      {raw ? (
        <CodeBlock text={toJson(value)} lang="json" label={label} wrap />
      ) : (
        <div className="result__body">
          <Value v={value} depth={0} />
        </div>
      )}
    </div>
  );
}
