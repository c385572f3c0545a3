import { type RefObject, useEffect, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { SkillMatchView } from '../../../electron/contract/skills.js';
import { useChatStore, useMatchStore, useStores } from '../../stores.js';
import { Kbd } from '../../ui/badges.js';
import { Icon } from '../../ui/Icon.js';
import { MatchHint } from './MatchHint.js';

/**
 * The composer's text is the draft of the open chat: switching chats swaps drafts, and each is
 * kept (across reloads too) until sent.
 */
function useDraftOfChat(activeId: string | null, message: string, setMessage: (t: string) => void) {
  const { drafts } = useStores();
  // Which chat the composer's text belongs to (undefined before the first load).
  const owner = useRef<string | null | undefined>(undefined);
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a change of chat swaps drafts
  useEffect(() => {
    if (owner.current === activeId) return;
    owner.current = activeId;
    const draft = drafts.get(activeId);
    if (draft !== message) setMessage(draft);
  }, [activeId]);
  useEffect(() => {
    if (owner.current !== undefined) drafts.set(owner.current, message);
  }, [drafts, message]);
}

/** Write and send a message; stop a reply; see which skills the draft would activate. */
export function Composer(props: {
  inputRef: RefObject<HTMLTextAreaElement | null>;
  configured: boolean | null;
  onOpenSkill: (m: SkillMatchView) => void;
  /** Called when a message is about to be sent (the thread follows it to the bottom). */
  onSend: () => void;
}) {
  const stores = useStores();
  const c = useChatStore(
    useShallow((s) => ({
      activeId: s.activeId,
      streaming: s.activeId ? Boolean(s.streaming[s.activeId]) : false,
      pending: s.pending,
      sendError: s.sendError,
    })),
  );
  const m = useMatchStore(
    useShallow((s) => ({ message: s.message, matches: s.matches, setMessage: s.setMessage })),
  );
  const setMessage = (t: string) => void m.setMessage(t);
  useDraftOfChat(c.activeId, m.message, setMessage);
  // Text cleared with Esc, until it is brought back or something new is typed.
  const [cleared, setCleared] = useState<string | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a change of chat drops the undo
  useEffect(() => setCleared(null), [c.activeId]);
  const { inputRef } = props;

  // biome-ignore lint/correctness/useExhaustiveDependencies: the textarea grows with its text
  useEffect(() => {
    const el = inputRef.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, 240)}px`;
  }, [m.message]);

  const busy = c.pending !== null || c.streaming;
  const send = async () => {
    const text = m.message;
    if (busy || text.trim() === '') return;
    props.onSend();
    setCleared(null);
    setMessage('');
    const ok = await stores.chat.getState().send(text);
    if (!ok && stores.match.getState().message === '') setMessage(text);
    inputRef.current?.focus();
  };
  const cancel = () => void stores.chat.getState().cancel();

  return (
    <div className="composer-wrap">
      {c.sendError && (
        <div className="callout callout--error composer__error" role="alert">
          <Icon name="alert" />
          <p>{c.sendError.message}</p>
          <button
            type="button"
            className="btn btn--icon btn--small"
            aria-label="Dismiss"
            onClick={() => stores.chat.getState().dismissError()}
          >
            <Icon name="close" />
          </button>
        </div>
      )}
      {cleared !== null ? (
        <output className="hint composer__undo">
          <span>Draft cleared.</span>
          <button
            type="button"
            className="linkish"
            onClick={() => {
              setMessage(cleared);
              setCleared(null);
              inputRef.current?.focus();
            }}
          >
            Undo
          </button>
        </output>
      ) : (
        <MatchHint draft={m.message} matches={m.message.trim() ? m.matches : []} onOpen={props.onOpenSkill} />
      )}
      <div className={`composer${busy ? ' is-busy' : ''}`}>
        <label htmlFor="composer-input" className="visually-hidden">
          Message
        </label>
        <textarea
          id="composer-input"
          ref={inputRef}
          rows={1}
          placeholder={c.activeId === null ? 'Ask anything, or paste text for a skill…' : 'Reply…'}
          value={m.message}
          disabled={c.pending !== null}
          onChange={(e) => {
            if (cleared !== null) setCleared(null);
            setMessage(e.target.value);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              void send();
            } else if (e.key === 'Escape') {
              e.preventDefault();
              if (c.streaming) cancel();
              else if (m.message) {
                setCleared(m.message);
                setMessage('');
              }
            }
          }}
        />
        {c.streaming ? (
          <button
            type="button"
            className="composer__btn composer__btn--stop"
            onClick={cancel}
            aria-label="Stop"
          >
            <Icon name="stop" />
          </button>
        ) : (
          <button
            type="button"
            className="composer__btn"
            onClick={() => void send()}
            disabled={busy || m.message.trim() === ''}
            aria-label="Send"
          >
            {c.pending ? <span className="spinner spinner--tiny" aria-hidden="true" /> : <Icon name="send" />}
          </button>
        )}
      </div>
      <p className="composer__hint">
        <span>
          <Kbd>Enter</Kbd> send · <Kbd>Shift Enter</Kbd> new line · <Kbd>Esc</Kbd>{' '}
          {c.streaming ? 'stop' : 'clear (undo)'}
        </span>
        {props.configured === false && (
          <span className="muted">No model yet: replies say which skills match.</span>
        )}
      </p>
    </div>
  );
}
