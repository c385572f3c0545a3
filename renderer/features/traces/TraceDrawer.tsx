import { useEffect, useMemo, useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useChatStore, useTracesStore } from '../../stores.js';
import { Icon } from '../../ui/Icon.js';
import { TraceDetail } from './TraceDetail.js';
import { sessionLabel, skillLabel } from './trace-names.js';

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
  const sessions = useChatStore((c) => c.sessions.items);
  const titles = useMemo(() => new Map(sessions.map((x) => [x.id, x.title])), [sessions]);
  const closeRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (t.openId) closeRef.current?.focus();
  }, [t.openId]);
  if (!t.openId) return null;
  const tr = t.trace;
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
          <h2 className="drawer__title">{tr ? skillLabel(tr) : 'Trace'}</h2>
          {tr && <span className="drawer__sub">{sessionLabel(tr.session_id, titles)}</span>}
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
          <TraceDetail trace={tr} />
        )}
      </div>
    </aside>
  );
}
