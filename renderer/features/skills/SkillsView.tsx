import { useEffect, useMemo, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ArtifactKindName } from '../../../electron/contract/skills.js';
import { useAppStore, useSkillsStore } from '../../stores.js';
import { Kbd, KIND_LABELS } from '../../ui/badges.js';
import { ConfirmDialog } from '../../ui/ConfirmDialog.js';
import { Icon } from '../../ui/Icon.js';
import { ImportResults } from './ImportResults.js';
import { SkillDetailPane } from './SkillDetailPane.js';
import { rowId, SkillList } from './SkillList.js';
import { type ImportFile, parseSkillKey, type ScopeFilter, visibleSkills } from './skills-store.js';

const SCOPES: Array<{ value: ScopeFilter; label: string }> = [
  { value: 'all', label: 'All' },
  { value: 'account', label: 'Account' },
  { value: 'workspace', label: 'Workspace' },
];

function toImportFiles(list: FileList | null): ImportFile[] {
  return Array.from(list ?? []).map((f) => ({ name: f.name, text: () => f.text() }));
}

/** The catalog: search and filters, the list, the open skill, import by drop or picker. */
export function SkillsView() {
  const s = useSkillsStore(
    useShallow((st) => ({
      list: st.list,
      query: st.query,
      scope: st.scope,
      kind: st.kind,
      cursor: st.cursor,
      open: st.open,
      pendingDelete: st.pendingDelete,
      deleting: st.deleting,
      notice: st.notice,
    })),
  );
  const actions = useSkillsStore(
    useShallow((st) => ({
      load: st.load,
      setQuery: st.setQuery,
      setScope: st.setScope,
      setKind: st.setKind,
      moveCursor: st.moveCursor,
      cursorTo: st.cursorTo,
      openSkill: st.openSkill,
      openCursor: st.openCursor,
      closeDetail: st.closeDetail,
      importFiles: st.importFiles,
      cancelDelete: st.cancelDelete,
      confirmDelete: st.confirmDelete,
      dismissNotice: st.dismissNotice,
      watch: st.watch,
    })),
  );
  const focusTick = useAppStore((a) => a.focusSearchTick);
  const searchRef = useRef<HTMLInputElement>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const dragDepth = useRef(0);
  const rows = useMemo(() => visibleSkills(s), [s]);
  const kindsPresent = useMemo(() => {
    const set = new Set<ArtifactKindName>();
    for (const i of s.list.items) for (const k of i.artifact_kinds) set.add(k);
    return (Object.keys(KIND_LABELS) as ArtifactKindName[]).filter((k) => set.has(k));
  }, [s.list.items]);

  const { load, watch } = actions;
  useEffect(() => {
    void load();
    return watch();
  }, [load, watch]);
  useEffect(() => {
    if (focusTick > 0) {
      searchRef.current?.focus();
      searchRef.current?.select();
    }
  }, [focusTick]);
  const { notice, dismissNotice } = { notice: s.notice, dismissNotice: actions.dismissNotice };
  useEffect(() => {
    if (!notice || notice.tone === 'error') return;
    const t = setTimeout(dismissNotice, 5000);
    return () => clearTimeout(t);
  }, [notice, dismissNotice]);

  const onSearchKey = (e: React.KeyboardEvent<HTMLInputElement>) => {
    switch (e.key) {
      case 'ArrowDown':
        e.preventDefault();
        actions.moveCursor(1);
        break;
      case 'ArrowUp':
        e.preventDefault();
        actions.moveCursor(-1);
        break;
      case 'PageDown':
        e.preventDefault();
        actions.moveCursor(8);
        break;
      case 'PageUp':
        e.preventDefault();
        actions.moveCursor(-8);
        break;
      case 'Enter':
        e.preventDefault();
        void actions.openCursor();
        break;
      case 'Escape':
        if (s.open) actions.closeDetail();
        else if (s.query) actions.setQuery('');
        else return;
        e.preventDefault();
        e.stopPropagation();
        break;
    }
  };

  // Esc anywhere in the view closes the open skill and returns to the search box.
  const onViewKey = (e: React.KeyboardEvent) => {
    if (e.key !== 'Escape' || e.defaultPrevented || s.pendingDelete) return;
    if (s.open) {
      actions.closeDetail();
      searchRef.current?.focus();
      e.preventDefault();
    }
  };

  const onDrop = (e: React.DragEvent) => {
    e.preventDefault();
    dragDepth.current = 0;
    setDragging(false);
    const files = toImportFiles(e.dataTransfer.files);
    if (files.length > 0) void actions.importFiles(files);
  };
  const hasFiles = (e: React.DragEvent) => Array.from(e.dataTransfer.types).includes('Files');

  const pending = s.pendingDelete ? parseSkillKey(s.pendingDelete) : null;
  const pendingItem = pending
    ? s.list.items.find((i) => i.scope === pending.scope && i.name === pending.name)
    : undefined;
  const total = s.list.items.length;

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: drop target and Esc scope for the whole view
    <div
      className="skills"
      onKeyDown={onViewKey}
      onDragEnter={(e) => {
        if (!hasFiles(e)) return;
        dragDepth.current++;
        setDragging(true);
      }}
      onDragOver={(e) => {
        if (hasFiles(e)) e.preventDefault();
      }}
      onDragLeave={() => {
        dragDepth.current = Math.max(0, dragDepth.current - 1);
        if (dragDepth.current === 0) setDragging(false);
      }}
      onDrop={onDrop}
    >
      <section className="list-pane" aria-label="Skill catalog">
        <header className="pane-head">
          <div>
            <h1 className="pane-title">Skills</h1>
            <p className="pane-sub">
              {s.list.status === 'ready'
                ? rows.length === total
                  ? `${total} skill${total === 1 ? '' : 's'}`
                  : `${rows.length} of ${total}`
                : ' '}
            </p>
          </div>
          <button type="button" className="btn btn--primary" onClick={() => fileRef.current?.click()}>
            <Icon name="upload" /> Import
          </button>
          <input
            ref={fileRef}
            type="file"
            accept=".json,application/json"
            multiple
            hidden
            data-testid="import-input"
            onChange={(e) => {
              const files = toImportFiles(e.currentTarget.files);
              e.currentTarget.value = '';
              if (files.length > 0) void actions.importFiles(files);
            }}
          />
        </header>
        <div className="search">
          <Icon name="search" />
          <input
            ref={searchRef}
            type="search"
            placeholder="Search skills, tags, triggers…"
            aria-label="Search skills"
            role="combobox"
            aria-expanded="true"
            aria-controls="skill-list"
            aria-autocomplete="list"
            aria-activedescendant={s.cursor ? rowId(s.cursor) : undefined}
            value={s.query}
            onChange={(e) => actions.setQuery(e.target.value)}
            onKeyDown={onSearchKey}
          />
          <Kbd>Ctrl K</Kbd>
        </div>
        <div className="filters">
          <fieldset className="segmented" aria-label="Scope">
            {SCOPES.map((o) => (
              <button
                key={o.value}
                type="button"
                className={s.scope === o.value ? 'is-on' : ''}
                aria-pressed={s.scope === o.value}
                onClick={() => actions.setScope(o.value)}
              >
                {o.label}
              </button>
            ))}
          </fieldset>
          <label className="select">
            <span className="visually-hidden">Artifact kind</span>
            <select
              value={s.kind ?? ''}
              onChange={(e) => actions.setKind((e.target.value || null) as ArtifactKindName | null)}
            >
              <option value="">Any kind</option>
              {kindsPresent.map((k) => (
                <option key={k} value={k}>
                  {KIND_LABELS[k]}
                </option>
              ))}
            </select>
            <Icon name="chevronDown" />
          </label>
        </div>
        <ImportResults />
        {s.list.status === 'error' && s.list.error ? (
          <div className="callout callout--error list-message" role="alert">
            <Icon name="alert" />
            <div>
              <strong>The catalog could not be loaded.</strong>
              <p>{s.list.error.message}</p>
              <button type="button" className="btn btn--small" onClick={() => void actions.load()}>
                Try again
              </button>
            </div>
          </div>
        ) : s.list.status !== 'ready' ? (
          <div className="skill-list" aria-busy="true">
            {[0, 1, 2, 3].map((i) => (
              <div key={i} className="skeleton skeleton--row" />
            ))}
          </div>
        ) : total === 0 ? (
          <div className="list-message empty empty--compact">
            <h2 className="empty__title">No skills yet</h2>
            <p className="empty__text">
              Drop a <span className="mono">.json</span> skill package here, or press <strong>Import</strong>.
            </p>
          </div>
        ) : rows.length === 0 ? (
          <div className="list-message empty empty--compact">
            <h2 className="empty__title">
              Nothing matches “{s.query || KIND_LABELS[s.kind ?? 'description']}”
            </h2>
            <p className="empty__text">Try fewer words, or clear the filters.</p>
            <button
              type="button"
              className="btn btn--small"
              onClick={() => {
                actions.setQuery('');
                actions.setScope('all');
                actions.setKind(null);
                searchRef.current?.focus();
              }}
            >
              Clear filters
            </button>
          </div>
        ) : (
          <SkillList items={rows} cursor={s.cursor} open={s.open} onOpen={(k) => void actions.openSkill(k)} />
        )}
        <p className="drop-hint">
          <Icon name="upload" /> Drop <span className="mono">.json</span> packages anywhere here to import
        </p>
      </section>
      <section className={`detail-pane${s.open ? ' is-open' : ''}`} aria-label="Skill details">
        <SkillDetailPane />
      </section>
      {dragging && (
        <div className="drop-overlay" aria-hidden="true">
          <div className="drop-overlay__box">
            <Icon name="upload" size={32} />
            <p>Drop skill packages to import</p>
            <span>.json files · validated before anything is saved</span>
          </div>
        </div>
      )}
      {s.notice && (
        <output className={`toast toast--${s.notice.tone}`}>
          <Icon name={s.notice.tone === 'success' ? 'check' : 'alert'} />
          <span>{s.notice.text}</span>
          <button
            type="button"
            className="btn btn--icon btn--small"
            onClick={actions.dismissNotice}
            aria-label="Dismiss"
          >
            <Icon name="close" />
          </button>
        </output>
      )}
      {pending && (
        <ConfirmDialog
          title={`Delete ${pending.name}?`}
          confirmLabel="Delete skill"
          danger
          busy={s.deleting}
          onCancel={actions.cancelDelete}
          onConfirm={() => void actions.confirmDelete()}
        >
          <p>
            This removes <strong>{pending.name}</strong> and its artifacts from the {pending.scope} store. It
            cannot be undone — export it first if you may want it back.
          </p>
          {pendingItem?.overrides && <p>The account skill of the same name becomes active again.</p>}
          {pendingItem?.source === 'system' && (
            <p>Built-in skills come back only when a newer version ships.</p>
          )}
        </ConfirmDialog>
      )}
    </div>
  );
}
