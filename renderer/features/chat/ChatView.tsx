import { useEffect, useLayoutEffect, useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { SkillMatchView } from '../../../electron/contract/skills.js';
import { useAppStore, useChatStore, useProvidersStore, useStores } from '../../stores.js';
import { Icon } from '../../ui/Icon.js';
import { CanvasPanel } from '../canvas/CanvasPanel.js';
import { skillKey } from '../skills/skills-store.js';
import { ChatApprovals } from '../tools/ChatApprovals.js';
import { TraceDrawer } from '../traces/TraceDrawer.js';
import { ChatFiles } from './ChatFiles.js';
import { ChatHeader } from './ChatHeader.js';
import { Composer } from './Composer.js';
import type { UiMessage } from './chat-store.js';
import { EmptyState } from './EmptyState.js';
import { Message } from './Message.js';

const EMPTY: UiMessage[] = [];

/** The open chat's messages (or the new-chat screen), following the stream while at the bottom. */
function Thread(props: {
  stick: React.MutableRefObject<boolean>;
  configured: boolean | null;
  onPick: (text: string) => void;
  onSettings: () => void;
}) {
  const stores = useStores();
  const c = useChatStore(
    useShallow((s) => ({
      activeId: s.activeId,
      thread: s.activeId ? s.threads[s.activeId] : undefined,
      pending: s.pending,
      streaming: s.activeId ? Boolean(s.streaming[s.activeId]) : false,
    })),
  );
  const scrollRef = useRef<HTMLDivElement>(null);
  const messages = c.thread?.messages ?? EMPTY;
  const { stick } = props;
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
  const openTrace = (id: string) => void stores.traces.getState().open(id);
  const retry = (replyId: string) => {
    stick.current = true;
    void stores.chat.getState().retry(replyId);
  };
  const actions = {
    busy: c.streaming || c.pending !== null,
    onRegenerate: retry,
    onEdit: (id: string, text: string) => {
      stick.current = true;
      void stores.chat.getState().editAndResend(id, text);
    },
    onSwitch: (id: string) => void stores.chat.getState().switchBranch(id),
  };

  let body: React.ReactNode;
  if (c.activeId === null && messages.length === 0 && !c.pending) {
    body = <EmptyState configured={props.configured} onSettings={props.onSettings} onPick={props.onPick} />;
  } else if (c.thread?.status === 'error' && c.thread.error) {
    body = (
      <div className="callout callout--error thread-error" role="alert">
        <Icon name="alert" />
        <p>{c.thread.error.message}</p>
      </div>
    );
  } else if (c.thread?.status === 'loading' && messages.length === 0) {
    body = (
      <div className="thread">
        <div className="skeleton skeleton--block" />
      </div>
    );
  } else {
    body = (
      <div className="thread" aria-label="Messages" role="log">
        {messages.map((msg) => (
          <Message
            key={msg.id}
            m={msg}
            onTrace={openTrace}
            onSettings={props.onSettings}
            onRetry={retry}
            actions={actions}
          />
        ))}
        {c.pending && c.pending.session_id === c.activeId && c.pending.message && (
          <div className="msg msg--user is-pending">
            <div className="msg__bubble">{c.pending.message}</div>
          </div>
        )}
      </div>
    );
  }
  return (
    <div
      className="chat__scroll"
      ref={scrollRef}
      onScroll={(e) => {
        const el = e.currentTarget;
        stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
      }}
    >
      {body}
    </div>
  );
}

/** The chat: header, messages streaming in with their skill activity, the composer, the trace drawer. */
export function ChatView() {
  const stores = useStores();
  const activeId = useChatStore((s) => s.activeId);
  const streaming = useChatStore((s) => (s.activeId ? Boolean(s.streaming[s.activeId]) : false));
  const providers = useProvidersStore(
    useShallow((s) => ({ status: s.status, value: s.value, load: s.load })),
  );
  const focusTick = useAppStore((s) => s.focusComposerTick);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const stick = useRef(true);

  useEffect(() => {
    if (providers.status === 'idle') void providers.load();
  }, [providers.status, providers.load]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: refocus when asked (new chat, switching sessions)
  useEffect(() => {
    inputRef.current?.focus();
  }, [focusTick, activeId]);
  // The canvas shows something of the chat it was opened from: another chat closes it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the open chat changes
  useEffect(() => {
    stores.canvas.getState().close();
  }, [activeId]);
  // Esc stops a reply from anywhere in the chat (the drawer and dialogs keep their own Esc).
  useEffect(() => {
    if (!streaming) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !e.defaultPrevented && !document.querySelector('.drawer, .scrim')) {
        e.preventDefault();
        void stores.chat.getState().cancel();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [streaming, stores]);

  const openSettings = () => stores.app.getState().navigate('settings');
  const openSkill = (match: SkillMatchView) => {
    stores.app.getState().navigate('skills');
    void stores.skills.getState().openSkill(skillKey(match));
  };
  const configured = providers.value ? providers.value.chat !== null : null;

  return (
    <div className="chat-split">
      <div className="chat">
        <ChatHeader onSettings={openSettings} />
        <Thread
          stick={stick}
          configured={configured}
          onSettings={openSettings}
          onPick={(text) => {
            void stores.match.getState().setMessage(text);
            inputRef.current?.focus();
          }}
        />
        <ChatApprovals sessionId={activeId} composerRef={inputRef} />
        <ChatFiles />
        <Composer
          inputRef={inputRef}
          configured={configured}
          onOpenSkill={openSkill}
          onSend={() => {
            stick.current = true;
          }}
        />
        <TraceDrawer />
      </div>
      <CanvasPanel streaming={streaming} />
    </div>
  );
}
