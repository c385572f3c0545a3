import { useShallow } from 'zustand/react/shallow';
import './tools.css';
import { useToolsStore } from '../../stores.js';
import { ApprovalList } from './ApprovalCard.js';

/** The approvals waiting in the open chat, above the composer. */
export function ChatApprovals({ sessionId }: { sessionId: string | null }) {
  const t = useToolsStore(
    useShallow((s) => ({
      pending: s.pending,
      answering: s.answering,
      answer: s.answer,
      progress: s.progress,
    })),
  );
  const mine = t.pending.filter((p) => p.session_id === sessionId);
  const running = Object.values(t.progress).filter((p) => p.session_id === sessionId);
  if (!sessionId || (mine.length === 0 && running.length === 0)) return null;
  return (
    <>
      {running.length > 0 && (
        <div className="tool-progress-list">
          {running.map((p) => (
            <div key={p.call_id} className="tool-progress" role="status">
              <span>{p.message ?? 'Tool running'}</span>
              {p.total ? (
                <progress max={p.total} value={p.progress} aria-label="Tool progress" />
              ) : (
                <span>{p.progress}</span>
              )}
            </div>
          ))}
        </div>
      )}
      <ApprovalList pending={mine} answering={t.answering} onAnswer={(id, d) => void t.answer(id, d)} />
    </>
  );
}
