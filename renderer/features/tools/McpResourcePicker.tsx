import { useEffect, useMemo, useRef, useState } from 'react';
import type { AttachmentInput } from '../../../electron/contract/chat.js';
import { MAX_ATTACHMENTS } from '../../../electron/contract/chat.js';
import type { ListResourcesRes, McpResourceView } from '../../../electron/contract/tools.js';
import { toErrorData } from '../../bridge/client.js';
import { useStores } from '../../stores.js';
import { Icon } from '../../ui/Icon.js';
import './tools.css';

const size = (n: number) =>
  n >= 1024 * 1024
    ? `${(n / 1024 / 1024).toFixed(1)} MB`
    : n >= 1024
      ? `${Math.ceil(n / 1024)} KB`
      : `${n} B`;

/** A search field appears from this many resources. */
const SEARCH_FROM = 6;

/**
 * "Attach from MCP server" beside the composer's attach button. It lists the enabled
 * servers' resources (name, URI, type, size when known; a search field when there are many) and
 * reads the one picked through `tools/read-resource` into an attachment chip. Keyboard: the
 * button opens it with the search (or list) focused, ↑/↓ move, Enter attaches, Esc closes.
 */
export function McpResourcePicker(props: { attached: number; onAttach: (a: AttachmentInput) => void }) {
  const { client } = useStores();
  const [open, setOpen] = useState(false);
  const [list, setList] = useState<ListResourcesRes | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [query, setQuery] = useState('');
  const [cursor, setCursor] = useState(0);
  const [reading, setReading] = useState<string | null>(null);
  const [readError, setReadError] = useState<string | null>(null);
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    let live = true;
    setList(null);
    setLoadError(null);
    setReadError(null);
    setQuery('');
    setCursor(0);
    client
      .call('tools/list-resources', {})
      .then((r) => {
        if (!live) return;
        if (r.ok) setList(r.value);
        else setLoadError(r.error.message);
      })
      .catch((e) => live && setLoadError(toErrorData(e).message));
    return () => {
      live = false;
    };
  }, [open, client]);

  const shown = useMemo(() => {
    const q = query.trim().toLowerCase();
    const all = list?.resources ?? [];
    return q
      ? all.filter((r) => `${r.name} ${r.title ?? ''} ${r.uri} ${r.server}`.toLowerCase().includes(q))
      : all;
  }, [list, query]);

  // Focus the search (or the list) once the resources are in.
  useEffect(() => {
    if (!open || !list) return;
    const target = panel.current?.querySelector<HTMLElement>('.mcpres__search, .mcpres__list');
    target?.focus();
  }, [open, list]);

  const close = () => {
    setOpen(false);
    button.current?.focus();
  };

  const pick = async (r: McpResourceView) => {
    if (props.attached >= MAX_ATTACHMENTS) {
      setReadError(`A message can carry ${MAX_ATTACHMENTS} files at most. Remove one first.`);
      return;
    }
    setReading(r.uri);
    setReadError(null);
    try {
      const a = await client.call('tools/read-resource', { server: r.server, uri: r.uri, name: r.name });
      if (!a.ok) {
        setReadError(a.error.message);
        return;
      }
      props.onAttach(
        'data' in a.value
          ? { name: a.value.name, media_type: a.value.media_type, data: a.value.data }
          : { name: a.value.name, media_type: a.value.media_type, text: a.value.text },
      );
      close();
    } catch (e) {
      setReadError(toErrorData(e).message);
    } finally {
      setReading(null);
    }
  };

  const onKey = (e: React.KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      close();
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const n = shown.length;
      if (n) setCursor((c) => (e.key === 'ArrowDown' ? (c + 1) % n : (c - 1 + n) % n));
    } else if (e.key === 'Enter' && shown[cursor] && !reading) {
      e.preventDefault();
      void pick(shown[cursor]!);
    }
  };

  useEffect(() => {
    panel.current?.querySelector('.mcpres__item.is-on')?.scrollIntoView({ block: 'nearest' });
  });

  const many = (list?.resources.length ?? 0) >= SEARCH_FROM;
  return (
    <div className="mcpres">
      <button
        ref={button}
        type="button"
        className="composer__attach"
        aria-label="Attach from MCP server"
        title="Attach a resource from an MCP server"
        aria-haspopup="dialog"
        aria-expanded={open}
        onClick={() => (open ? close() : setOpen(true))}
      >
        <Icon name="plug" />
      </button>
      {open && (
        <div
          ref={panel}
          className="mcpres__panel"
          role="dialog"
          aria-label="Attach from an MCP server"
          onKeyDown={onKey}
          onBlur={(e) => {
            if (
              !e.currentTarget.contains(e.relatedTarget as Node | null) &&
              e.relatedTarget !== button.current
            )
              setOpen(false);
          }}
        >
          <div className="mcpres__head">Attach from MCP server</div>
          {loadError ? (
            <p className="mcpres__error" role="alert">
              {loadError}
            </p>
          ) : !list ? (
            <p className="mcpres__empty" aria-live="polite">
              Connecting to your MCP servers…
            </p>
          ) : list.resources.length === 0 ? (
            <p className="mcpres__empty" tabIndex={-1}>
              No enabled MCP server offers resources. Add or enable one in Settings → Tools; its files, notes
              and documents then show up here.
            </p>
          ) : (
            <>
              {many && (
                <input
                  className="mcpres__search"
                  type="search"
                  aria-label="Search resources"
                  placeholder={`Search ${list.resources.length} resources…`}
                  value={query}
                  onChange={(e) => {
                    setQuery(e.target.value);
                    setCursor(0);
                  }}
                />
              )}
              <div
                className="mcpres__list"
                role="listbox"
                aria-label="Resources"
                tabIndex={many ? -1 : 0}
                aria-activedescendant={shown[cursor] ? `mcpres-${cursor}` : undefined}
              >
                {shown.length === 0 && <p className="mcpres__empty">Nothing matches “{query}”.</p>}
                {shown.map((r, i) => (
                  // biome-ignore lint/a11y/useKeyWithClickEvents: the list's keys (↑/↓, Enter) pick
                  <div
                    key={`${r.server}\u0000${r.uri}`}
                    id={`mcpres-${i}`}
                    role="option"
                    tabIndex={-1}
                    aria-selected={i === cursor}
                    className={`mcpres__item${i === cursor ? ' is-on' : ''}`}
                    onMouseEnter={() => setCursor(i)}
                    onClick={() => void pick(r)}
                  >
                    <span className="mcpres__name">
                      {r.title ?? r.name}
                      {reading === r.uri && <span className="mcpres__reading"> · reading…</span>}
                    </span>
                    <span className="mcpres__uri">{r.uri}</span>
                    <span className="mcpres__meta">
                      <span>{r.server}</span>
                      {r.mime_type && <span>{r.mime_type}</span>}
                      {r.size !== null && <span>{size(r.size)}</span>}
                    </span>
                  </div>
                ))}
              </div>
            </>
          )}
          {readError && (
            <p className="mcpres__error" role="alert">
              {readError}
            </p>
          )}
          {list && list.failed.length > 0 && (
            <p className="mcpres__failed">
              Not listed: {list.failed.map((f) => `${f.server} (${f.error.slice(0, 120)})`).join('; ')}. Check
              them in Settings → Tools.
            </p>
          )}
          <div className="mcpres__foot">
            <kbd>↑</kbd>
            <kbd>↓</kbd> choose · <kbd>↵</kbd> attach · <kbd>Esc</kbd> close
          </div>
        </div>
      )}
    </div>
  );
}
