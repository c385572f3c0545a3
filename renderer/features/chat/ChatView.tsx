import { useEffect, useLayoutEffect, useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { SkillMatchView } from '../../../electron/contract/skills.js';
import { useAppStore, useChatStore, useMatchStore, useProvidersStore, useStores } from '../../stores.js';
import { Kbd } from '../../ui/badges.js';
import { Icon } from '../../ui/Icon.js';
import { skillKey } from '../skills/skills-store.js';
import { TraceDrawer } from '../traces/TraceDrawer.js';
import type { UiMessage } from './chat-store.js';
import { Message } from './Message.js';

const SUGGESTIONS = [
  {
    title: 'Summarize',
    text: 'Summarize this: the team agreed to ship on Friday, pending the security review.',
  },
  { title: 'Translate', text: 'Please translate “good morning, see you at the meeting” into French' },
  {
    title: 'Find contradictions',
    text: 'Are there any contradictions in my notes about the northern kingdom?',
  },
  { title: 'Crunch a CSV', text: 'Compute statistics for the columns of this CSV file' },
];

const EMPTY: UiMessage[] = [];

function EmptyState(props: {
  configured: boolean | null;
  onPick: (text: string) => void;
  onSettings: () => void;
}) {
  return (
    <div className="hero">
      <div className="hero__mark">
        <Icon name="sparkle" size={30} />
      </div>
      <h2 className="hero__title">
        {props.configured === false ? 'Welcome to SkillDesk' : 'What are you working on?'}
      </h2>
      {props.configured === false ? (
        <>
          <p className="hero__text">
            Pick a provider in Settings, or try the built-in skills: Summarize, Translate, Consistency
            Checker, CSV Statistics… Without a model, SkillDesk still shows which skills your message
            activates.
          </p>
          <button type="button" className="btn btn--primary hero__cta" onClick={props.onSettings}>
            <Icon name="key" /> Pick a provider
          </button>
        </>
      ) : (
        <p className="hero__text">
          Your skills are matched to each message first, on this machine. The model can then read and apply
          them — you’ll see each skill it runs, with its trace.
        </p>
      )}
      <div className="suggestions">
        {SUGGESTIONS.map((sug) => (
          <button key={sug.title} type="button" className="suggestion" onClick={() => props.onPick(sug.text)}>
            <span className="suggestion__title">{sug.title}</span>
            <span className="suggestion__text">{sug.text}</span>
          </button>
        ))}
      </div>
    </div>
  );
}

function MatchHint({ matches, onOpen }: { matches: SkillMatchView[]; onOpen: (m: SkillMatchView) => void }) {
  if (matches.length === 0) return null;
  return (
    <section className="hint" aria-label="Skills that would activate">
      <Icon name="sparkle" />
      <span className="hint__label">Skills that would activate</span>
      {matches.slice(0, 4).map((m) => (
        <button key={skillKey(m)} type="button" className="hint__skill" onClick={() => onOpen(m)}>
          {m.name}
          {m.matched_on.includes('exact_trigger') && <span className="hint__exact">trigger</span>}
        </button>
      ))}
    </section>
  );
}

/** The chat: messages streaming in with their skill activity, the composer, and the trace drawer. */
export function ChatView() {
  const stores = useStores();
  const c = useChatStore(
    useShallow((s) => ({
      activeId: s.activeId,
      thread: s.activeId ? s.threads[s.activeId] : undefined,
      streaming: s.activeId ? Boolean(s.streaming[s.activeId]) : false,
      pending: s.pending,
      sendError: s.sendError,
      title: s.sessions.items.find((i) => i.id === s.activeId)?.title,
    })),
  );
  const m = useMatchStore(
    useShallow((s) => ({ message: s.message, matches: s.matches, setMessage: s.setMessage })),
  );
  const providers = useProvidersStore(
    useShallow((s) => ({ status: s.status, value: s.value, load: s.load })),
  );
  const focusTick = useAppStore((s) => s.focusComposerTick);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const scrollRef = useRef<HTMLDivElement>(null);
  const stick = useRef(true);

  useEffect(() => {
    if (providers.status === 'idle') void providers.load();
  }, [providers.status, providers.load]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: refocus when asked (new chat, switching sessions)
  useEffect(() => {
    inputRef.current?.focus();
  }, [focusTick, c.activeId]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the textarea grows with its text
  useEffect(() => {
    const el = inputRef.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, 240)}px`;
  }, [m.message]);

  const messages = c.thread?.messages ?? EMPTY;
  // Follow the stream while the reader is at the bottom; leave them be when they scrolled up.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on every content change
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [messages]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a newly opened chat starts at its end
  useEffect(() => {
    stick.current = true;
  }, [c.activeId]);

  const busy = c.pending !== null || c.streaming;
  const send = async () => {
    const text = m.message;
    if (busy || text.trim() === '') return;
    stick.current = true;
    void m.setMessage('');
    const ok = await stores.chat.getState().send(text);
    if (!ok && stores.match.getState().message === '') void m.setMessage(text);
    inputRef.current?.focus();
  };
  const cancel = () => void stores.chat.getState().cancel();
  useEffect(() => {
    if (!c.streaming) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !e.defaultPrevented && !document.querySelector('.drawer, .scrim')) {
        e.preventDefault();
        void stores.chat.getState().cancel();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [c.streaming, stores]);

  const openSettings = () => stores.app.getState().navigate('settings');
  const openSkill = (match: SkillMatchView) => {
    stores.app.getState().navigate('skills');
    void stores.skills.getState().openSkill(skillKey(match));
  };
  const openTrace = (id: string) => void stores.traces.getState().open(id);
  const chat = providers.value?.chat ?? null;
  const configured = providers.value ? chat !== null : null;
  const modelLabel = chat
    ? `${providers.value?.providers.find((p) => p.id === chat.provider)?.label ?? chat.provider} · ${
        chat.model ?? providers.value?.providers.find((p) => p.id === chat.provider)?.default_model
      }`
    : null;
  const isNew = c.activeId === null;

  return (
    <div className="chat">
      <header className="chat__head">
        <h1 className="pane-title chat__title">{isNew ? 'New chat' : c.title || 'Chat'}</h1>
        {providers.value &&
          (modelLabel ? (
            <button
              type="button"
              className="pill pill--button"
              onClick={openSettings}
              title="Change in Settings"
            >
              <Icon name="sparkle" /> {modelLabel}
            </button>
          ) : (
            <button type="button" className="pill pill--warn pill--button" onClick={openSettings}>
              <Icon name="alert" /> No model — set one up
            </button>
          ))}
      </header>
      <div
        className="chat__scroll"
        ref={scrollRef}
        onScroll={(e) => {
          const el = e.currentTarget;
          stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
        }}
      >
        {isNew && messages.length === 0 && !c.pending ? (
          <EmptyState
            configured={configured}
            onSettings={openSettings}
            onPick={(text) => {
              void m.setMessage(text);
              inputRef.current?.focus();
            }}
          />
        ) : c.thread?.status === 'error' && c.thread.error ? (
          <div className="callout callout--error thread-error" role="alert">
            <Icon name="alert" />
            <p>{c.thread.error.message}</p>
          </div>
        ) : c.thread?.status === 'loading' && messages.length === 0 ? (
          <div className="thread">
            <div className="skeleton skeleton--block" />
          </div>
        ) : (
          <div className="thread" aria-label="Messages" role="log">
            {messages.map((msg) => (
              <Message key={msg.id} m={msg} onTrace={openTrace} onSettings={openSettings} />
            ))}
            {c.pending && c.pending.session_id === c.activeId && (
              <div className="msg msg--user is-pending">
                <div className="msg__bubble">{c.pending.message}</div>
              </div>
            )}
          </div>
        )}
      </div>
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
        <MatchHint matches={m.message.trim() ? m.matches : []} onOpen={openSkill} />
        <div className={`composer${busy ? ' is-busy' : ''}`}>
          <label htmlFor="composer-input" className="visually-hidden">
            Message
          </label>
          <textarea
            id="composer-input"
            ref={inputRef}
            rows={1}
            placeholder={isNew ? 'Ask anything, or paste text for a skill…' : 'Reply…'}
            value={m.message}
            disabled={c.pending !== null}
            onChange={(e) => void m.setMessage(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
                e.preventDefault();
                void send();
              } else if (e.key === 'Escape') {
                e.preventDefault();
                if (c.streaming) cancel();
                else if (m.message) void m.setMessage('');
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
              {c.pending ? (
                <span className="spinner spinner--tiny" aria-hidden="true" />
              ) : (
                <Icon name="send" />
              )}
            </button>
          )}
        </div>
        <p className="composer__hint">
          <span>
            <Kbd>Enter</Kbd> send · <Kbd>Shift Enter</Kbd> new line · <Kbd>Esc</Kbd>{' '}
            {c.streaming ? 'stop' : 'clear'}
          </span>
          {configured === false && (
            <span className="muted">No model yet: replies say which skills match.</span>
          )}
        </p>
      </div>
      <TraceDrawer />
    </div>
  );
}
