import { useShallow } from 'zustand/react/shallow';
import { useComposerStore, useStores } from '../../stores.js';
import { KindChip } from '../../ui/badges.js';
import { Icon } from '../../ui/Icon.js';
import { Markdown } from '../../ui/Markdown.js';
import { ResultView } from '../../ui/ResultView.js';
import { useModelLabel } from '../settings/model-label.js';
import { CodeEditor } from './CodeEditor.js';
import { type EditorDoc, isDirty, type RanLabel, type RunResult, ranText } from './composer-state.js';
import { isTemplate, templateVariables } from './draft.js';

/** The context's top-level keys, or null while it is not a JSON object (the editor flags that). */
function contextKeys(text: string): Set<string> | null {
  try {
    const v = JSON.parse(text || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? new Set(Object.keys(v)) : null;
  } catch {
    return null;
  }
}

function fmtMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** A cost people can read: $0.000026 rather than $0.0000. */
function fmtCost(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.000001) return '< $0.000001';
  return usd >= 0.01 ? `$${usd.toFixed(2)}` : `$${usd.toPrecision(2)}`;
}

function Block({ title, text, tone }: { title: string; text: string; tone?: 'error' }) {
  return (
    <div className="sc-block">
      <p className="sc-label">{title}</p>
      <pre className={`sc-pre${tone ? ` sc-pre--${tone}` : ''}`}>{text}</pre>
    </div>
  );
}

/** An artifact's output: text as Markdown (as the chat shows it), data laid out with its JSON a click away. */
function Output({ r }: { r: RunResult }) {
  const title = r.injected ? 'Injected into the chat' : 'Output';
  if (r.text != null) {
    return (
      <div className="sc-block">
        <p className="sc-label">{title}</p>
        <div className="sc-md">
          <Markdown text={r.text} />
        </div>
      </div>
    );
  }
  if (r.data == null) return null;
  return (
    <div className="sc-block">
      <ResultView value={r.data} label={title} />
    </div>
  );
}

function ResultCard({ r, ran }: { r: RunResult; ran: RanLabel | null }) {
  const modelName = useModelLabel();
  const traces = useStores().traces;
  const tokens =
    r.input_tokens != null || r.output_tokens != null
      ? `${r.input_tokens ?? 0} → ${r.output_tokens ?? 0} tokens`
      : null;
  return (
    <article className={`sc-result${r.ok ? '' : ' is-failed'}`} aria-label={`Result of ${r.artifact}`}>
      <header className="sc-result__head">
        <Icon name={r.ok ? 'check' : 'alert'} />
        <strong>{r.artifact}</strong>
        <KindChip kind={r.kind} />
        <span className="sc-result__facts">
          {ran && (
            <span
              className={`sc-ran sc-ran--${ran.what}`}
              title={ran.what === 'draft' ? 'Ran your edits as they are, unsaved' : 'Ran the saved skill'}
            >
              {ranText(ran)}
            </span>
          )}
          <span>{fmtMs(r.duration_ms)}</span>
          {tokens && <span>{tokens}</span>}
          {r.estimated_cost != null && <span>{fmtCost(r.estimated_cost)}</span>}
          {r.model_id && <span>{modelName(r.model_id)}</span>}
        </span>
      </header>
      {r.fallback && (
        <p className="sc-note">
          Fell back to <strong>{r.fallback.artifact}</strong>: {r.fallback.reason}
        </p>
      )}
      {r.error && <Block title={`Error · ${r.error.code}`} text={r.error.message} tone="error" />}
      <Output r={r} />
      {r.rendered_input && <Block title="Rendered input" text={r.rendered_input} />}
      {r.stdout && <Block title="stdout" text={r.stdout} />}
      {r.assertions.length > 0 && (
        <div className="sc-block">
          <p className="sc-label">Assertions</p>
          <ul className="sc-asserts">
            {r.assertions.map((a, i) => (
              <li
                // biome-ignore lint/suspicious/noArrayIndexKey: assertions have no id and never reorder
                key={i}
                className={a.skipped ? 'is-skipped' : a.passed ? 'is-pass' : 'is-fail'}
              >
                <Icon name={a.skipped ? 'chevronRight' : a.passed ? 'check' : 'close'} />
                <span>
                  <strong>{a.skipped ? 'Skipped' : a.passed ? 'Passed' : 'Failed'}</strong> {a.description}
                  <span className="sc-asserts__meta">
                    {a.type} · {a.severity}
                  </span>
                  {a.explanation && <span className="sc-asserts__why">{a.explanation}</span>}
                </span>
              </li>
            ))}
          </ul>
        </div>
      )}
      <button
        type="button"
        className="btn btn--small sc-result__trace"
        onClick={() => void traces.getState().open(r.trace_id)}
      >
        <Icon name="activity" />
        Open trace
      </button>
    </article>
  );
}

