import type { TraceView } from '../../../electron/contract/traces.js';
import { CodeBlock } from '../../ui/CodeBlock.js';
import { Icon } from '../../ui/Icon.js';
import { useModelLabel } from '../settings/model-label.js';

/**
 * A cost in dollars with two significant digits below a cent ("$0.00042"), or null when it is not
 * known (the model has no price): then no cost is shown at all, never "$0.000000".
 */
export function formatCost(v: number | null): string | null {
  if (v == null || v <= 0) return null;
  return v < 0.01 ? `$${Number(v.toPrecision(2))}` : `$${v.toFixed(4)}`;
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

/** One trace in full: status, timing, tokens, cost, assertions, error, rendered input and raw output. */
export function TraceDetail({ trace: tr }: { trace: TraceView }) {
  const modelName = useModelLabel();
  const asserts =
    tr.assertions_run > 0 ? `${tr.assertions_passed} of ${tr.assertions_run} passed` : 'none ran';
  return (
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
        <dd>{modelName(tr.model_id) ?? '—'}</dd>
        <dt>Tokens</dt>
        <dd>{tr.input_tokens != null ? `${tr.input_tokens} in / ${tr.output_tokens ?? 0} out` : '—'}</dd>
        {formatCost(tr.estimated_cost) && (
          <>
            <dt>Cost</dt>
            <dd>{formatCost(tr.estimated_cost)}</dd>
          </>
        )}
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
  );
}
