/**
 * The Evals panel's two halves: the rows editor over the draft's `evals/evals.json`, and the
 * results of a run with each answer beside its verdict and the comparison with the last run.
 */
import type { EvalResultView, EvalSkillRes } from '../../../../electron/contract/skills.js';
import { Icon } from '../../../ui/Icon.js';
import { Markdown } from '../../../ui/Markdown.js';
import {
  EVALS_FILE,
  type EvalRow,
  type EvalRowKind,
  type EvalRows,
  newEvalRow,
  parseEvalRows,
  rowId,
  writeEvalRows,
} from './eval-rows.js';

const KIND_LABEL: Record<EvalRowKind, string> = {
  output: 'Output: answer and checks',
  'trigger-yes': 'Trigger: should use the skill',
  'trigger-no': 'Trigger: should not use it',
};

/** A `contains` check kept from the file: shown, not edited here. */
function fixedCheckText(a: unknown): string | null {
  if (!a || typeof a !== 'object') return null;
  const o = a as { type?: unknown; value?: unknown; name?: unknown };
  if (typeof o.name === 'string') return o.name;
  if (typeof o.value !== 'string') return null;
  return `${o.type === 'not_contains' ? 'does not contain' : 'contains'} “${o.value}”`;
}

/**
 * The draft's evals as rows (prompt, expected output, checks, files, trigger yes/no). Every edit
 * writes the file back through `onChange`; a file that cannot be read as rows is shown as text to
 * fix, never replaced.
 */
export function EvalRowsEditor({ text, onChange }: { text: string; onChange: (text: string) => void }) {
  const parsed = parseEvalRows(text);
  if (!parsed.ok) {
    return (
      <div className="ag-evals-raw">
        <div className="callout callout--error" role="alert">
          <Icon name="alert" />
          <p>{parsed.error}. Fix the text below; the rows come back once it reads as evals.</p>
        </div>
        <textarea
          className="ag-textarea ag-evals-raw__text"
          aria-label={`${EVALS_FILE} as text`}
          rows={8}
          spellCheck={false}
          value={text}
          onChange={(e) => onChange(e.target.value)}
        />
      </div>
    );
  }
  const value = parsed.value;
  const write = (rows: EvalRow[]) => onChange(writeEvalRows({ ...value, rows }));
  const update = (i: number, patch: Partial<EvalRow>) =>
    write(value.rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <div className="ag-evals-edit">
      {value.rows.length === 0 ? (
        <p className="muted">
          No evals yet. An eval is a prompt and what a good answer does; a trigger eval is a message that
          should (or should not) make the chat use this skill. They are saved with the skill in{' '}
          <code>{EVALS_FILE}</code>.
        </p>
      ) : (
        <ol className="ag-evalrows" aria-label="Evals">
          {value.rows.map((row, i) => (
            <EvalRowItem
              // biome-ignore lint/suspicious/noArrayIndexKey: rows are positions in the file; ids may repeat or be missing
              key={i}
              row={row}
              index={i}
              onChange={(patch) => update(i, patch)}
              onRemove={() => write(value.rows.filter((_, j) => j !== i))}
            />
          ))}
        </ol>
      )}
      {parsed.issues.length > 0 && value.rows.length > 0 && (
        <ul className="ag-evals-issues" aria-label="Problems in the evals">
          {parsed.issues.map((x) => (
            <li key={x}>
              <Icon name="alert" size={12} /> {x}
            </li>
          ))}
        </ul>
      )}
      <div className="sc-row">
        <button
          type="button"
          className="btn btn--small"
          onClick={() => write([...value.rows, newEvalRow(value.rows)])}
        >
          <Icon name="plus" /> Add eval
        </button>
        <button
          type="button"
          className="btn btn--small"
          onClick={() => write([...value.rows, newEvalRow(value.rows, 'trigger-yes')])}
        >
          <Icon name="plus" /> Add trigger eval
        </button>
      </div>
    </div>
  );
}

