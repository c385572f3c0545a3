import { useEffect, useRef, useState } from 'react';
import { isImageMediaType } from '../../../electron/contract/chat.js';
import { useChatStore, useStores } from '../../stores.js';
import { Icon } from '../../ui/Icon.js';
import { Markdown } from '../../ui/Markdown.js';
import { docFromReply, LONG_REPLY_CHARS } from '../canvas/canvas-docs.js';
import type { UiMessage } from './chat-store.js';
import { describeReplyError } from './reply-errors.js';
import { SkillActivity } from './SkillActivity.js';
import { TurnCandidates } from './TurnCandidates.js';

/** Model, tokens and cost of a reply; none for a reply that never started (nothing was used). */
export function usageLine(m: UiMessage): string | null {
  if (!m.model_id) return null;
  const used = (m.input_tokens ?? 0) + (m.output_tokens ?? 0) > 0;
  if (!used && m.estimated_cost == null) return null;
  const model = m.model_id.split(':').slice(1).join(':') || m.model_id;
  const parts = [model];
  if (used) parts.push(`${m.input_tokens ?? 0} in / ${m.output_tokens ?? 0} out`);
  if (m.estimated_cost != null)
    parts.push(
      m.estimated_cost < 0.01 ? `~$${m.estimated_cost.toFixed(5)}` : `~$${m.estimated_cost.toFixed(3)}`,
    );
  return parts.join(' · ');
}

/** A failed reply in words, with the next steps as buttons and the provider's own words folded away. */
function ReplyError(props: { m: UiMessage; onRetry: () => void; onSettings: () => void }) {
  const error = props.m.error!;
  const view = describeReplyError(error);
  return (
    <div className="callout callout--error msg__error" role="alert">
      <Icon name="alert" />
      <div className="msg__error-body">
        <p className="msg__error-title">{view.title}</p>
        <p>{view.advice}</p>
        <div className="msg__error-actions">
          {view.retry && (
            <button type="button" className="btn btn--small btn--primary" onClick={props.onRetry}>
              <Icon name="refresh" /> Retry
            </button>
          )}
          {view.settings && (
            <button type="button" className="btn btn--small" onClick={props.onSettings}>
              <Icon name="settings" /> Open Settings
            </button>
          )}
        </div>
        <details className="msg__error-details">
          <summary>Details</summary>
          <p className="mono">{error.message}</p>
        </details>
      </div>
    </div>
  );
}

/** What a message can do: copy it, write a reply again, edit a question, move between branches. */
export interface MessageActions {
  onRegenerate: (replyId: string) => void;
  onEdit: (messageId: string, text: string) => void;
  onSwitch: (messageId: string) => void;
  /** Another reply is being written: actions that start a turn wait. */
  busy: boolean;
}

/** Copy text to the clipboard; says so for a moment. */
function CopyButton({ text }: { text: string }) {
  const [done, setDone] = useState<'copied' | 'failed' | null>(null);
  useEffect(() => {
    if (!done) return;
    const t = setTimeout(() => setDone(null), 1600);
    return () => clearTimeout(t);
  }, [done]);
  return (
    <button
      type="button"
      className="btn btn--icon btn--small msg__act"
      aria-label={done === 'copied' ? 'Copied' : 'Copy message'}
      title={done === 'failed' ? 'The clipboard is not available here' : 'Copy'}
      onClick={() => {
        if (!navigator.clipboard) return setDone('failed');
        navigator.clipboard.writeText(text).then(
          () => setDone('copied'),
          () => setDone('failed'),
        );
      }}
    >
      <Icon name={done === 'copied' ? 'check' : 'copy'} />
    </button>
  );
}

/** `‹ 2/3 ›`: the alternatives an edit or a regeneration left, one shown. */
function BranchSwitcher(props: { m: UiMessage; a: MessageActions }) {
  const { sibling_ids: ids } = props.m;
  const i = ids.indexOf(props.m.id);
  if (ids.length < 2 || i < 0) return null;
  const go = (j: number) => props.a.onSwitch(ids[j]!);
  const what = props.m.role === 'user' ? 'version' : 'reply';
  return (
    <fieldset className="branch" aria-label={`${what} ${i + 1} of ${ids.length}`}>
      <button
        type="button"
        className="btn btn--icon btn--small"
        aria-label={`Previous ${what}`}
        disabled={i === 0 || props.a.busy}
        onClick={() => go(i - 1)}
      >
        <Icon name="chevronLeft" />
      </button>
      <span className="branch__pos">
        {i + 1}/{ids.length}
      </span>
      <button
        type="button"
        className="btn btn--icon btn--small"
        aria-label={`Next ${what}`}
        disabled={i === ids.length - 1 || props.a.busy}
        onClick={() => go(i + 1)}
      >
        <Icon name="chevronRight" />
      </button>
    </fieldset>
  );
}

