import { Fragment, useEffect, useState } from 'react';
import type { MessageHitView } from '../../../electron/contract/chat.js';
import { toErrorData } from '../../bridge/client.js';
import { useStores } from '../../stores.js';
import { Icon } from '../../ui/Icon.js';

/** A snippet with its matched words (between `[` and `]`) marked. */
export function Snippet({ text }: { text: string }) {
  const parts = text.split(/(\[[^\]]*\])/g);
  return (
    <>
      {parts.map((p, i) =>
        p.startsWith('[') && p.endsWith(']') ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed string
          <mark key={i}>{p.slice(1, -1)}</mark>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed string
          <Fragment key={i}>{p}</Fragment>
        ),
      )}
    </>
  );
}

/**
 * Search every chat's messages; the hits replace the chat list while there is a query. Opening a
 * hit shows the branch that holds it.
 */
export function ChatSearch(props: { query: string; onQuery: (q: string) => void }) {
  const stores = useStores();
  const [hits, setHits] = useState<MessageHitView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const q = props.query.trim();
  useEffect(() => {
    if (!q) {
      setHits(null);
      setError(null);
      return;
    }
    let live = true;
    const t = setTimeout(() => {
      stores.client.invoke('chat/search', { query: q, limit: 30 }).then(
        (r) => {
          if (!live) return;
          setHits(r.hits);
          setError(null);
        },
        (e: unknown) => {
          if (live) setError(toErrorData(e).message);
        },
      );
    }, 150);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [q, stores]);

  const open = async (hit: MessageHitView) => {
    stores.app.getState().navigate('chat');
    const chat = stores.chat.getState();
    await chat.openSession(hit.session_id);
    const shown = stores.chat.getState().threads[hit.session_id]?.messages ?? [];
    if (!shown.some((m) => m.id === hit.message_id))
      await stores.chat.getState().switchBranch(hit.message_id);
  };

  if (!q) return null;
  if (error)
    return (
      <p className="sessions__empty" role="alert">
        Search failed: {error}
      </p>
    );
  if (hits === null) return <p className="sessions__empty">Searching…</p>;
  if (hits.length === 0)
    return (
      <p className="sessions__empty">
        No message has all of “{q}”. Try fewer words, or end one with * to match its start.
      </p>
    );
  return (
    <ul className="search-hits" aria-label="Search results">
      {hits.map((h) => (
        <li key={h.message_id}>
          <button type="button" className="search-hit" onClick={() => void open(h)}>
            <span className="search-hit__title">
              <Icon name="chat" /> <span>{h.session_title || 'Untitled chat'}</span>
            </span>
            <span className="search-hit__snippet">
              <span className="muted">{h.role === 'user' ? 'You: ' : ''}</span>
              <Snippet text={h.snippet} />
            </span>
          </button>
        </li>
      ))}
    </ul>
  );
}
