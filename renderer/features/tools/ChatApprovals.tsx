import type { RefObject } from 'react';
import { useShallow } from 'zustand/react/shallow';
import './tools.css';
import { useToolsStore } from '../../stores.js';
import { useWorkspaceStore } from '../workspace/WorkspaceSwitcher.js';
import { ApprovalList, type ApprovalScope } from './ApprovalCard.js';

/**
 * The approvals waiting in the open chat, above the composer. `composerRef` is the message box:
 * the cards leave focus in it and pass on to it what is typed while focus is in a card.
 */
export function ChatApprovals({
  sessionId,
  composerRef,
}: {
  sessionId: string | null;
  composerRef?: RefObject<HTMLTextAreaElement | null>;
}) {
  const t = useToolsStore(
    useShallow((s) => ({
      pending: s.pending,
      answering: s.answering,
      answer: s.answer,
      progress: s.progress,
    })),
  );
  // "Always allow" is stored in the open workspace's store, or the account's without one.
  const scope = useWorkspaceStore(
    useShallow(
      (w): ApprovalScope =>
        w.current && w.current.path === null
          ? { kind: 'account' }
          : { kind: 'workspace', name: w.current?.name ?? null },
    ),
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
      <ApprovalList
        pending={mine}
        answering={t.answering}
        scope={scope}
        composerRef={composerRef}
        onAnswer={(id, d) => void t.answer(id, d)}
      />
    </>
  );
}
