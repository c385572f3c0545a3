import { type KeyboardEvent, useEffect, useMemo, useRef } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import type { TraceFilter, TraceStatus, TraceView } from '../../../electron/contract/traces.js';
import { useChatStore, useStores } from '../../stores.js';
import { kindChipStyle } from '../../ui/badges.js';
import { Icon } from '../../ui/Icon.js';
import { formatCost, TraceDetail } from './TraceDetail.js';
import { TRACE_PAGE, type TraceListStore } from './trace-list-store.js';
import { sessionLabel, skillLabel, traceTitle } from './trace-names.js';
import './traces.css';

const STATUS_LABELS: Array<{ value: TraceStatus | ''; label: string }> = [
  { value: '', label: 'All' },
  { value: 'ok', label: 'Succeeded' },
  { value: 'error', label: 'Failed' },
  { value: 'running', label: 'Running' },
];

function useTraceList<T>(selector: (s: TraceListStore) => T): T {
  return useStore(useStores().traceList, selector);
}

function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

function when(iso: string): string {
  const d = new Date(iso);
  const today = new Date();
  const sameDay = d.toDateString() === today.toDateString();
  return sameDay
    ? d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' })
    : d.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

function statusOf(t: TraceView): TraceStatus {
  if (t.error !== null || t.error_code !== null) return 'error';
  return t.completed_at === null ? 'running' : 'ok';
}

function Picker({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: string | undefined;
  options: Array<{ value: string; label: string }>;
  onChange: (v: string) => void;
}) {
  return (
    <label className="tfilter">
      <span className="tfilter__label">{label}</span>
      <span className="select tfilter__select">
        <select value={value ?? ''} onChange={(e) => onChange(e.target.value)} aria-label={label}>
          <option value="">Any</option>
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
        <Icon name="chevronDown" />
      </span>
    </label>
  );
}

/** Every skill execution trace: filters, totals, per-artifact detail, JSONL export for DSPy. */
export function TracesView() {
  const s = useTraceList(
    useShallow((x) => ({
      filter: x.filter,
      status: x.status,
      traces: x.traces,
      totals: x.totals,
      facets: x.facets,
      selectedId: x.selectedId,
      error: x.error,
      exporting: x.exporting,
      exported: x.exported,
      load: x.load,
      setFilter: x.setFilter,
      clearFilter: x.clearFilter,
      select: x.select,
      exportJsonl: x.exportJsonl,
    })),
  );
  const stores = useStores();
  const sessions = useChatStore((c) => c.sessions.items);
  const listRef = useRef<HTMLDivElement>(null);

  const { load } = s;
  useEffect(() => {
    void load();
    // New runs (chat turns, test runs) show up while the view is open.
    const offRun = stores.client.subscribe('skills/artifact-ran', () => void load());
    const offTurn = stores.client.subscribe('chat/turn-finished', () => void load());
    return () => {
      offRun();
      offTurn();
    };
  }, [load, stores]);

  const titles = useMemo(() => new Map(sessions.map((x) => [x.id, x.title])), [sessions]);
  const sessionTitle = (id: string) => sessionLabel(id, titles);

  const set = (patch: Partial<TraceFilter>) => void s.setFilter(patch);
  const filtered = Object.keys(s.filter).length > 0;
  const selected = s.traces.find((t) => t.id === s.selectedId) ?? null;
  const t = s.totals;

  const onListKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp' && e.key !== 'Home' && e.key !== 'End') return;
    e.preventDefault();
    if (s.traces.length === 0) return;
    const i = s.traces.findIndex((x) => x.id === s.selectedId);
    const next =
      e.key === 'Home'
        ? 0
        : e.key === 'End'
          ? s.traces.length - 1
          : Math.min(s.traces.length - 1, Math.max(0, i + (e.key === 'ArrowDown' ? 1 : -1)));
    const id = s.traces[next]!.id;
    s.select(id);
    listRef.current?.querySelector(`[data-id="${id}"]`)?.scrollIntoView({ block: 'nearest' });
  };

  return (
    <div className="traces">
      <header className="chat__head traces__head">
        <div className="traces__titles">
          <h1 className="pane-title">Traces</h1>
          <span className="pane-sub">
            Every run of a skill’s artifact: what went in, what came out, and what it cost.
          </span>
        </div>
        <button
          type="button"
          className="btn btn--primary"
          onClick={() => void s.exportJsonl()}
          disabled={s.exporting || !t || t.count === 0}
          title="Download the matching traces as JSONL: one DSPy example per line (input → output)"
        >
          <Icon name="download" /> {s.exporting ? 'Exporting…' : 'Export JSONL'}
        </button>
      </header>

      <fieldset className="traces__filters" aria-label="Filter traces">
        <Picker
          label="Session"
          value={s.filter.session_id}
          options={s.facets.session_ids.map((id) => ({ value: id, label: sessionTitle(id) }))}
          onChange={(v) => set({ session_id: v })}
        />
        <Picker
          label="Skill"
          value={s.filter.skill}
          options={s.facets.skills.map((n) => ({ value: n, label: n }))}
          onChange={(v) => set({ skill: v })}
        />
        <Picker
          label="Artifact kind"
          value={s.filter.artifact_kind}
          options={s.facets.artifact_kinds.map((k) => ({ value: k, label: k.replace('_', ' ') }))}
          onChange={(v) => set({ artifact_kind: v })}
        />
        <div className="tfilter">
          <span className="tfilter__label" id="tfilter-status">
            Status
          </span>
          <div className="segmented" role="radiogroup" aria-labelledby="tfilter-status">
            {STATUS_LABELS.map((o) => (
              // biome-ignore lint/a11y/useSemanticElements: a segmented control; role and aria-checked give the semantics
              <button
                key={o.value}
                type="button"
                role="radio"
                aria-checked={(s.filter.status ?? '') === o.value}
                className={(s.filter.status ?? '') === o.value ? 'is-on' : ''}
                onClick={() => set({ status: (o.value || undefined) as TraceStatus | undefined })}
              >
                {o.label}
              </button>
            ))}
          </div>
        </div>
        <div className="tfilter">
          <span className="tfilter__label" id="tfilter-dates">
            Started
          </span>
          {/* biome-ignore lint/a11y/useSemanticElements: a fieldset inside the filters fieldset draws a second border */}
          <div className="tfilter__dates" role="group" aria-labelledby="tfilter-dates">
            <input
              type="date"
              className="tfilter__date"
              value={s.filter.since ?? ''}
              max={s.filter.until}
              onChange={(e) => set({ since: e.target.value })}
              aria-label="From date"
            />
            <span className="tfilter__dash" aria-hidden="true">
              –
            </span>
            <input
              type="date"
              className="tfilter__date"
              value={s.filter.until ?? ''}
              min={s.filter.since}
              onChange={(e) => set({ until: e.target.value })}
              aria-label="To date"
            />
          </div>
        </div>
        {filtered && (
          <button
            type="button"
            className="btn btn--small tfilter__clear"
            onClick={() => void s.clearFilter()}
          >
            <Icon name="close" /> Clear filters
          </button>
        )}
      </fieldset>

      {t && t.count > 0 && (
        <section className="traces__totals" aria-label="Totals">
          <div className="tstat">
            <span className="tstat__value">{t.count.toLocaleString()}</span>
            <span className="tstat__label">
              runs{t.errors > 0 ? ` · ${t.errors.toLocaleString()} failed` : ''}
            </span>
          </div>
          <div className="tstat">
            <span className="tstat__value">{(t.input_tokens + t.output_tokens).toLocaleString()}</span>
            <span className="tstat__label">
              tokens · {t.input_tokens.toLocaleString()} in / {t.output_tokens.toLocaleString()} out
            </span>
          </div>
          {formatCost(t.estimated_cost) && (
            <div className="tstat">
              <span className="tstat__value">{formatCost(t.estimated_cost)}</span>
              <span className="tstat__label">estimated cost</span>
            </div>
          )}
          <div className="tstat">
            <span className="tstat__value">{duration(t.duration_ms)}</span>
            <span className="tstat__label">total time</span>
          </div>
        </section>
      )}

      {s.exported && (
        <div className="callout callout--info traces__note" role="status">
          <Icon name="check" />
          <p>
            Exported {s.exported.count} trace{s.exported.count === 1 ? '' : 's'} as{' '}
            <code>{s.exported.file}</code>. Load it in Python with{' '}
            <code>[dspy.Example(**json.loads(l)).with_inputs("input") for l in open(path)]</code>.
          </p>
        </div>
      )}
      {s.error && (
        <div className="callout callout--error traces__note" role="alert">
          <Icon name="alert" />
          <p>
            {s.error.message}{' '}
            <button type="button" className="btn btn--small" onClick={() => void s.load()}>
              <Icon name="refresh" /> Try again
            </button>
          </p>
        </div>
      )}

      <div className="traces__body">
        {s.status === 'loading' && s.traces.length === 0 ? (
          <div className="traces__list">
            <div className="skeleton skeleton--block" />
          </div>
        ) : s.traces.length === 0 && s.status === 'ready' ? (
          <div className="empty empty--compact traces__empty">
            <span className="empty__icon">
              <Icon name="activity" size={26} />
            </span>
            {filtered ? (
              <>
                <h2 className="empty__title">No traces match these filters</h2>
                <p className="empty__text">Widen the dates or pick “Any” in a filter.</p>
                <button type="button" className="btn" onClick={() => void s.clearFilter()}>
                  Clear filters
                </button>
              </>
            ) : (
              <>
                <h2 className="empty__title">No traces yet</h2>
                <p className="empty__text">
                  Each time a skill runs — in a chat, from the Composer’s test panel, or with{' '}
                  <code>skilldesk run-skill</code> — every artifact it ran lands here with its input, output,
                  timing, tokens and cost. Export them as a DSPy dataset to evaluate or optimize the skill.
                </p>
                <button
                  type="button"
                  className="btn btn--primary"
                  onClick={() => stores.app.getState().navigate('chat')}
                >
                  <Icon name="chat" /> Start a chat
                </button>
              </>
            )}
          </div>
        ) : (
          <>
            <div className="traces__listwrap">
              <div
                ref={listRef}
                className="traces__list"
                role="listbox"
                aria-label="Traces"
                tabIndex={0}
                onKeyDown={onListKey}
                aria-activedescendant={s.selectedId ? `trace-${s.selectedId}` : undefined}
              >
                {s.traces.map((tr) => {
                  const st = statusOf(tr);
                  const tokens = tr.input_tokens != null ? tr.input_tokens + (tr.output_tokens ?? 0) : null;
                  return (
                    // biome-ignore lint/a11y/useKeyWithClickEvents: the listbox handles the keys
                    <div
                      key={tr.id}
                      id={`trace-${tr.id}`}
                      data-id={tr.id}
                      role="option"
                      aria-selected={tr.id === s.selectedId}
                      className={`trow${tr.id === s.selectedId ? ' is-on' : ''}`}
                      tabIndex={-1}
                      onClick={() => s.select(tr.id)}
                    >
                      <span className={`trow__status is-${st}`} title={st}>
                        <Icon name={st === 'error' ? 'alert' : st === 'ok' ? 'check' : 'refresh'} />
                      </span>
                      <span className="trow__main">
                        <span className="trow__name">
                          {skillLabel(tr)}
                          <span className="trow__artifact"> · {tr.artifact_name ?? tr.artifact_kind}</span>
                        </span>
                        <span className="trow__meta">
                          <span
                            className={`chip chip--${tr.artifact_kind}`}
                            style={kindChipStyle(tr.artifact_kind)}
                          >
                            {tr.artifact_kind.replace('_', ' ')}
                          </span>
                          <span className="trow__session">{sessionTitle(tr.session_id)}</span>
                        </span>
                      </span>
                      <span className="trow__nums">
                        <span>{tr.duration_ms != null ? duration(tr.duration_ms) : '—'}</span>
                        <span className="muted">
                          {tokens != null ? `${tokens.toLocaleString()} tok` : ''}
                          {formatCost(tr.estimated_cost) ? ` · ${formatCost(tr.estimated_cost)}` : ''}
                        </span>
                      </span>
                      <time className="trow__time" dateTime={tr.started_at}>
                        {when(tr.started_at)}
                      </time>
                    </div>
                  );
                })}
              </div>
              {t && t.count > s.traces.length && (
                <p className="traces__more">
                  Showing the newest {TRACE_PAGE.toLocaleString()} of {t.count.toLocaleString()}; narrow the
                  filters to see older ones (the export includes them all).
                </p>
              )}
            </div>
            <section className="traces__detail" aria-label="Trace detail">
              {selected ? (
                <div className="traces__detailbody">
                  <h2 className="traces__detailtitle">{traceTitle(selected, titles)}</h2>
                  <TraceDetail trace={selected} />
                </div>
              ) : (
                <div className="empty empty--compact">
                  <p className="empty__text">
                    Pick a trace to see its rendered input, raw output, error and assertions. Use ↑ and ↓ to
                    move through the list.
                  </p>
                </div>
              )}
            </section>
          </>
        )}
      </div>
    </div>
  );
}