/** A file's size in words a person reads. */
export const fileSize = (n: number) => (n < 1024 ? `${n} B` : `${(n / 1024).toFixed(n < 10_240 ? 1 : 0)} KB`);

/**
 * A `blob:` URL for base64 image bytes, revoked when they change or the component goes (the app's
 * CSP allows `blob:` images, not `data:`).
 */
export function useImageUrl(media_type: string, data: string | null): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (data === null) return;
    const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
    const u = URL.createObjectURL(new Blob([bytes], { type: media_type }));
    setUrl(u);
    return () => {
      URL.revokeObjectURL(u);
      setUrl(null);
    };
  }, [media_type, data]);
  return url;
}

/** An image a stored message carried: a thumbnail read from the host; a click opens it larger. */
function ImageAttachment(props: {
  name: string;
  size: number;
  sessionId: string;
  messageId: string;
  index: number;
}) {
  const { client } = useStores();
  const [image, setImage] = useState<{ media_type: string; data: string } | null>(null);
  const [failed, setFailed] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  const { sessionId, messageId, index } = props;
  useEffect(() => {
    let live = true;
    client.invoke('chat/get-attachment', { session_id: sessionId, message_id: messageId, index }).then(
      (r) => {
        if (live && r.data !== undefined) setImage({ media_type: r.media_type, data: r.data });
      },
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, [client, sessionId, messageId, index]);
  const src = useImageUrl(image?.media_type ?? '', image?.data ?? null);
  return (
    <li
      className="attach-image"
      title={`${props.name}: the model saw this image; skills receive text files only`}
    >
      <button
        type="button"
        className="attach-image__open"
        aria-label={`Open ${props.name}`}
        disabled={!src}
        onClick={() => dialog.current?.showModal()}
      >
        {src ? (
          <img src={src} alt={props.name} />
        ) : (
          <span className="attach-image__wait">{failed ? 'Image unavailable' : 'Loading…'}</span>
        )}
      </button>
      <span className="attach-image__name">
        {props.name} · {fileSize(props.size)}
      </span>
      {src && (
        // biome-ignore lint/a11y/useKeyWithClickEvents: a click on the backdrop closes it; Esc (the dialog's own) and the Close button are the keyboard ways
        <dialog
          ref={dialog}
          className="lightbox"
          aria-label={props.name}
          onClick={(e) => {
            if (e.target === e.currentTarget) e.currentTarget.close();
          }}
        >
          <img src={src} alt={props.name} />
          <div className="lightbox__bar">
            <span>{props.name}</span>
            <button type="button" className="btn btn--small" onClick={() => dialog.current?.close()}>
              Close <kbd>Esc</kbd>
            </button>
          </div>
        </dialog>
      )}
    </li>
  );
}

/** The files a message carried, as chips; images as thumbnails (when the message is stored). */
export function AttachmentChips({
  files,
  sessionId,
  messageId,
}: {
  files: Array<{ name: string; size: number; media_type?: string }>;
  sessionId?: string | null;
  messageId?: string;
}) {
  if (files.length === 0) return null;
  return (
    <ul className="attach-list" aria-label="Attached files">
      {files.map((f, i) =>
        f.media_type && isImageMediaType(f.media_type) && sessionId && messageId ? (
          <ImageAttachment
            key={f.name}
            name={f.name}
            size={f.size}
            sessionId={sessionId}
            messageId={messageId}
            index={i}
          />
        ) : (
          <li key={f.name} className="attach-chip">
            <Icon name="file" /> <span className="attach-chip__name">{f.name}</span>
            <span className="attach-chip__size">{fileSize(f.size)}</span>
          </li>
        ),
      )}
    </ul>
  );
}

/** The user's message, editable in place: Enter sends the new version as a branch, Esc cancels. */
function UserMessage(props: { m: UiMessage; a: MessageActions }) {
  const { m, a } = props;
  const sessionId = useChatStore((s) => s.activeId);
  const [editing, setEditing] = useState<string | null>(null);
  const ref = useRef<HTMLTextAreaElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the box grows with its text
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, 320)}px`;
  }, [editing]);
  const submit = () => {
    if (editing === null || editing.trim() === '' || a.busy) return;
    a.onEdit(m.id, editing);
    setEditing(null);
  };
  if (editing !== null) {
    return (
      <div className="msg msg--user is-editing">
        <div className="msg__edit">
          <label className="visually-hidden" htmlFor={`edit-${m.id}`}>
            Edit message
          </label>
          <textarea
            id={`edit-${m.id}`}
            ref={ref}
            // biome-ignore lint/a11y/noAutofocus: editing starts typing at once
            autoFocus
            value={editing}
            onChange={(e) => setEditing(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
                e.preventDefault();
                submit();
              } else if (e.key === 'Escape') {
                e.preventDefault();
                e.stopPropagation();
                setEditing(null);
              }
            }}
          />
          <div className="msg__edit-actions">
            <span className="muted">The current version stays: switch back with ‹ ›.</span>
            <button type="button" className="btn btn--small" onClick={() => setEditing(null)}>
              Cancel
            </button>
            <button
              type="button"
              className="btn btn--small btn--primary"
              disabled={editing.trim() === '' || a.busy}
              onClick={submit}
            >
              Send
            </button>
          </div>
        </div>
      </div>
    );
  }
  return (
    <div className="msg msg--user">
      <div className="msg__user-col">
        <div className="msg__bubble">
          {m.content}
          <AttachmentChips files={m.attachments} sessionId={sessionId} messageId={m.id} />
        </div>
        <div className="msg__actions">
          <BranchSwitcher m={m} a={a} />
          <CopyButton text={m.content} />
          <button
            type="button"
            className="btn btn--icon btn--small msg__act"
            aria-label="Edit message"
            title={a.busy ? 'Wait for the reply to finish' : 'Edit and resend'}
            disabled={a.busy}
            onClick={() => setEditing(m.content)}
          >
            <Icon name="pencil" />
          </button>
        </div>
        <TurnCandidates message={m.content} listing={m.listing} />
      </div>
    </div>
  );
}

/** A long reply's way into the canvas, titled by its first heading when it has one. */
function OpenReplyInCanvas({ m }: { m: UiMessage }) {
  const { canvas } = useStores();
  const heading = /^#{1,3}\s+(.+?)\s*#*\s*$/m.exec(m.content)?.[1] ?? null;
  const model = m.model_id ? m.model_id.split(':').slice(1).join(':') || m.model_id : null;
  return (
    <button
      type="button"
      className="btn btn--small canvas-open"
      title="Show this reply in the canvas beside the chat, to read, copy or download"
      onClick={() => canvas.getState().open(docFromReply(m.content, { chatTitle: heading, model }))}
    >
      <Icon name="panelRight" /> Open in canvas
    </button>
  );
}

/** One message: the user's as a bubble, a reply as Markdown with its skill activity and usage. */
export function Message(props: {
  m: UiMessage;
  onTrace: (id: string) => void;
  onSettings: () => void;
  onRetry: (replyId: string) => void;
  actions: MessageActions;
}) {
  const { m, actions } = props;
  if (m.role === 'user') return <UserMessage m={m} a={actions} />;
  const noModel = m.status === 'complete' && m.model_id === null;
  const usage = usageLine(m);
  const streaming = m.status === 'streaming';
  return (
    <article className={`msg msg--assistant${streaming ? ' is-streaming' : ''}`} aria-busy={streaming}>
      <div className="msg__avatar" aria-hidden="true">
        <Icon name="sparkle" />
      </div>
      <div className="msg__body">
        <SkillActivity calls={m.tool_calls} onTrace={props.onTrace} />
        {m.content ? (
          <Markdown text={m.content} />
        ) : streaming ? (
          <p className="msg__thinking" title="Thinking">
            <span />
            <span />
            <span />
          </p>
        ) : null}
        {streaming && m.content && <span className="msg__cursor" aria-hidden="true" />}
        {m.status === 'partial' && (
          <p className="msg__note">
            <Icon name="stop" />{' '}
            {m.content
              ? 'Stopped — the reply above is what had arrived.'
              : 'Stopped before the reply began: nothing had arrived yet.'}
          </p>
        )}
        {m.status === 'error' && m.error && (
          <ReplyError m={m} onRetry={() => props.onRetry(m.id)} onSettings={props.onSettings} />
        )}
        {noModel && (
          <button type="button" className="btn btn--small" onClick={props.onSettings}>
            <Icon name="settings" /> Set up a provider
          </button>
        )}
        {!streaming && (
          <div className="msg__actions msg__actions--reply">
            <BranchSwitcher m={m} a={actions} />
            {/* Before the hover-only icons, so it lines up with the reply's text whether they show or not. */}
            {usage && <span className="msg__usage">{usage}</span>}
            {m.content && <CopyButton text={m.content} />}
            {/* A failed reply has Retry in its error card; a second, unlabeled retry would only confuse. */}
            {!m.id.startsWith('streaming:') && !(m.status === 'error' && !m.content) && (
              <button
                type="button"
                className="btn btn--icon btn--small msg__act"
                aria-label="Regenerate reply"
                title={actions.busy ? 'Wait for the reply to finish' : 'Regenerate (the current reply stays)'}
                disabled={actions.busy}
                onClick={() => actions.onRegenerate(m.id)}
              >
                <Icon name="refresh" />
              </button>
            )}
            {m.content.length >= LONG_REPLY_CHARS && <OpenReplyInCanvas m={m} />}
          </div>
        )}
      </div>
    </article>
  );
}
