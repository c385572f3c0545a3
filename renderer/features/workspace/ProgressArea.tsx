import { useEffect, useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ProgressTask } from '../../../electron/contract/progress.js';
import { Icon } from '../../ui/Icon.js';
import { useWorkspaceStore } from './WorkspaceSwitcher.js';

const DONE_VISIBLE_MS = 4000;

function Task({ t, cancel, dismiss }: { t: ProgressTask; cancel: () => void; dismiss: () => void }) {
  const dismissRef = useRef(dismiss);
  dismissRef.current = dismiss;
  useEffect(() => {
    if (t.state !== 'done') return;
    const timer = setTimeout(() => dismissRef.current(), DONE_VISIBLE_MS);
    return () => clearTimeout(timer);
  }, [t.state]);
  return (
    <li className={`ptask is-${t.state}`}>
      {t.state === 'running' ? (
        <span className="spinner" aria-hidden="true" />
      ) : (
        <Icon name={t.state === 'done' ? 'check' : t.state === 'failed' ? 'alert' : 'stop'} />
      )}
      <span className="ptask__text">
        <span className="ptask__label">{t.label}</span>
        {t.detail && <span className="ptask__detail">{t.detail}</span>}
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

/** Long work in the main process (sandbox start, page indexing, …), top right, with cancel. */
export function ProgressArea() {
  const s = useWorkspaceStore(
    useShallow((x) => ({ tasks: x.tasks, cancelTask: x.cancelTask, dismissTask: x.dismissTask })),
  );
  if (s.tasks.length === 0) return null;
  return (
    <section className="progress-area" aria-label="Background work" aria-live="polite">
      <ul className="progress-area__list">
        {s.tasks.map((t) => (
          <Task key={t.id} t={t} cancel={() => void s.cancelTask(t.id)} dismiss={() => s.dismissTask(t.id)} />
        ))}
      </ul>
    </section>
  );
}
