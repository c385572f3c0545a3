import { type RefObject, useEffect, useId, useRef } from 'react';
import {
  type ApprovalDecision,
  type ApprovalRequestedEvent,
  BUILTIN_TOOL_SERVER,
  SKILL_SERVER,
} from '../../../electron/contract/tools.js';
import { Icon } from '../../ui/Icon.js';
import { approvalShortcut, isMacPlatform, isTypedText, shortcutLabels } from './approval-keys.js';

const HINTS: Array<[keyof NonNullable<ApprovalRequestedEvent['annotations']>, string, string]> = [
  ['readOnlyHint', 'read-only', 'ok'],
  ['destructiveHint', 'destructive', 'danger'],
  ['openWorldHint', 'reaches the internet', 'warn'],
  ['idempotentHint', 'idempotent', 'muted'],
];

/**
 * Where "always allow" is stored: the open workspace's store, or the account's when no workspace
 * is open (the name is null until the workspace has loaded).
 */
export type ApprovalScope = { kind: 'workspace'; name: string | null } | { kind: 'account' };

function time(iso: string): string {
  const d = new Date(iso);
  return d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/** "in “notes”" for the button; the longer form for the sentence saying what is stored. */
function scopeWords(scope: ApprovalScope): { short: string; long: string } {
  if (scope.kind === 'account')
    return { short: 'in your account', long: 'your account (used while no workspace is open)' };
  return scope.name
    ? { short: `in “${scope.name}”`, long: `the workspace “${scope.name}”` }
    : { short: 'in this workspace', long: 'this workspace' };
}

/**
 * One tool call waiting for the user's approval: the tool, its server and the arguments, and the
 * four answers. It never takes focus: it appears while the user may be typing in the message box.
 * Printable keys pressed while focus is in the card go on into the message box, so nothing typed
 * is lost; the chat-wide shortcuts are {@link ApprovalList}'s.
 */
export function ApprovalCard(props: {
  request: ApprovalRequestedEvent;
  busy: boolean;
  scope: ApprovalScope;
  mac: boolean;
  /** Where typed text belongs when focus is in the card. */
  composerRef?: RefObject<HTMLTextAreaElement | null>;
  onAnswer: (decision: ApprovalDecision) => void;
}) {
  const { request: r, busy, onAnswer } = props;
  const titleId = useId();
  const storesId = useId();
  const keys = shortcutLabels(props.mac);
  const args = JSON.stringify(r.args ?? {}, null, 2);
  const hints = HINTS.filter(([k]) => r.annotations?.[k] === true);
  const skill = r.server === SKILL_SERVER;
  const builtin = r.server === BUILTIN_TOOL_SERVER;
  // Code the model wants to run is shown as written (not as an escaped JSON string): it is what
  // the user is deciding on.
  const rawCode = builtin ? (r.args as { code?: unknown } | null)?.code : undefined;
  const code = typeof rawCode === 'string' ? rawCode : null;
  const where = scopeWords(props.scope);
  const what = skill
    ? `the skill ${r.server_tool}`
    : builtin
      ? `SkillDesk's ${r.server_tool}`
      : `${r.server_tool} from ${r.server}`;

  const onKeyDown = (e: React.KeyboardEvent<HTMLElement>) => {
    if (!isTypedText(e.nativeEvent)) return;
    // Space on a button the user tabbed to presses it, as on any button.
    if (e.key === ' ' && e.target !== e.currentTarget) return;
    const box = props.composerRef?.current;
    if (!box || box.disabled) return;
    // Moving focus before the key's default action makes its character land in the message box.
    box.focus();
  };

  // tabIndex -1: a click on the card's text focuses it (Tab never does), so the keys typed next
  // reach onKeyDown and go on to the message box instead of nowhere.
  return (
    <section className="approval" aria-labelledby={titleId} tabIndex={-1} onKeyDown={onKeyDown}>
      <div className="approval__head">
        <span className="approval__icon" aria-hidden="true">
          <Icon name="key" />
        </span>
        <div className="approval__what">
          <h3 id={titleId} className="approval__title">
            {skill ? (
              <>
                Run skill <strong>{r.server_tool}</strong>?
              </>
            ) : builtin ? (
              <>
                {r.title ?? r.server_tool}: allow <code>{r.server_tool}</code>?
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
      {code !== null ? (
        <pre className="approval__args approval__code" title="The code it will run">
          <code>{code}</code>
        </pre>
      ) : (
        <pre className="approval__args" title="Arguments">
          {args}
        </pre>
      )}
      <div className="approval__actions">
        <button
          type="button"
          className="btn btn--primary btn--small"
          disabled={busy}
          aria-keyshortcuts={keys.once.aria}
          onClick={() => onAnswer('once')}
        >
          Allow once <kbd>{keys.once.shown}</kbd>
        </button>
        <button type="button" className="btn btn--small" disabled={busy} onClick={() => onAnswer('chat')}>
          Allow in this chat
        </button>
        <button
          type="button"
          className="btn btn--small approval__always"
          disabled={busy}
          aria-describedby={storesId}
          title={`Saves ${what} as always allowed in ${where.long}; revoke it in Settings → Tool approvals`}
          onClick={() => onAnswer('always')}
        >
          Always allow {where.short}
        </button>
        <button
          type="button"
          className="btn btn--ghost-danger btn--small approval__deny"
          disabled={busy}
          aria-keyshortcuts={keys.deny.aria}
          onClick={() => onAnswer('deny')}
        >
          Deny <kbd>{keys.deny.shown}</kbd>
        </button>
      </div>
      <p className="approval__foot">
        <span id={storesId}>
          <strong>Always allow</strong> saves{' '}
          {builtin ? (
            <code>{r.server_tool}</code>
          ) : skill ? (
            <>
              the skill <code>{r.server_tool}</code>
            </>
          ) : (
            <>
              <code>{r.server_tool}</code> from <strong>{r.server}</strong>
            </>
          )}{' '}
          as always allowed in {where.long}: it then runs without asking until you revoke it in Settings →
          Tool approvals.
        </span>{' '}
        No answer by {time(r.expires_at)} denies the call.
      </p>
    </section>
  );
}

/**
 * The approvals waiting in one chat, oldest first. While one waits, the command-key shortcuts
 * answer the oldest from anywhere in the window, ahead of the message box (whose Enter would
 * otherwise also see Ctrl Enter); a modal dialog keeps its keys.
 */
export function ApprovalList(props: {
  pending: ApprovalRequestedEvent[];
  answering: Record<string, true>;
  scope: ApprovalScope;
  composerRef?: RefObject<HTMLTextAreaElement | null>;
  onAnswer: (approvalId: string, decision: ApprovalDecision) => void;
  /** For tests; the platform otherwise. */
  mac?: boolean;
}) {
  const mac = props.mac ?? isMacPlatform();
  const latest = useRef(props);
  latest.current = props;
  const waiting = props.pending.length > 0;
  useEffect(() => {
    if (!waiting) return;
    const onKey = (e: KeyboardEvent) => {
      const decision = approvalShortcut(e, mac);
      if (!decision || e.defaultPrevented || document.querySelector('[aria-modal="true"]')) return;
      const { pending, answering, onAnswer } = latest.current;
      const first = pending[0];
      if (!first) return;
      e.preventDefault();
      e.stopPropagation();
      // A second press while the first answer is on its way must not answer the next card.
      if (!answering[first.approval_id]) onAnswer(first.approval_id, decision);
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [waiting, mac]);

  if (!waiting) return null;
  const keys = shortcutLabels(mac);
  const first = props.pending[0]!;
  return (
    <section className="approvals" aria-label="Tool calls waiting for your approval">
      {/* Said without moving focus, so a screen reader user typing a message hears it too. */}
      <p className="visually-hidden" role="status">
        {first.server === SKILL_SERVER
          ? `Skill ${first.server_tool} asks to run.`
          : `Tool ${first.server_tool} from ${first.server} asks to run.`}{' '}
        {keys.once.shown} allows once, {keys.deny.shown} denies.
      </p>
      {props.pending.map((r) => (
        <ApprovalCard
          key={r.approval_id}
          request={r}
          busy={Boolean(props.answering[r.approval_id])}
          scope={props.scope}
          mac={mac}
          composerRef={props.composerRef}
          onAnswer={(d) => props.onAnswer(r.approval_id, d)}
        />
      ))}
    </section>
  );
}
