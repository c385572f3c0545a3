import { useEffect, useMemo, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useAppStore, useSkillsStore, useStores } from '../../stores.js';
import { Icon } from '../../ui/Icon.js';
import { ImportReport } from '../composer/ComposerView.js';
import type { ComposerFile } from '../composer/composer-store.js';
import { droppedFiles, pickedFiles } from '../composer/files.js';
import { CatalogBody } from './CatalogBody.js';
import { DeleteSkillDialog } from './DeleteSkillDialog.js';
import { SkillDetailPane } from './SkillDetailPane.js';
import { SkillSearch } from './SkillSearch.js';
import { visibleSkills } from './skills-store.js';

/**
 * Import by dropping files, zips or folders anywhere on the view: the drag state and the drop
 * handlers. The files go through the Composer's import (one importer for every format).
 */
function useFileDrop(onFiles: (files: ComposerFile[]) => void) {
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
      void droppedFiles(e.dataTransfer).then((files) => {
        if (files.length > 0) onFiles(files);
      });
    },
  };
  return { dragging, handlers };
}

function DropOverlay() {
  return (
    <div className="drop-overlay" aria-hidden="true">
      <div className="drop-overlay__box">
        <Icon name="upload" size={32} />
        <p>Drop skills to import</p>
        <span>
          .json packages, .zip files, Agent Skills folders · checked first, nothing is written if any is
          refused
        </span>
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
      source: st.source,
      kind: st.kind,
      meaning: st.meaning,
      open: st.open,
      pendingDelete: st.pendingDelete,
      load: st.load,
      watch: st.watch,
      closeDetail: st.closeDetail,
    })),
  );
  const focusTick = useAppStore((a) => a.focusSearchTick);
  const startNewWithAi = useAppStore((a) => a.startNewWithAi);
  const searchRef = useRef<HTMLInputElement>(null);
  const stores = useStores();
  const fileRef = useRef<HTMLInputElement>(null);
  const folderRef = useRef<HTMLInputElement>(null);
  const rows = useMemo(() => visibleSkills(s), [s]);
  const importFiles = (files: ComposerFile[]) => void stores.composer.getState().importFiles(files);
  const drop = useFileDrop(importFiles);

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
          <button
            type="button"
            className="btn btn--icon"
            title="Import an Agent Skills folder (a folder holding SKILL.md)"
            onClick={() => folderRef.current?.click()}
          >
            <Icon name="folder" label="Import a folder" />
          </button>
          <button
            type="button"
            className="btn btn--primary"
            title="Import .json packages or .zip files — or drop them, or a skill folder, anywhere here"
            onClick={() => fileRef.current?.click()}
          >
            <Icon name="upload" /> Import
          </button>
          <input
            ref={fileRef}
            type="file"
            accept=".json,.zip,application/json,application/zip"
            multiple
            hidden
            data-testid="import-input"
            onChange={(e) => {
              const files = pickedFiles(e.currentTarget.files);
              e.currentTarget.value = '';
              if (files.length > 0) importFiles(files);
            }}
          />
          <input
            ref={folderRef}
            type="file"
            hidden
            data-testid="import-folder"
            {...{ webkitdirectory: '' }}
            onChange={(e) => {
              const files = pickedFiles(e.currentTarget.files);
              e.currentTarget.value = '';
              if (files.length > 0) importFiles(files);
            }}
          />
        </header>
        <SkillSearch searchRef={searchRef} />
        <ImportReport />
        <CatalogBody rows={rows} searchRef={searchRef} onImport={() => fileRef.current?.click()} />
        <p className="drop-hint">
          <Icon name="upload" /> Drop <span className="mono">.json</span>, <span className="mono">.zip</span>{' '}
          or a skill folder anywhere here to import
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
