import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import { useStores } from '../../stores.js';
import { Icon } from '../../ui/Icon.js';
import type { WorkspaceStore } from './workspace-store.js';
import './workspace.css';

/** Select from the workspace store. */
export function useWorkspaceStore<T>(selector: (s: WorkspaceStore) => T): T {
  return useStore(useStores().workspace, selector);
}

function ago(iso: string | null): string {
  if (!iso) return 'not yet';
  const d = new Date(iso);
  return d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

/** The sidebar's workspace button: the open folder's name and its pages, opening the switcher. */
export function WorkspaceButton({ modKey }: { modKey: string }) {
  const s = useWorkspaceStore(
    useShallow((x) => ({ current: x.current, openPicker: x.openPicker, reindex: x.reindex })),
  );
  const c = s.current;
  const pages = c?.pages;
  return (
    <div className="wsbox">
      <button
        type="button"
        className="wsbtn"
        onClick={s.openPicker}
        title={`${c?.path ?? 'No workspace: skills and chats are kept in your account only'} — switch (${modKey} O)`}
        aria-label={`Workspace: ${c?.name ?? 'account only'}. Switch workspace`}
      >
        <Icon name="folder" />
        <span className="wsbtn__text">
          <span className="wsbtn__name">{c ? (c.name ?? 'Account only') : '…'}</span>
          <span className="wsbtn__sub">{c?.path ? c.path : 'No folder open'}</span>
        </span>
        <Icon name="chevronDown" />
      </button>
      {pages && (
        <p className="wspages" aria-live="polite">
          {pages.indexing ? (
            <span className="wspages__text">Indexing pages…</span>
          ) : pages.error ? (
            <span className="wspages__error">{pages.error}</span>
          ) : (
            <span
              className="wspages__text"
              title={`${pages.count} Markdown page${pages.count === 1 ? '' : 's'} indexed at ${ago(pages.indexed_at)}${pages.watching ? '; re-indexed when files change' : '; changes are not watched here'}`}
            >
              {pages.count} page{pages.count === 1 ? '' : 's'} indexed · {ago(pages.indexed_at)}
              {!pages.watching && ' · not watching'}
            </span>
          )}
          <button
            type="button"
            className="wspages__again"
            onClick={() => void s.reindex()}
            title="Index the pages now"
          >
            <Icon name="refresh" />
            <span className="visually-hidden">Reindex pages</span>
          </button>
        </p>
      )}
    </div>
  );
}

/** The switcher: a path field with folder completion, Browse (desktop), recent workspaces, account only. */
export function WorkspaceDialog() {
  const s = useWorkspaceStore(
    useShallow((x) => ({
      current: x.current,
      recent: x.recent,
      picker: x.picker,
      closePicker: x.closePicker,
      type: x.type,
      open: x.open,
      browse: x.browse,
      forget: x.forget,
    })),
  );
  const [cursor, setCursor] = useState(-1);
  const inputRef = useRef<HTMLInputElement>(null);
  const titleId = useId();
  const listId = useId();
  const p = s.picker;
  useEffect(() => {
    if (p.open) inputRef.current?.focus();
  }, [p.open]);
  if (!p.open) return null;
  const busy = p.opening !== null;

  const accept = (path: string) => {
    setCursor(-1);
    void s.type(`${path}/`);
    inputRef.current?.focus();
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    const n = p.completions.length;
    if (e.key === 'ArrowDown' && n) {
      e.preventDefault();
      setCursor((c) => (c + 1) % n);
    } else if (e.key === 'ArrowUp' && n) {
      e.preventDefault();
      setCursor((c) => (c <= 0 ? n - 1 : c - 1));
    } else if (e.key === 'Tab' && !e.shiftKey && n && (cursor >= 0 || n === 1)) {
      e.preventDefault();
      accept(p.completions[Math.max(0, cursor)]!.path);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      if (cursor >= 0 && p.completions[cursor]) accept(p.completions[cursor].path);
      else if (p.path.trim()) void s.open(p.path.trim().replace(/\/+$/, '') || '/');
    }
  };

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: clicking the backdrop closes; keyboard users have Esc
    <div
      className="scrim"
      role="presentation"
      onMouseDown={(e) => e.target === e.currentTarget && s.closePicker()}
    >
      <div
        className="dialog wsdialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.stopPropagation();
            s.closePicker();
          }
        }}
      >
        <h2 id={titleId} className="dialog__title">
          Open a workspace
        </h2>
        <p className="wsdialog__lead">
          A workspace is a folder: its skills, chats and traces live in its <code>agents.db</code>, and the
          Markdown pages in it are indexed for skills to read. Your account’s skills stay available
          everywhere.
        </p>
        <div className="wsfield">
          <label className="wsfield__label" htmlFor={`${listId}-input`}>
            Folder path
          </label>
          <div className="wsfield__row">
            <input
              ref={inputRef}
              id={`${listId}-input`}
              className="wsfield__input mono"
              role="combobox"
              aria-expanded={p.completions.length > 0}
              aria-controls={listId}
              aria-autocomplete="list"
              aria-activedescendant={cursor >= 0 ? `${listId}-${cursor}` : undefined}
              value={p.path}
              placeholder="/home/you/projects/notes"
              spellCheck={false}
              autoComplete="off"
              onChange={(e) => {
                setCursor(-1);
                void s.type(e.target.value);
              }}
              onKeyDown={onKey}
              disabled={busy}
            />
            {s.current?.can_pick_folder && (
              <button type="button" className="btn" onClick={() => void s.browse()} disabled={busy}>
                <Icon name="folder" /> Browse…
              </button>
            )}
            <button
              type="button"
              className="btn btn--primary"
              onClick={() => void s.open(p.path.trim().replace(/\/+$/, '') || '/')}
              disabled={busy || !p.path.trim()}
            >
              {busy && p.opening !== '' ? 'Opening…' : 'Open'}
            </button>
          </div>
          <p className="wsfield__hint">
            Type a path; <kbd>↑</kbd> <kbd>↓</kbd> pick a folder, <kbd>Tab</kbd> completes it,{' '}
            <kbd>Enter</kbd> opens.
          </p>
          {p.completions.length > 0 && (
            <div id={listId} className="wscomplete" role="listbox" aria-label="Matching folders">
              {p.completions.map((c, i) => (
                // biome-ignore lint/a11y/useKeyWithClickEvents: the path field handles the keys
                <div
                  key={c.path}
                  id={`${listId}-${i}`}
                  role="option"
                  tabIndex={-1}
                  aria-selected={i === cursor}
                  className={`wscomplete__item${i === cursor ? ' is-on' : ''}`}
                  onMouseDown={(e) => e.preventDefault()}
                  onClick={() => accept(c.path)}
                >
                  <Icon name="folder" />
                  <span className="wscomplete__name">{c.name}</span>
                </div>
              ))}
            </div>
          )}
        </div>
        {p.error && (
          <div className="callout callout--error" role="alert">
            <Icon name="alert" />
            <p>{p.error.message}</p>
          </div>
        )}
        <section className="wsrecent" aria-label="Recent workspaces">
          <h3 className="section-title">Recent</h3>
          {s.recent.length === 0 ? (
            <p className="muted wsrecent__empty">Folders you open are remembered here.</p>
          ) : (
            <ul className="wsrecent__list">
              {s.recent.map((r) => {
                const isOpen = r.path === s.current?.path;
                return (
                  <li key={r.path} className="wsrecent__row">
                    <button
                      type="button"
                      className={`wsrecent__open${isOpen ? ' is-on' : ''}`}
                      disabled={busy || !r.exists || isOpen}
                      onClick={() => void s.open(r.path)}
                      title={r.exists ? r.path : `${r.path} is gone (moved or deleted)`}
                    >
                      <Icon name="folder" />
                      <span className="wsrecent__text">
                        <span className="wsrecent__name">
                          {r.name}
                          {isOpen && <span className="badge badge--exact">Open</span>}
                          {!r.exists && <span className="badge">Missing</span>}
                        </span>
                        <span className="wsrecent__path mono">{r.path}</span>
                      </span>
                    </button>
                    <button
                      type="button"
                      className="btn btn--icon wsrecent__forget"
                      onClick={() => void s.forget(r.path)}
                      aria-label={`Forget ${r.name}`}
                      title="Forget (the folder is not touched)"
                    >
                      <Icon name="close" />
                    </button>
                  </li>
                );
              })}
            </ul>
          )}
        </section>
        <div className="dialog__actions wsdialog__actions">
          <button
            type="button"
            className="btn"
            onClick={() => void s.open(null)}
            disabled={busy || s.current?.path === null}
            title="Close the workspace: skills and chats come from your account only"
          >
            {busy && p.opening === '' ? 'Closing…' : 'Use account only'}
          </button>
          <button type="button" className="btn" onClick={s.closePicker} disabled={busy}>
            Cancel
          </button>
        </div>
      </div>
    </div>
  );
}
