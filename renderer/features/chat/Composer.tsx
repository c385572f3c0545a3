import { type RefObject, useEffect, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { AttachmentInput } from '../../../electron/contract/chat.js';
import type { SkillMatchView } from '../../../electron/contract/skills.js';
import type { McpPromptView } from '../../../electron/contract/tools.js';
import { toErrorData } from '../../bridge/client.js';
import { useChatStore, useMatchStore, useSkillsStore, useStores } from '../../stores.js';
import { Kbd } from '../../ui/badges.js';
import { Icon } from '../../ui/Icon.js';
import { McpResourcePicker } from '../tools/McpResourcePicker.js';
import { attachKind, readAttachments } from './attachments.js';
import {
  PendingAttachments,
  type PickedPrompt,
  type PickedSkill,
  PromptPanel,
  promptText,
  SkillPanel,
  type SlashItem,
  SlashMenu,
  skillVariables,
  slashItems as slashItemsOf,
} from './ComposerExtras.js';
import { MatchHint } from './MatchHint.js';

/** How long a draft is left alone before its turn is prepared (a pause in typing). */
const PREPARE_AFTER_MS = 250;

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

  // A draft left alone for a moment has its turn prepared (skills matched, memory recalled), so
  // sending it starts the reply at once. Best effort: a failure only means the send does it.
  useEffect(() => {
    const message = m.message;
    if (message.trim() === '' || c.streaming || c.pending) return;
    const timer = setTimeout(() => {
      stores.client
        .invoke('chat/prepare', { message, ...(c.activeId ? { session_id: c.activeId } : {}) })
        .catch(() => undefined);
    }, PREPARE_AFTER_MS);
    return () => clearTimeout(timer);
  }, [m.message, c.activeId, c.streaming, c.pending, stores.client]);

  // Files to send with the next message, and why some were refused.
  const [files, setFiles] = useState<AttachmentInput[]>([]);
  const [fileErrors, setFileErrors] = useState<string[]>([]);
  // What was left out of an attached file (a long PDF's later pages).
  const [fileNotes, setFileNotes] = useState<string[]>([]);
  // PDFs whose text the main process is reading.
  const [reading, setReading] = useState<string[]>([]);
  const [dragging, setDragging] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const attach = async (list: FileList | File[]) => {
    const picked = [...list];
    const pdfs = picked.filter((f) => attachKind(f) === 'pdf').map((f) => f.name);
    setReading(pdfs);
    try {
      const r = await readAttachments(
        picked,
        files,
        (name, data) => stores.client.invoke('attachments/read-pdf', { name, data }),
        (name, data) => stores.client.invoke('attachments/store-file', { name, data }),
      );
      setFiles(r.attachments);
      setFileErrors(r.errors);
      setFileNotes((n) => [
        ...n.filter((note) => !picked.some((f) => note.startsWith(`${f.name}: `))),
        ...r.notes,
      ]);
    } finally {
      setReading([]);
    }
    inputRef.current?.focus();
  };
  // A skill picked from the `/` menu, run before the reply.
  const [picked, setPicked] = useState<PickedSkill | null>(null);
  const skills = useSkillsStore(
    useShallow((s) => ({ status: s.list.status, items: s.list.items, load: s.load })),
  );
  const slash = /^\/(\S*)$/.exec(m.message);
  const [slashCursor, setSlashCursor] = useState(0);
  // The prompts of the connected MCP servers, listed each time the `/` menu opens.
  const [prompts, setPrompts] = useState<{ loaded: boolean; items: McpPromptView[] }>({
    loaded: false,
    items: [],
  });
  const slashOpen = slash !== null;
  const slashItems = slash ? slashItemsOf(skills.items, prompts.items, slash[1]!) : [];
  useEffect(() => {
    if (slash && skills.status === 'idle') void skills.load();
  }, [slash, skills.status, skills.load]);
  useEffect(() => {
    if (!slashOpen) {
      setPrompts((p) => (p.loaded ? { loaded: false, items: p.items } : p));
      return;
    }
    let live = true;
    stores.client.invoke('tools/list-prompts', {}).then(
      (r) => live && setPrompts({ loaded: true, items: r.prompts }),
      () => live && setPrompts({ loaded: true, items: [] }),
    );
    return () => {
      live = false;
    };
  }, [slashOpen, stores.client]);
  // An MCP prompt picked from the `/` menu, its arguments being filled.
  const [pickedPrompt, setPickedPrompt] = useState<PickedPrompt | null>(null);
  const applyPrompt = async (p: PickedPrompt) => {
    setPickedPrompt({ ...p, busy: true, error: null });
    try {
      const r = await stores.client.invoke('tools/get-prompt', {
        server: p.prompt.server,
        name: p.prompt.name,
        arguments: Object.fromEntries(Object.entries(p.values).filter(([, v]) => v !== '')),
      });
      setPickedPrompt(null);
      setMessage(promptText(r.messages));
    } catch (e) {
      setPickedPrompt({ ...p, busy: false, error: `Couldn’t get the prompt: ${toErrorData(e).message}` });
    }
    inputRef.current?.focus();
  };
  const choose = (item: SlashItem) => {
    if (item.kind === 'skill') return pick(item.skill.name);
    setMessage('');
    const start: PickedPrompt = { prompt: item.prompt, values: {}, busy: false, error: null };
    if (item.prompt.arguments.length === 0) void applyPrompt(start);
    else setPickedPrompt(start);
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new query starts at the top
  useEffect(() => setSlashCursor(0), [slash?.[1]]);
  const pick = (name: string) => {
    setMessage('');
    const start: PickedSkill = { name, variables: null, values: {}, error: null };
    setPicked(start);
    skillVariables(stores.client, name).then(
      (variables) => setPicked((p) => (p?.name === name ? { ...p, variables } : p)),
      (e: unknown) =>
        setPicked((p) =>
          p?.name === name
            ? { ...p, variables: [], error: `Couldn’t read its variables: ${toErrorData(e).message}` }
            : p,
        ),
    );
    inputRef.current?.focus();
  };

  const busy = c.pending !== null || c.streaming;
  const canSend =
    !busy &&
    reading.length === 0 &&
    (m.message.trim() !== '' || picked !== null || files.length > 0) &&
    !slash;
  const send = async () => {
    if (!canSend) return;
    const text =
      m.message.trim() ||
      (picked ? `Run ${picked.name}` : `Attached: ${files.map((f) => f.name).join(', ')}`);
    const extra = {
      attachments: files,
      ...(picked ? { skill: { name: picked.name, variables: picked.values } } : {}),
    };
    props.onSend();
    setCleared(null);
    setMessage('');
    const sentFiles = files;
    const sentSkill = picked;
    setFiles([]);
    setFileNotes([]);
    // Refusals were about files that did not go; once a message is sent they are old news.
    setFileErrors([]);
    setPicked(null);
    const ok = await stores.chat.getState().send(text, extra);
    if (!ok) {
      if (stores.match.getState().message === '') setMessage(m.message);
      setFiles(sentFiles);
      setPicked(sentSkill);
    }
    inputRef.current?.focus();
  };
  const cancel = () => void stores.chat.getState().cancel();

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: a drop target for files; the attach button is the keyboard way
    <div
      className={`composer-wrap${dragging ? ' is-dragging' : ''}`}
      onDragOver={(e) => {
        if (!e.dataTransfer.types.includes('Files')) return;
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDragging(false);
      }}
      onDrop={(e) => {
        if (e.dataTransfer.files.length === 0) return;
        e.preventDefault();
        setDragging(false);
        void attach(e.dataTransfer.files);
      }}
    >
      {dragging && <div className="drop-hint">Drop text files, PDFs or images to attach them</div>}
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
      {slash && <SlashMenu items={slashItems} cursor={slashCursor} onPick={choose} />}
      <div className={`composer${busy ? ' is-busy' : ''}`}>
        {pickedPrompt && (
          <PromptPanel
            picked={pickedPrompt}
            onChange={(values) => setPickedPrompt((p) => (p ? { ...p, values } : p))}
            onUse={() => void applyPrompt(pickedPrompt)}
            onRemove={() => setPickedPrompt(null)}
          />
        )}
        {picked && (
          <SkillPanel
            skill={picked}
            attachments={files}
            onChange={(values) => setPicked((p) => (p ? { ...p, values } : p))}
            onRemove={() => setPicked(null)}
          />
        )}
        <PendingAttachments
          files={files}
          errors={fileErrors}
          notes={fileNotes}
          reading={reading}
          onRemove={(name) => {
            setFiles((f) => f.filter((x) => x.name !== name));
            setFileNotes((n) => n.filter((x) => !x.startsWith(`${name}: `)));
          }}
          onDismissErrors={() => setFileErrors([])}
        />
        <div className="composer__row">
          <input
            ref={fileInput}
            type="file"
            multiple
            hidden
            aria-label="Attach files"
            onChange={(e) => {
              if (e.target.files?.length) void attach(e.target.files);
              e.target.value = '';
            }}
          />
          <button
            type="button"
            className="composer__attach"
            aria-label="Attach files"
            title="Attach text files, PDFs or images (or drop or paste them)"
            onClick={() => fileInput.current?.click()}
          >
            <Icon name="paperclip" />
          </button>
          <McpResourcePicker
            attached={files.length}
            onAttach={(a) => setFiles((f) => [...f.filter((x) => x.name !== a.name), a])}
          />
          <label htmlFor="composer-input" className="visually-hidden">
            Message
          </label>
          <textarea
            id="composer-input"
            ref={inputRef}
            rows={1}
            placeholder={
              picked
                ? 'Add a note for the reply (optional)…'
                : c.activeId === null
                  ? 'Ask anything, / for a skill, or drop a file…'
                  : 'Reply… (/ for a skill)'
            }
            value={m.message}
            disabled={c.pending !== null}
            aria-controls={slash ? 'slash-menu' : undefined}
            aria-activedescendant={slash && slashItems.length ? `slash-${slashCursor}` : undefined}
            onPaste={(e) => {
              if (e.clipboardData.files.length === 0) return;
              e.preventDefault();
              void attach(e.clipboardData.files);
            }}
            onChange={(e) => {
              if (cleared !== null) setCleared(null);
              setMessage(e.target.value);
            }}
            onKeyDown={(e) => {
              if (slash && slashItems.length > 0) {
                if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
                  e.preventDefault();
                  const d = e.key === 'ArrowDown' ? 1 : -1;
                  setSlashCursor((i) => (i + d + slashItems.length) % slashItems.length);
                  return;
                }
                if ((e.key === 'Enter' && !e.shiftKey) || e.key === 'Tab') {
                  e.preventDefault();
                  choose(slashItems[slashCursor]!);
                  return;
                }
              }
              if (e.key === 'Backspace' && m.message === '' && picked) {
                setPicked(null);
                return;
              }
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
              disabled={!canSend}
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
      </div>
      <p className="composer__hint">
        <span>
          <Kbd>Enter</Kbd> send · <Kbd>Shift Enter</Kbd> new line · <Kbd>/</Kbd> skill · <Kbd>Esc</Kbd>{' '}
          {c.streaming ? 'stop' : 'clear (undo)'}
        </span>
        {props.configured === false && (
          <span className="muted">No model yet: replies say which skills match.</span>
        )}
      </p>
    </div>
  );
}
