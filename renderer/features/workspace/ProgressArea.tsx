import { useEffect, useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ProgressTask } from '../../../electron/contract/progress.js';
import { Icon } from '../../ui/Icon.js';
import { useWorkspaceStore } from './WorkspaceSwitcher.js';

const DONE_VISIBLE_MS = 4000;

function Task({
  t,
  more = 0,
  cancel,
  dismiss,
}: {
  t: ProgressTask;
  /** Finished tasks of the same kind folded into this row (the latest). */
  more?: number;
  cancel: () => void;
  dismiss: () => void;
}) {
  const dismissRef = useRef(dismiss);
  dismissRef.current = dismiss;
  // A row is shown DONE_VISIBLE_MS after its latest task finished (another folding in restarts it).
  // biome-ignore lint/correctness/useExhaustiveDependencies: t.id is the latest task of a folded row
  useEffect(() => {
    if (t.state !== 'done') return;
    const timer = setTimeout(() => dismissRef.current(), DONE_VISIBLE_MS);
    return () => clearTimeout(timer);
  }, [t.state, t.id]);
  return (
    <li className={`ptask is-${t.state}`}>
      {t.state === 'running' ? (
        <span className="spinner" aria-hidden="true" />
      ) : (
        <Icon name={t.state === 'done' ? 'check' : t.state === 'failed' ? 'alert' : 'stop'} />
      )}
      <span className="ptask__text">
        <span className="ptask__label">{t.label}</span>
        {(t.detail || more > 0) && (
          <span className="ptask__detail">
            {t.detail}
            {more > 0 ? `${t.detail ? ' · ' : ''}and ${more} earlier` : ''}
          </span>
        )}
        {t.fraction !== null && t.state === 'running' && (
          <progress className="ptask__bar" max={1} value={t.fraction} aria-label={t.label} />
        )}
      </span>
      {t.state === 'running' && t.cancellable ? (
        <button type="button" className="btn btn--small" onClick={cancel}>
          Cancel
        </button>
      ) : t.state !== 'running' ? (
        <button type="button" className="btn btn--icon" onClick={dismiss} aria-label={`Dismiss ${t.label}`}>
          <Icon name="close" />
        </button>
      ) : null}
    </li>
  );
}

/**
 * Finished tasks of one kind fold into one row, the latest (ten folders imported one after another
 * leave one "3 skills imported · and 9 earlier", not ten cards over the sidebar); a
 * failure keeps a row of its own, since each says what went wrong.
 */
export function progressRows(
  tasks: readonly ProgressTask[],
): Array<{ key: string; t: ProgressTask; ids: string[] }> {
  const out: Array<{ key: string; t: ProgressTask; ids: string[] }> = [];
  const folded = new Map<string, { key: string; t: ProgressTask; ids: string[] }>();
  for (const t of tasks) {
    if (t.state === 'running' || t.state === 'failed') {
      out.push({ key: t.id, t, ids: [t.id] });
      continue;
    }
    const k = `${t.kind}:${t.state}`;
    const row = folded.get(k);
    if (row) {
      row.ids.push(t.id);
      if (t.started_at >= row.t.started_at) row.t = t;
    } else {
      const fresh = { key: k, t, ids: [t.id] };
      folded.set(k, fresh);
      out.push(fresh);
    }
  }
  return out;
}

/** Long work in the main process (sandbox start, page indexing, …), top right, with cancel. */
export function ProgressArea() {
  const s = useWorkspaceStore(
    useShallow((x) => ({ tasks: x.tasks, cancelTask: x.cancelTask, dismissTask: x.dismissTask })),
  );
  if (s.tasks.length === 0) return null;
  return (
    <section className="progress-area" aria-label="Background work" aria-live="polite">
      <ul className="progress-area__list">
        {progressRows(s.tasks).map((r) => (
          <Task
            key={r.key}
            t={r.t}
            more={r.ids.length - 1}
            cancel={() => void s.cancelTask(r.t.id)}
            dismiss={() => {
              for (const id of r.ids) s.dismissTask(id);
            }}
          />
        ))}
      </ul>
    </section>
  );
}
