import { useEffect, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ChatUsageView } from '../../../electron/contract/chat.js';
import { useChatStore, useProvidersStore, useStores } from '../../stores.js';
import { downloadText } from '../../ui/download.js';
import { Icon } from '../../ui/Icon.js';
import { ModelPicker } from './ModelPicker.js';
import './chat-title.css';

/** A chat's tokens and cost, all replies and branches counted; null before any reply used a model. */
export function chatUsageLine(u: ChatUsageView | null): string | null {
  if (!u || u.input_tokens + u.output_tokens === 0) return null;
  const fmt = (n: number) => (n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n));
  const cost =
    u.estimated_cost == null
      ? ''
      : ` · ~$${u.estimated_cost < 0.01 ? u.estimated_cost.toFixed(4) : u.estimated_cost.toFixed(2)}`;
  return `${fmt(u.input_tokens)} in / ${fmt(u.output_tokens)} out${cost}`;
}

/** Save the open chat as Markdown (the branch shown) or JSON (every branch). */
function ExportMenu() {
  const stores = useStores();
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => {
      if (!ref.current?.contains(e.target as Node)) setOpen(false);
    };
    window.addEventListener('mousedown', close);
    return () => window.removeEventListener('mousedown', close);
  }, [open]);
  const save = async (format: 'md' | 'json') => {
    setOpen(false);
    const file = await stores.chat.getState().exportSession(format);
    if (file) downloadText(file.filename, file.content, file.media_type);
  };
  return (
    <div className="menu" ref={ref}>
      <button
        type="button"
        className="btn btn--small"
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') setOpen(false);
        }}
      >
        <Icon name="download" /> Export
      </button>
      {open && (
        <div className="menu__list" role="menu">
          <button type="button" role="menuitem" className="menu__item" onClick={() => void save('md')}>
            Markdown <span className="muted">the conversation shown</span>
          </button>
          <button type="button" role="menuitem" className="menu__item" onClick={() => void save('json')}>
            JSON <span className="muted">every branch, with files and usage</span>
          </button>
        </div>
      )}
    </div>
  );
}

/**
 * The open chat's title, editable in place: pressing it (or Enter on it) opens a text box; Enter
 * or leaving it saves, Esc keeps the old title. A title set here is never replaced by the
 * automatic one.
 */
function EditableTitle({ id, title }: { id: string | null; title: string }) {
  const stores = useStores();
  const [draft, setDraft] = useState<string | null>(null);
  if (id === null)
    return (
      <h1 className="pane-title chat__title" title={title}>
        {title}
      </h1>
    );
  const save = () => {
    const t = draft?.trim();
    setDraft(null);
    if (t && t !== title) void stores.chat.getState().renameSession(id, t);
  };
  return draft === null ? (
    <h1 className="pane-title chat__title">
      <button
        type="button"
        className="chat__title-button"
        title={`${title} — press to rename`}
        onClick={() => setDraft(title)}
      >
        {title}
      </button>
    </h1>
  ) : (
    <input
      className="input chat__title-input"
      aria-label="Chat title"
      value={draft}
      maxLength={120}
      // biome-ignore lint/a11y/noAutofocus: opened by the user to type the new title
      autoFocus
      onFocus={(e) => e.currentTarget.select()}
      onChange={(e) => setDraft(e.target.value)}
      onBlur={save}
      onKeyDown={(e) => {
        if (e.key === 'Enter') save();
        if (e.key === 'Escape') {
          e.stopPropagation();
          setDraft(null);
        }
      }}
    />
  );
}

/** The open chat's title and the model replies come from (a way to Settings either way). */
export function ChatHeader({ onSettings }: { onSettings: () => void }) {
  const title = useChatStore((s) =>
    s.activeId === null ? 'New chat' : s.sessions.items.find((i) => i.id === s.activeId)?.title || 'Chat',
  );
  const v = useProvidersStore(useShallow((s) => ({ value: s.value })));
  const activeId = useChatStore((s) => s.activeId);
  const usage = useChatStore((s) =>
    chatUsageLine(s.activeId ? (s.threads[s.activeId]?.usage ?? null) : null),
  );
  const own = useChatStore((s) =>
    s.activeId === null ? s.newChatModel : (s.sessions.items.find((i) => i.id === s.activeId)?.model ?? null),
  );
  const chat = v.value?.chat ?? null;
  const pick = own ?? (chat ? { provider: chat.provider, model: chat.model } : null);
  // A configured provider by id; an older chat's pin may name a provider kind instead.
  const configured = pick ? v.value?.configured.find((p) => p.id === pick.provider) : undefined;
  const kind = pick ? v.value?.providers.find((p) => p.id === pick.provider) : undefined;
  const modelLabel = pick
    ? `${configured?.label ?? kind?.label ?? `${pick.provider} (removed)`} · ${pick.model ?? configured?.effective_model ?? kind?.default_model ?? 'no model yet'}`
    : null;
  return (
    <header className="chat__head">
      <EditableTitle key={activeId ?? 'new'} id={activeId} title={title} />
      {usage && (
        <span className="chat__usage" title="Tokens and estimated cost of every reply in this chat">
          {usage}
        </span>
      )}
      {activeId && <ExportMenu />}
      {v.value &&
        (modelLabel ? (
          <ModelPicker label={modelLabel} own={own} providers={v.value.configured} onSettings={onSettings} />
        ) : (
          <button type="button" className="pill pill--warn pill--button" onClick={onSettings}>
            <Icon name="alert" /> No model — set one up
          </button>
        ))}
    </header>
  );
}
