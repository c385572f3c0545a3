import { useEffect, useRef } from 'react';
import {
  type ApprovalDecision,
  type ApprovalRequestedEvent,
  SKILL_SERVER,
} from '../../../electron/contract/tools.js';
import { Icon } from '../../ui/Icon.js';

const HINTS: Array<[keyof NonNullable<ApprovalRequestedEvent['annotations']>, string, string]> = [
  ['readOnlyHint', 'read-only', 'ok'],
  ['destructiveHint', 'destructive', 'danger'],
  ['openWorldHint', 'reaches the internet', 'warn'],
  ['idempotentHint', 'idempotent', 'muted'],
];

function time(iso: string): string {
  const d = new Date(iso);
  return d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/**
 * One tool call waiting for the user's approval: the tool, its server and the arguments, and the
 * four answers. Keyboard: Enter allows once (focused first), C for this chat, A always, D or Esc
 * denies.
 */
export function ApprovalCard(props: {
  request: ApprovalRequestedEvent;
  busy: boolean;
  autoFocus: boolean;
  onAnswer: (decision: ApprovalDecision) => void;
}) {
  const { request: r, busy, onAnswer } = props;
  const first = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (props.autoFocus) first.current?.focus();
  }, [props.autoFocus]);
  const args = JSON.stringify(r.args ?? {}, null, 2);
  const hints = HINTS.filter(([k]) => r.annotations?.[k] === true);
  const onKey = (e: React.KeyboardEvent) => {
    if (busy || e.metaKey || e.ctrlKey || e.altKey) return;
    const k = e.key.toLowerCase();
    const decision: ApprovalDecision | null =
      k === 'c' ? 'chat' : k === 'a' ? 'always' : k === 'd' || k === 'escape' ? 'deny' : null;
    if (!decision) return;
    e.preventDefault();
    e.stopPropagation();
    onAnswer(decision);
  };
  const titleId = `approval-${r.approval_id}`;
  return (
    <section className="approval" role="alertdialog" aria-labelledby={titleId} onKeyDown={onKey}>
      <div className="approval__head">
        <span className="approval__icon" aria-hidden="true">
          <Icon name="key" />
        </span>
        <div className="approval__what">
          <h3 id={titleId} className="approval__title">
            {r.server === SKILL_SERVER ? (
              <>
                Run skill <strong>{r.server_tool}</strong>?
              </>
            ) : (
              <>
                Allow <code>{r.server_tool}</code> from <strong>{r.server}</strong>?
              </>
            )}
          </h3>
          <p className="approval__desc">
            {r.title && r.title !== r.server_tool ? `${r.title}. ` : ''}
            {r.description ? r.description.split('\n')[0] : 'The model wants to run this tool.'}
          </p>
        </div>
        {hints.length > 0 && (
          <ul className="approval__hints" aria-label="What the server says about this tool">
            {hints.map(([k, label, tone]) => (
              <li key={k} className={`approval__hint approval__hint--${tone}`}>
                {label}
              </li>
            ))}
          </ul>
        )}
      </div>
      <pre className="approval__args" title="Arguments">
        {args}
      </pre>
      <div className="approval__actions">
        <button
          ref={first}
          type="button"
          className="btn btn--primary btn--small"
          disabled={busy}
          onClick={() => onAnswer('once')}
        >
          Allow once <kbd>↵</kbd>
        </button>
        <button type="button" className="btn btn--small" disabled={busy} onClick={() => onAnswer('chat')}>
          Allow in this chat <kbd>C</kbd>
        </button>
        <button type="button" className="btn btn--small" disabled={busy} onClick={() => onAnswer('always')}>
          Always allow this {r.server === SKILL_SERVER ? 'skill' : 'tool'} <kbd>A</kbd>
        </button>
        <button
          type="button"
          className="btn btn--ghost-danger btn--small approval__deny"
          disabled={busy}
          onClick={() => onAnswer('deny')}
        >
          Deny <kbd>D</kbd>
        </button>
      </div>
      <p className="approval__foot">
        “Always” is remembered for this workspace; revoke it in Settings → Tools. No answer by{' '}
        {time(r.expires_at)} denies the call.
      </p>
    </section>
  );
}

/** The approvals waiting in one chat (newest last), the first one focused. */
export function ApprovalList(props: {
  pending: ApprovalRequestedEvent[];
  answering: Record<string, true>;
  onAnswer: (approvalId: string, decision: ApprovalDecision) => void;
}) {
  if (props.pending.length === 0) return null;
  return (
    <section className="approvals" aria-label="Tool calls waiting for your approval">
      {props.pending.map((r, i) => (
        <ApprovalCard
          key={r.approval_id}
          request={r}
          busy={Boolean(props.answering[r.approval_id])}
          autoFocus={i === 0}
          onAnswer={(d) => props.onAnswer(r.approval_id, d)}
        />
      ))}
    </section>
  );
}
