import { useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useAppStore, useComposerStore } from '../../stores.js';
import { ScopeBadge } from '../../ui/badges.js';
import { Icon } from '../../ui/Icon.js';
import { CatalogFilterBar, SkillChips } from '../skills/catalog-filter.js';
import { docKey, isDirty, visibleRows } from './composer-state.js';

/** Whether this page is the desktop's Composer window (opened at `#composer`). */
export function isComposerWindow(): boolean {
  return typeof location !== 'undefined' && location.hash === '#composer';
}

/** The merged catalog: search, filters by scope, source and artifact kind, unsaved drafts first. */
export function CatalogPane(props: { onImport: () => void }) {
  const s = useComposerStore(
    useShallow((st) => ({
      catalog: st.catalog,
      filters: st.filters,
      open: st.open,
      loading: st.loading,
      docs: st.docs,
      setFilters: st.setFilters,
      openSkill: st.openSkill,
      askNew: st.askNew,
      loadCatalog: st.loadCatalog,
      desktop: st.desktop,
      popOut: st.popOut,
    })),
  );
  const startNewWithAi = useAppStore((st) => st.startNewWithAi);
  const rows = useMemo(() => visibleRows(s), [s]);
  const newDrafts = Object.values(s.docs).filter((d) => d.origin === null);
  const current = s.loading?.key ?? s.open;

  return (
    <aside className="sc-catalog" aria-label="Skill catalog">
      <div className="sc-catalog__head">
        <div>
          <h1 className="pane-title">Composer</h1>
          <p className="pane-sub">
            {s.catalog.status === 'ready' ? `${s.catalog.items.length} skills` : 'Loading the catalog…'}
          </p>
        </div>
        <div className="sc-row">
          {s.desktop && !isComposerWindow() && (
            <button
              type="button"
              className="btn btn--icon"
              title="Open the Composer in its own window (Ctrl+Shift+3)"
              onClick={() => void s.popOut()}
            >
              <Icon name="arrowRight" label="Open in a window" />
            </button>
          )}
          <button
            type="button"
            className="btn btn--icon"
            title="Import packages (.json, .zip) — or drop them, or a skill folder, anywhere"
            onClick={props.onImport}
          >
            <Icon name="upload" label="Import packages" />
          </button>
          <button
            type="button"
            className="btn btn--icon"
            title="New skill with AI: describe it, the Composer agent drafts it"
            onClick={startNewWithAi}
          >
            <Icon name="sparkle" label="New skill with AI" />
          </button>
          <button type="button" className="btn btn--primary btn--small" onClick={s.askNew}>
            <Icon name="plus" />
            New
          </button>
        </div>
      </div>
      <label className="search sc-search">
        <Icon name="search" />
        <input
          type="search"
          placeholder="Search skills"
          aria-label="Search the catalog"
          value={s.filters.query}
          onChange={(e) => s.setFilters({ query: e.target.value })}
        />
      </label>
      <CatalogFilterBar value={s.filters} onChange={s.setFilters} />
      <div className="sc-catalog__list">
        {newDrafts.length > 0 && (
          <>
            <p className="sc-group">Unsaved new skills</p>
            <ul className="sc-list" aria-label="Unsaved new skills">
              {newDrafts.map((d) => (
                <li key={d.key}>
                  <button
                    type="button"
                    className={`sc-item${current === d.key ? ' is-open' : ''}`}
                    aria-current={current === d.key ? 'true' : undefined}
                    onClick={() => void s.openSkill(d.key)}
                  >
                    <span className="sc-item__top">
                      <span className="sc-item__name">{d.draft.name || 'Untitled skill'}</span>
                      <span className="sc-dot" title="Not saved yet" />
                    </span>
                    <span className="sc-item__meta">
                      <span className="badge badge--system">Draft</span>
                      <ScopeBadge scope={d.scope} />
                    </span>
                  </button>
                </li>
              ))}
            </ul>
            <p className="sc-group">Catalog</p>
          </>
        )}
        {s.catalog.status === 'error' && (
          <div className="callout callout--error sc-m">
            <Icon name="alert" />
            <div>
              <p>{s.catalog.error?.message}</p>
              <button type="button" className="btn btn--small" onClick={() => void s.loadCatalog()}>
                Try again
              </button>
            </div>
          </div>
        )}
        {s.catalog.status === 'ready' && rows.length === 0 && (
          <p className="sc-empty-line">No skill matches these filters.</p>
        )}
        <ul className="sc-list" aria-label="Skills">
          {rows.map((r) => {
            const key = docKey(r);
            const edited = isDirty(s.docs[key]);
            return (
              <li key={key}>
                <button
                  type="button"
                  className={`sc-item${current === key ? ' is-open' : ''}${r.overridden ? ' is-overridden' : ''}`}
                  aria-current={current === key ? 'true' : undefined}
                  onClick={() => void s.openSkill(key)}
                >
                  <span className="sc-item__top">
                    <span className="sc-item__name">{r.name}</span>
                    {edited && <span className="sc-dot" title="Unsaved edits" />}
                    <span className="sc-item__version">{r.version}</span>
                  </span>
                  <span className="sc-item__meta">
                    <SkillChips item={r} />
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      </div>
    </aside>
  );
}
