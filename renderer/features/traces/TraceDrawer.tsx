import { useEffect, useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useTracesStore } from '../../stores.js';
import { CodeBlock } from '../../ui/CodeBlock.js';
import { Icon } from '../../ui/Icon.js';

function cost(v: number | null): string {
  if (v == null) return '—';
  return v < 0.01 ? `$${v.toFixed(6)}` : `$${v.toFixed(4)}`;
}

function jsonLang(text: string): 'json' | 'plain' {
  const t = text.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return 'plain';
  try {
    JSON.parse(t);
    return 'json';
  } catch {
    return 'plain';
  }
}

/** One skill execution trace, in a drawer over the chat: input, output, error, timing, cost, assertions. */
export function TraceDrawer() {
  const t = useTracesStore(
    useShallow((s) => ({
      openId: s.openId,
      status: s.status,
      trace: s.trace,
      error: s.error,
      close: s.close,
    })),
  );
  const closeRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (t.openId) closeRef.current?.focus();
  }, [t.openId]);
  if (!t.openId) return null;
  const tr = t.trace;
  const asserts =
    tr && tr.assertions_run > 0 ? `${tr.assertions_passed} of ${tr.assertions_run} passed` : 'none ran';
  return (
    <aside
      className="drawer"
      role="dialog"
      aria-modal="false"
      aria-label="Trace"
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.stopPropagation();
          t.close();
        }
      }}
    >
      <header className="drawer__head">
        <Icon name="activity" />
        <div className="drawer__titles">
          <h2 className="drawer__title">{tr?.skill_name ?? 'Trace'}</h2>
          <span className="drawer__sub mono">{t.openId.slice(0, 8)}</span>
        </div>
        <button
          ref={closeRef}
          type="button"
          className="btn btn--icon"
          onClick={t.close}
          aria-label="Close trace"
        >
          <Icon name="close" />
        </button>
      </header>
      <div className="drawer__body">
        {t.status === 'error' && t.error ? (
          <div className="callout callout--error" role="alert">
            <Icon name="alert" />
            <p>{t.error.message}</p>
          </div>
        ) : !tr ? (
          <div className="skeleton skeleton--block" />
        ) : (
          <>
            <div className={`trace-status ${tr.error ? 'is-error' : 'is-ok'}`}>
              <Icon name={tr.error ? 'alert' : 'check'} />
              {tr.error ? 'Failed' : 'Succeeded'} · {tr.artifact_name ?? tr.artifact_kind}{' '}
              <span className="muted">({tr.artifact_kind})</span>
            </div>
            <dl className="facts trace-facts">
              <dt>Time</dt>
              <dd>{tr.duration_ms != null ? `${tr.duration_ms} ms` : 'did not finish'}</dd>
              <dt>Started</dt>
              <dd>{new Date(tr.started_at).toLocaleString()}</dd>
              <dt>Model</dt>
              <dd className="mono">{tr.model_id ?? '—'}</dd>
              <dt>Tokens</dt>
              <dd>
                {tr.input_tokens != null ? `${tr.input_tokens} in / ${tr.output_tokens ?? 0} out` : '—'}
              </dd>
              <dt>Cost</dt>
              <dd>{cost(tr.estimated_cost)}</dd>
              <dt>Assertions</dt>
              <dd>{asserts}</dd>
              <dt>Store</dt>
              <dd>{tr.scope}</dd>
            </dl>
            {tr.error && (
              <section>
                <h3 className="section-title">Error</h3>
                <CodeBlock text={tr.error} lang="plain" label="Error" wrap />
              </section>
            )}
            <section>
              <h3 className="section-title">Rendered input</h3>
              {tr.rendered_input ? (
                <CodeBlock text={tr.rendered_input} lang="plain" label="Rendered input" wrap />
              ) : (
                <p className="muted">None recorded.</p>
              )}
            </section>
            <section>
              <h3 className="section-title">Raw output</h3>
              {tr.raw_output ? (
                <CodeBlock text={tr.raw_output} lang={jsonLang(tr.raw_output)} label="Raw output" wrap />
              ) : (
                <p className="muted">None recorded.</p>
              )}
            </section>
          </>
        )}
      </div>
    </aside>
  );
}