/** Test the open skill: a context, then render a template or run an artifact or the whole skill. */
export function TestPanel({ doc }: { doc: EditorDoc }) {
  const s = useComposerStore(
    useShallow((st) => ({
      test: st.test,
      selected: st.selected,
      setContext: st.setContext,
      fillContext: st.fillContext,
      renderOnly: st.renderOnly,
      run: st.run,
      cancelRun: st.cancelRun,
      variables: st.validation.variables,
      ran: st.test.ran,
    })),
  );
  const art = doc.draft.artifacts.find((a) => a.key === s.selected) ?? null;
  const busy = s.test.status === 'running' || s.test.status === 'rendering';
  const dirty = isDirty(doc);
  // Variables the selected template reads that the context does not give yet (say so before a run fails).
  const keys = contextKeys(doc.context);
  const missing =
    art && keys && isTemplate(art)
      ? (s.variables[art.key] ?? templateVariables(art.content)).filter((v) => !keys.has(v))
      : [];

  return (
    <aside className="sc-test" aria-label="Test">
      <div className="sc-test__head">
        <h2 className="sc-h2">Test</h2>
        {art && (
          <span className="sc-test__target">
            <KindChip kind={art.kind} /> {art.name}
          </span>
        )}
      </div>
      <div className="sc-codehead">
        <span className="sc-label">Context (JSON)</span>
        <button
          type="button"
          className="btn btn--small"
          onClick={s.fillContext}
          title="Add the template's variables"
        >
          Fill variables
        </button>
      </div>
      <div className="sc-code sc-code--ctx">
        <CodeEditor
          value={doc.context}
          onChange={s.setContext}
          language="json"
          label="Test context"
          placeholder='{ "topic": "tea" }'
        />
      </div>
      {missing.length > 0 && (
        <p className="sc-field__help sc-test__missing" role="status">
          Not in the context yet: {missing.map((v) => `“${v}”`).join(', ')}.{' '}
          <button type="button" className="linkish" onClick={s.fillContext}>
            Add {missing.length === 1 ? 'it' : 'them'}
          </button>
        </p>
      )}
      <div className="sc-test__actions">
        <button
          type="button"
          className="btn"
          disabled={busy || art?.kind !== 'prompt_template'}
          title={
            art?.kind === 'prompt_template'
              ? 'Render the template as edited; no model needed'
              : 'Only prompt templates render'
          }
          onClick={() => void s.renderOnly()}
        >
          Render only
        </button>
        {s.test.status === 'running' ? (
          <button type="button" className="btn btn--ghost-danger" onClick={() => void s.cancelRun()}>
            <Icon name="stop" />
            Cancel
          </button>
        ) : (
          <>
            <button
              type="button"
              className="btn btn--primary"
              disabled={busy || !art}
              title={dirty ? 'Run this artifact as edited (unsaved edits included)' : 'Run this artifact'}
              onClick={() => void s.run('artifact')}
            >
              <Icon name="send" />
              Run
            </button>
            <button
              type="button"
              className="btn"
              disabled={busy || doc.draft.artifacts.length === 0}
              onClick={() => void s.run('skill')}
            >
              Run skill
            </button>
          </>
        )}
      </div>
      <p className="sc-field__help">
        {dirty
          ? 'Runs use your edits as they are, unsaved; results are labelled “draft”.'
          : `Runs use the saved version ${doc.base?.version ?? ''}; each is recorded as a trace (session “composer”).`}
      </p>
      <div className="sc-test__out" aria-live="polite">
        {s.test.status === 'rendering' && (
          <p className="sc-wait">
            <span className="spinner" /> Rendering…
          </p>
        )}
        {s.test.status === 'running' && (
          <p className="sc-wait">
            <span className="spinner" /> Running…{' '}
            {s.test.results.length > 0 && `${s.test.results.length} done`}
          </p>
        )}
        {s.test.status === 'cancelled' && <p className="sc-note">Run cancelled.</p>}
        {s.test.status === 'failed' && s.test.error && (
          <div className="callout callout--error">
            <Icon name="alert" />
            <p>
              <strong>{s.test.error.code}</strong> {s.test.error.message}
            </p>
          </div>
        )}
        {s.test.rendered !== null && <Block title="Rendered" text={s.test.rendered} />}
        {s.test.results.map((r) => (
          <ResultCard key={r.trace_id} r={r} ran={s.ran} />
        ))}
        {s.test.status === 'idle' && (
          <p className="sc-empty-line">Fill in the context, then render the template or run the skill.</p>
        )}
      </div>
    </aside>
  );
}
