import { useEffect, useMemo, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useAppStore, useSkillsStore } from '../../stores.js';
import { Icon } from '../../ui/Icon.js';
import { CatalogBody } from './CatalogBody.js';
import { DeleteSkillDialog } from './DeleteSkillDialog.js';
import { ImportResults } from './ImportResults.js';
import { SkillDetailPane } from './SkillDetailPane.js';
import { SkillSearch } from './SkillSearch.js';
import { type ImportFile, visibleSkills } from './skills-store.js';

function toImportFiles(list: FileList | null): ImportFile[] {
  return Array.from(list ?? []).map((f) => ({ name: f.name, text: () => f.text() }));
}

/** Import by dropping files anywhere on the view: the drag state and the drop handlers. */
function useFileDrop(onFiles: (files: ImportFile[]) => void) {
  const [dragging, setDragging] = useState(false);
  const depth = useRef(0);
  const hasFiles = (e: React.DragEvent) => Array.from(e.dataTransfer.types).includes('Files');
  const handlers = {
    onDragEnter: (e: React.DragEvent) => {
      if (!hasFiles(e)) return;
      depth.current++;
      setDragging(true);
    },
    onDragOver: (e: React.DragEvent) => {
      if (hasFiles(e)) e.preventDefault();
    },
    onDragLeave: () => {
      depth.current = Math.max(0, depth.current - 1);
      if (depth.current === 0) setDragging(false);
    },
    onDrop: (e: React.DragEvent) => {
      e.preventDefault();
      depth.current = 0;
      setDragging(false);
      const files = toImportFiles(e.dataTransfer.files);
      if (files.length > 0) onFiles(files);
    },
  };
  return { dragging, handlers };
}

function DropOverlay() {
  return (
    <div className="drop-overlay" aria-hidden="true">
      <div className="drop-overlay__box">
        <Icon name="upload" size={32} />
        <p>Drop skill packages to import</p>
        <span>.json files · validated before anything is saved</span>
      </div>
    </div>
  );
}

/** The last action's outcome; a success fades after a few seconds, an error stays until dismissed. */
function Toast() {
  const { notice, dismissNotice } = useSkillsStore(
    useShallow((st) => ({ notice: st.notice, dismissNotice: st.dismissNotice })),
  );
  useEffect(() => {
    if (!notice || notice.tone === 'error') return;
    const t = setTimeout(dismissNotice, 5000);
    return () => clearTimeout(t);
  }, [notice, dismissNotice]);
  if (!notice) return null;
  return (
    <output className={`toast toast--${notice.tone}`}>
      <Icon name={notice.tone === 'success' ? 'check' : 'alert'} />
      <span>{notice.text}</span>
      <button type="button" className="btn btn--icon btn--small" onClick={dismissNotice} aria-label="Dismiss">
        <Icon name="close" />
      </button>
    </output>
  );
}

/** The catalog: search and filters, the list, the open skill, import by drop or picker. */
export function SkillsView() {
  const s = useSkillsStore(
    useShallow((st) => ({
      list: st.list,
      query: st.query,
      scope: st.scope,
      kind: st.kind,
      open: st.open,
      pendingDelete: st.pendingDelete,
      load: st.load,
      watch: st.watch,
      importFiles: st.importFiles,
      closeDetail: st.closeDetail,
    })),
  );
  const focusTick = useAppStore((a) => a.focusSearchTick);
  const startNewWithAi = useAppStore((a) => a.startNewWithAi);
  const searchRef = useRef<HTMLInputElement>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const rows = useMemo(() => visibleSkills(s), [s]);
  const drop = useFileDrop((files) => void s.importFiles(files));

  const { load, watch } = s;
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

  // Esc anywhere in the view closes the open skill and returns to the search box.
  const onViewKey = (e: React.KeyboardEvent) => {
    if (e.key !== 'Escape' || e.defaultPrevented || s.pendingDelete) return;
    if (s.open) {
      s.closeDetail();
      searchRef.current?.focus();
      e.preventDefault();
    }
  };
  const total = s.list.items.length;

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: drop target and Esc scope for the whole view
    <div className="skills" onKeyDown={onViewKey} {...drop.handlers}>
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
          <button
            type="button"
            className="btn btn--icon pane-head__ai"
            title="New skill with AI: describe it, the Composer agent drafts it"
            onClick={startNewWithAi}
          >
            <Icon name="sparkle" label="New skill with AI" />
          </button>
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
              if (files.length > 0) void s.importFiles(files);
            }}
          />
        </header>
        <SkillSearch searchRef={searchRef} />
        <ImportResults />
        <CatalogBody rows={rows} searchRef={searchRef} />
        <p className="drop-hint">
          <Icon name="upload" /> Drop <span className="mono">.json</span> packages anywhere here to import
        </p>
      </section>
      <section className={`detail-pane${s.open ? ' is-open' : ''}`} aria-label="Skill details">
        <SkillDetailPane />
      </section>
      {drop.dragging && <DropOverlay />}
      <Toast />
      <DeleteSkillDialog />
    </div>
  );
}
