import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ChatSessionView } from '../../../electron/contract/chat.js';
import { useAppStore, useChatStore, useStores } from '../../stores.js';
import { ConfirmDialog } from '../../ui/ConfirmDialog.js';
import { Icon } from '../../ui/Icon.js';
import { ChatSearch } from './ChatSearch.js';

function SessionRow(props: {
  s: ChatSessionView;
  active: boolean;
  onOpen: () => void;
  onRename: (title: string) => void;
  onDelete: () => void;
}) {
  const { s } = props;
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState(s.title);
  const finish = (save: boolean) => {
    setEditing(false);
    if (save && title.trim() && title.trim() !== s.title) props.onRename(title.trim());
    else setTitle(s.title);
  };
  return (
    <li className={`session${props.active ? ' is-on' : ''}`}>
      {editing ? (
        <input
          className="session__edit"
          aria-label="Chat title"
          // biome-ignore lint/a11y/noAutofocus: renaming starts typing at once
          autoFocus
          value={title}
          maxLength={120}
          onChange={(e) => setTitle(e.target.value)}
          onBlur={() => finish(true)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') finish(true);
            else if (e.key === 'Escape') {
              e.stopPropagation();
              finish(false);
            }
          }}
        />
      ) : (
        <button
          type="button"
          className="session__open"
          aria-current={props.active ? 'page' : undefined}
          onClick={props.onOpen}
          onDoubleClick={() => setEditing(true)}
          onKeyDown={(e) => {
            if (e.key === 'F2') setEditing(true);
            else if (e.key === 'Delete') props.onDelete();
          }}
          title={s.title || 'Untitled chat'}
        >
          {s.running && <span className="session__live" title="Replying" />}
          <span className="session__title">{s.title || 'Untitled chat'}</span>
        </button>
      )}
      {!editing && (
        <span className="session__actions">
          <button
            type="button"
            className="btn btn--icon btn--small"
            aria-label={`Rename ${s.title || 'chat'}`}
            title="Rename (F2)"
            onClick={() => setEditing(true)}
          >
            <Icon name="pencil" />
          </button>
          <button
            type="button"
            className="btn btn--icon btn--small"
            aria-label={`Delete ${s.title || 'chat'}`}
            title="Delete (Del)"
            onClick={props.onDelete}
          >
            <Icon name="trash" />
          </button>
        </span>
      )}
    </li>
  );
}

/** The chat sessions in the sidebar: newest first, with new, rename and delete. */
export function SessionList({ modKey }: { modKey: string }) {
  const stores = useStores();
  const c = useChatStore(
    useShallow((s) => ({ sessions: s.sessions, activeId: s.activeId, loadSessions: s.loadSessions })),
  );
  const view = useAppStore((s) => s.view);
  const [confirm, setConfirm] = useState<ChatSessionView | null>(null);
  const [busy, setBusy] = useState(false);
  const [query, setQuery] = useState('');
  useEffect(() => {
    if (c.sessions.status === 'idle') void c.loadSessions();
  }, [c.sessions.status, c.loadSessions]);

  const open = (id: string) => {
    stores.app.getState().navigate('chat');
    void stores.chat.getState().openSession(id);
  };
  const newChat = () => {
    stores.chat.getState().newChat();
    stores.app.getState().focusComposer();
  };

  return (
    <section className="sessions" aria-label="Chats">
      <div className="sessions__head">
        <span>Chats</span>
        <button
          type="button"
          className="btn btn--icon btn--small"
          onClick={newChat}
          aria-label="New chat"
          title={`New chat (${modKey} N)`}
        >
          <Icon name="plus" />
        </button>
      </div>
      {(c.sessions.items.length > 0 || query) && (
        <div className="sessions__search">
          <Icon name="search" />
          <input
            type="search"
            aria-label="Search chats"
            placeholder="Search chats"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape' && query) {
                e.stopPropagation();
                setQuery('');
              }
            }}
          />
        </div>
      )}
      {query.trim() ? (
        <ChatSearch query={query} onQuery={setQuery} />
      ) : c.sessions.status === 'error' ? (
        <p className="sessions__empty">
          Couldn’t load chats.{' '}
          <button type="button" className="linkish" onClick={() => void c.loadSessions()}>
            Retry
          </button>
        </p>
      ) : c.sessions.items.length === 0 && c.sessions.status === 'ready' && c.sessions.accountChats ? (
        <div className="sessions__empty" data-testid="account-chats-hint">
          <p>
            No chats in this workspace yet. Your {c.sessions.accountChats}{' '}
            {c.sessions.accountChats === 1 ? 'chat' : 'chats'} from outside workspaces{' '}
            {c.sessions.accountChats === 1 ? 'is' : 'are'} kept in your account.
          </p>
          <button
            type="button"
            className="linkish"
            onClick={() => void stores.workspace.getState().open(null)}
          >
            Show account chats (close the workspace)
          </button>
        </div>
      ) : c.sessions.items.length === 0 ? (
        <p className="sessions__empty">
          {c.sessions.status === 'ready'
            ? 'No chats yet. Send a message and the chat is kept here to come back to.'
            : ''}
        </p>
      ) : (
        <ul className="sessions__list">
          {c.sessions.items.map((s) => (
            <SessionRow
              key={s.id}
              s={s}
              active={view === 'chat' && s.id === c.activeId}
              onOpen={() => open(s.id)}
              onRename={(title) => void stores.chat.getState().renameSession(s.id, title)}
              onDelete={() => setConfirm(s)}
            />
          ))}
        </ul>
      )}
      {confirm && (
        <ConfirmDialog
          title="Delete this chat?"
          confirmLabel="Delete chat"
          danger
          busy={busy}
          onCancel={() => setConfirm(null)}
          onConfirm={async () => {
            // A failure is shown above the composer by the store; the dialog closes either way.
            setBusy(true);
            await stores.chat.getState().deleteSession(confirm.id);
            setBusy(false);
            setConfirm(null);
          }}
        >
          <p>
            “{confirm.title || 'Untitled chat'}” and its messages will be removed. Skill traces it produced
            stay in the store.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