function EvalRowItem({
  row,
  index,
  onChange,
  onRemove,
}: {
  row: EvalRow;
  index: number;
  onChange: (patch: Partial<EvalRow>) => void;
  onRemove: () => void;
}) {
  const label = `eval ${rowId(row, index)}`;
  const fixed = (Array.isArray(row.original.assertions) ? row.original.assertions : [])
    .map(fixedCheckText)
    .filter((x): x is string => x !== null);
  return (
    <li className="ag-evalrow">
      <div className="ag-evalrow__head">
        <span className="ag-tag">#{rowId(row, index)}</span>
        <select
          className="ag-input ag-evalrow__kind"
          aria-label={`Kind of ${label}`}
          value={row.kind}
          onChange={(e) => onChange({ kind: e.target.value as EvalRowKind })}
        >
          {(Object.keys(KIND_LABEL) as EvalRowKind[]).map((k) => (
            <option key={k} value={k}>
              {KIND_LABEL[k]}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="btn btn--icon btn--small"
          aria-label={`Remove ${label}`}
          onClick={onRemove}
        >
          <Icon name="trash" />
        </button>
      </div>
      <label className="ag-evalrow__field">
        <span>{row.kind === 'output' ? 'Prompt' : 'Message'}</span>
        <textarea
          className="ag-textarea"
          rows={2}
          aria-label={`Prompt of ${label}`}
          value={row.prompt}
          placeholder={row.kind === 'output' ? 'What the user asks' : 'A message a user might send'}
          onChange={(e) => onChange({ prompt: e.target.value })}
        />
      </label>
      {row.kind === 'output' && (
        <>
          <label className="ag-evalrow__field">
            <span>Expected output</span>
            <textarea
              className="ag-textarea"
              rows={2}
              aria-label={`Expected output of ${label}`}
              value={row.expected_output}
              placeholder="Optional: what a good answer looks like (shown to the judge)"
              onChange={(e) => onChange({ expected_output: e.target.value })}
            />
          </label>
          <fieldset className="ag-evalrow__checks">
            <legend>Checks</legend>
            {row.checks.map((c, j) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: checks are positions in the list
              <div key={j} className="ag-evalrow__check">
                <input
                  className="ag-input"
                  aria-label={`Check ${j + 1} of ${label}`}
                  value={c}
                  placeholder="A statement the answer should make true, e.g. “It has three lines”"
                  onChange={(e) =>
                    onChange({ checks: row.checks.map((x, k) => (k === j ? e.target.value : x)) })
                  }
                />
                <button
                  type="button"
                  className="btn btn--icon btn--small"
                  aria-label={`Remove check ${j + 1} of ${label}`}
                  onClick={() => onChange({ checks: row.checks.filter((_, k) => k !== j) })}
                >
                  <Icon name="close" />
                </button>
              </div>
            ))}
            {fixed.map((f) => (
              <div key={f} className="ag-evalrow__fixed muted" title="A check from the file, kept as it is">
                <Icon name="check" size={12} /> {f}
              </div>
            ))}
            <button
              type="button"
              className="btn btn--small"
              aria-label={`Add a check to ${label}`}
              onClick={() => onChange({ checks: [...row.checks, ''] })}
            >
              <Icon name="plus" /> Add check
            </button>
          </fieldset>
          <label className="ag-evalrow__field">
            <span>Files</span>
            <input
              className="ag-input"
              aria-label={`Files of ${label}`}
              value={row.files.join(', ')}
              placeholder="Optional: bundled files to attach, e.g. evals/files/report.csv"
              onChange={(e) =>
                onChange({
                  files: e.target.value
                    .split(',')
                    .map((x) => x.trim())
                    .filter((x, k, all) => x !== '' || k === all.length - 1),
                })
              }
            />
          </label>
        </>
      )}
    </li>
  );
}

/** The rows of a file as `EvalRows`, for callers that only need to know whether a run can start. */
export function evalRowsOf(text: string): EvalRows | null {
  const p = parseEvalRows(text);
  return p.ok ? p.value : null;
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** "was passing / was failing / new" for one eval against the last remembered run. */
function versusLast(
  r: EvalResultView,
  previous: EvalSkillRes['previous'],
): { text: string; cls: string } | null {
  if (!previous) return null;
  const before = previous.results.find((x) => x.id === r.id);
  if (!before) return { text: 'new', cls: 'ag-tag--added' };
  if (before.graded === false) return { text: 'was not graded', cls: '' };
  if (before.passed === r.passed) return { text: before.passed ? 'was passing' : 'was failing', cls: '' };
  return before.passed
    ? { text: 'was passing', cls: 'ag-tag--removed' }
    : { text: 'was failing', cls: 'ag-tag--added' };
}

/** The pass rate against the last remembered run, in points. */
export function passRateDelta(result: EvalSkillRes): string | null {
  if (!result.previous) return null;
  const d = Math.round((result.pass_rate - result.previous.pass_rate) * 100);
  const sign = d > 0 ? '+' : d < 0 ? '−' : '±';
  return `${sign}${Math.abs(d)} points since the last run (${pct(result.previous.pass_rate)}, version ${result.previous.version})`;
}

/** One result: its verdict, and for an output eval the answer, checks and tool calls beside it. */
export function EvalResultItem({ r, previous }: { r: EvalResultView; previous: EvalSkillRes['previous'] }) {
  const vs = versusLast(r, previous);
  const run = r.runs?.find((x) => x.configuration === 'with_skill');
  // The first run's graded checks when the model ran, else the checks as the result lists them;
  // keyed by position, as two checks may say the same thing.
  const checks = (
    run?.expectations.map((x) => ({
      text: x.text,
      passed: x.graded ? x.passed : null,
      evidence: x.evidence,
    })) ?? r.checks.map((c) => ({ text: c.check, passed: c.passed, evidence: c.explanation }))
  ).map((c, i) => ({ ...c, key: `c${i}` }));
  return (
    <li className={r.graded === false ? 'is-ng' : r.passed ? 'is-ok' : 'is-bad'}>
      <Icon name={r.passed ? 'check' : 'alert'} size={14} />
      <span className="ag-tag">{r.graded === false ? `${r.kind} · not graded` : r.kind}</span>
      <span className="ag-results__prompt" title={r.prompt}>
        {r.prompt}
      </span>
      <span className="muted ag-results__meta">
        {vs && <span className={`ag-tag ${vs.cls}`}>{vs.text}</span>}{' '}
        {r.kind === 'trigger'
          ? `rank ${r.rank ?? '—'}${r.model_chose == null ? '' : r.model_chose ? ' · model chose it' : ` · model chose ${r.model_choice ?? 'none'}`}`
          : `${r.duration_ms} ms`}
      </span>
      {r.reason && <span className="ag-results__why">{r.reason}</span>}
      {r.kind === 'output' && (run || r.checks.length > 0) && (
        <details className="ag-answer">
          <summary>Answer and checks</summary>
          {run?.error && <p className="ag-answer__error">The run failed: {run.error.message}</p>}
          {run && (
            <fieldset className="ag-answer__reply" aria-label="The model's answer">
              {run.reply.trim() ? (
                <Markdown text={run.reply} />
              ) : (
                <p className="muted">(no text in the reply)</p>
              )}
            </fieldset>
          )}
          <ul className="ag-answer__checks" aria-label="Checks">
            {checks.map((c) => (
              <li
                key={c.key}
                className={c.passed === null ? 'ag-check--ng' : c.passed ? 'ag-check--ok' : 'ag-check--bad'}
              >
                <span className="ag-answer__verdict">
                  {c.passed === null ? 'not graded' : c.passed ? 'passed' : 'failed'}
                </span>
                <span>
                  <strong>{c.text}</strong>
                  {c.evidence && <span className="muted"> — {c.evidence}</span>}
                </span>
              </li>
            ))}
          </ul>
          {run && run.tool_calls.length > 0 && (
            <p className="ag-answer__tools">
              Tools called:{' '}
              {run.tool_calls.map((t, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: a tool may be called twice
                <code key={i} className={t.ok ? '' : 'is-bad'}>
                  {t.name}
                  {t.ok ? '' : ' (failed)'}
                </code>
              ))}
            </p>
          )}
        </details>
      )}
    </li>
  );
}
