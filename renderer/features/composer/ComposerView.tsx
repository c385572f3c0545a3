import { useEffect, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { TriggerRegressionView } from '../../../electron/contract/skills.js';
import { useAppStore, useComposerStore } from '../../stores.js';
import { OverrideBadge, ScopeBadge } from '../../ui/badges.js';
import { Icon } from '../../ui/Icon.js';
import { TraceDrawer } from '../traces/TraceDrawer.js';
import { ArtifactsEditor } from './ArtifactsEditor.js';
import { AgentBar, NewSkillWithAiDialog, NewWithAiButton } from './agent/AgentPanels.js';
import { CatalogPane } from './CatalogPane.js';
import { blockingIssues, type EditorDoc, isDirty, openDoc } from './composer-state.js';
import { TEMPLATE_INFO, TEMPLATES, type TemplateId } from './draft.js';
import { download, droppedFiles, pickedFiles } from './files.js';
import { HistoryPanel } from './HistoryPanel.js';
import { PackageForm } from './PackageForm.js';
import { TestPanel } from './TestPanel.js';
import './composer.css';
import { AlertDialog } from '../../ui/AlertDialog.js';
import { useMediaQuery } from '../../ui/media-query.js';

const TEMPLATE_ICON: Record<TemplateId, 'file' | 'sparkle' | 'keyboard' | 'activity' | 'chat'> = {
  blank: 'file',
  prompt: 'sparkle',
  python: 'keyboard',
  dspy: 'activity',
  instructions: 'chat',
};

/** A modal with the new-skill starting points. */
function NewSkillDialog() {
  const s = useComposerStore(useShallow((st) => ({ newSkill: st.newSkill, dispatch: st.dispatch })));
  const startNewWithAi = useAppStore((st) => st.startNewWithAi);
  const close = () => s.dispatch({ type: 'new/toggled', open: false });
  const first = useRef<HTMLButtonElement>(null);
  useEffect(() => first.current?.focus(), []);
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: clicking the backdrop closes; Esc does too
    <div className="scrim" role="presentation" onMouseDown={(e) => e.target === e.currentTarget && close()}>
      <div
        className="dialog sc-newdlg"
        role="dialog"
        aria-modal="true"
        aria-labelledby="sc-new-title"
        onKeyDown={(e) => e.key === 'Escape' && close()}
      >
        <h2 id="sc-new-title" className="dialog__title">
          New skill
        </h2>
        <p className="sc-field__help">
          Each starting point is a valid skill you can save and test right away.
        </p>
        <div className="sc-templates">
          <button
            ref={first}
            type="button"
            className="sc-template sc-template--ai"
            onClick={() => {
              close();
              startNewWithAi();
            }}
          >
            <span className="sc-template__icon">
              <Icon name="sparkle" />
            </span>
            <span>
              <strong>New skill with AI</strong>
              <span className="sc-field__help">
                Say what it should do; the Composer agent drafts the package, with tests, for you to review.
              </span>
            </span>
          </button>
          {TEMPLATES.map((t) => (
            <button key={t} type="button" className="sc-template" onClick={() => s.newSkill(t)}>
              <span className="sc-template__icon">
                <Icon name={TEMPLATE_ICON[t]} />
              </span>
              <span>
                <strong>{TEMPLATE_INFO[t].title}</strong>
                <span className="sc-field__help">{TEMPLATE_INFO[t].text}</span>
              </span>
            </button>
          ))}
        </div>
        <div className="dialog__actions">
          <button type="button" className="btn" onClick={close}>
            Cancel
          </button>
        </div>
      </div>
    </div>
  );
}

/** Asked before leaving a skill with unsaved edits. */
function LeaveDialog({ name }: { name: string }) {
  const resolve = useComposerStore((st) => st.resolveLeave);
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => keep.current?.focus(), []);
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: clicking the backdrop cancels; Esc does too
    <div
      className="scrim"
      role="presentation"
      onMouseDown={(e) => e.target === e.currentTarget && void resolve('cancel')}
    >
      <div
        className="dialog"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="sc-leave-title"
        onKeyDown={(e) => e.key === 'Escape' && void resolve('cancel')}
      >
        <h2 id="sc-leave-title" className="dialog__title">
          Unsaved changes to {name}
        </h2>
        <div className="dialog__body">
          <p>Keep them as a draft to come back to (they survive a reload), or discard them.</p>
        </div>
        <div className="dialog__actions">
          <button type="button" className="btn" onClick={() => void resolve('cancel')}>
            Cancel
          </button>
          <button type="button" className="btn btn--ghost-danger" onClick={() => void resolve('discard')}>
            Discard changes
          </button>
          <button ref={keep} type="button" className="btn btn--primary" onClick={() => void resolve('keep')}>
            Keep draft
          </button>
        </div>
      </div>
    </div>
  );
}

/**
 * Saving edits of a built-in skill asks first: a copy (in the workspace, or in the account under
 * its own name) leaves the built-in as shipped, so it keeps receiving updates; saving in place
 * makes it the user's.
 */
function BuiltinDialog({ name }: { name: string }) {
  const s = useComposerStore(
    useShallow((st) => ({
      saveCopy: st.saveCopy,
      save: st.save,
      dismiss: st.dismissBuiltin,
      workspaceOpen: st.workspaceOpen,
    })),
  );
  const first = useRef<HTMLButtonElement>(null);
  return (
    <AlertDialog
      title={`${name} is a built-in skill`}
      onDismiss={s.dismiss}
      initialFocus={first}
      wide
      wrapActions
      actions={
        <>
          <button type="button" className="btn" onClick={s.dismiss}>
            Cancel
          </button>
          <button
            type="button"
            className="btn btn--ghost-danger"
            onClick={() => void s.save({ overwrite: true })}
          >
            Save over the built-in
          </button>
          <button
            ref={s.workspaceOpen ? undefined : first}
            type="button"
            className={`btn${s.workspaceOpen ? '' : ' btn--primary'}`}
            onClick={() => void s.saveCopy('account')}
          >
            Save as my copy
          </button>
          {s.workspaceOpen && (
            <button
              ref={first}
              type="button"
              className="btn btn--primary"
              onClick={() => void s.saveCopy('workspace')}
            >
              Save a workspace copy
            </button>
          )}
        </>
      }
    >
      <p>
        Built-in skills are updated with SkillDesk. Save your edits as a copy and the built-in keeps its
        updates; save over it and it becomes yours, and updates stop.
      </p>
    </AlertDialog>
  );
}

/** How long a report of an import that went through stays (errors stay until dismissed). */
const IMPORT_REPORT_MS = 10_000;

/** What an import did, per file; it goes when another skill is opened, and by itself when nothing was refused. */
export function ImportReport() {
  const s = useComposerStore(
    useShallow((st) => ({
      imports: st.imports,
      dispatch: st.dispatch,
      open: st.open,
      importAgainForced: st.importAgainForced,
    })),
  );
  const [held, setHeld] = useState(false);
  const rows = s.imports.rows;
  const refused = rows?.some((r) => r.outcome === 'refused') ?? false;
  const { dispatch } = s;
  // The report is about the import, not the skill on screen: opening another skill takes it away.
  const shownWith = useRef<{ open: string | null } | null>(null);
  useEffect(() => {
    if (!rows) {
      shownWith.current = null;
      return;
    }
    shownWith.current ??= { open: s.open };
    if (s.open !== shownWith.current.open) dispatch({ type: 'import/dismissed' });
  }, [rows, s.open, dispatch]);
  // A report that went through goes by itself, unless the pointer or focus is reading it.
  useEffect(() => {
    if (!rows || refused || held) return;
    const t = setTimeout(() => dispatch({ type: 'import/dismissed' }), IMPORT_REPORT_MS);
    return () => clearTimeout(t);
  }, [rows, refused, held, dispatch]);
  if (s.imports.busy) {
    return (
      <div className="sc-report" role="status">
        <span className="spinner" /> Importing…
      </div>
    );
  }
  if (!rows) return null;
  return (
    <section
      className={`sc-report${refused ? ' is-error' : ''}`}
      aria-label="Import report"
      onMouseEnter={() => setHeld(true)}
      onMouseLeave={() => setHeld(false)}
      onFocus={() => setHeld(true)}
      onBlur={() => setHeld(false)}
    >
      <header className="sc-report__head">
        <Icon name={refused ? 'alert' : 'check'} />
        <strong>{refused ? 'Nothing was imported' : 'Import finished'}</strong>
        <button
          type="button"
          className="btn btn--icon btn--small"
          aria-label="Dismiss the import report"
          onClick={() => s.dispatch({ type: 'import/dismissed' })}
        >
          <Icon name="close" />
        </button>
      </header>
      <ul>
        {rows.map((r) => (
          <li key={`${r.file}:${r.name}`}>
            <span className={`sc-outcome sc-outcome--${r.outcome}`}>{r.outcome.replace('-', ' ')}</span>
            <span className="sc-report__what">
              <strong>{r.name ?? r.file}</strong> <span className="muted">{r.file}</span>
              <span className="sc-report__detail">{r.detail}</span>
              {r.issues
                .filter((i) => !r.detail.includes(i.message))
                .map((i) => (
                  <span key={`${i.path}:${i.message}`} className="sc-report__issue">
                    <code>{i.path}</code> {i.message}
                  </span>
                ))}
              {r.warnings?.map((i) => (
                <span key={`w:${i.path}:${i.message}`} className="sc-report__issue sc-report__issue--warn">
                  <Icon name="alert" size={12} /> Warning: <code>{i.path}</code> {i.message}
                </span>
              ))}
            </span>
          </li>
        ))}
      </ul>
      {/* A built-in of that name, or a newer installed version, refuses an import unless forced. */}
      {refused && rows.some((r) => r.outcome === 'refused' && /--force/.test(r.detail)) && (
        <button type="button" className="btn btn--small" onClick={() => void s.importAgainForced()}>
          Import anyway (replace the built-in or the newer version)
        </button>
      )}
    </section>
  );
}

function Notice() {
  const s = useComposerStore(useShallow((st) => ({ notice: st.notice, dispatch: st.dispatch })));
  const { notice, dispatch } = s;
  useEffect(() => {
    if (!notice || notice.tone === 'error') return;
    const t = setTimeout(() => dispatch({ type: 'notice/dismissed' }), 5000);
    return () => clearTimeout(t);
  }, [notice, dispatch]);
  if (!notice) return null;
  return (
    <output className={`toast toast--${notice.tone}`}>
      <Icon name={notice.tone === 'success' ? 'check' : 'alert'} />
      <span>{notice.text}</span>
      <button
        type="button"
        className="btn btn--icon btn--small"
        onClick={() => dispatch({ type: 'notice/dismissed' })}
        aria-label="Dismiss"
      >
        <Icon name="close" />
      </button>
    </output>
  );
}

/** Export the open skill (as saved) as a JSON package or a zipped Agent Skills folder. */
function ExportMenu() {
  const s = useComposerStore(useShallow((st) => ({ exportOpen: st.exportOpen, dispatch: st.dispatch })));
  const [open, setOpen] = useState(false);
  const first = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (open) first.current?.focus();
  }, [open]);
  const run = async (format: 'json' | 'agent-skill') => {
    setOpen(false);
    const f = await s.exportOpen(format);
    if (!f) return;
    download(f.name, f.data, f.type);
    s.dispatch({
      type: 'notice/shown',
      tone: 'success',
      text: `Exported ${f.name}${f.skipped.length ? ` (left out: ${f.skipped.join(', ')})` : ''}.`,
    });
  };
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: Esc closes the menu opened by its button
    <div className="sc-menu" onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}>
      <button
        type="button"
        className="btn btn--small"
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
      >
        <Icon name="download" />
        Export
      </button>
      {open && (
        <div className="sc-menu__list" role="menu" aria-label="Export as">
          <button ref={first} type="button" role="menuitem" onClick={() => void run('json')}>
            <strong>JSON package</strong>
            <span>One .json file, every artifact and field</span>
          </button>
          <button type="button" role="menuitem" onClick={() => void run('agent-skill')}>
            <strong>Agent Skills folder (.zip)</strong>
            <span>SKILL.md with its bundled files, for other agents</span>
          </button>
        </div>
      )}
    </div>
  );
}

/** The open skill's header: name, badges, state, actions and the Edit / Test / History tabs. */
function EditorHead({
  doc,
  narrow,
  pane,
  setPane,
}: {
  doc: EditorDoc;
  narrow: boolean;
  pane: string;
  setPane: (p: 'edit' | 'test' | 'history') => void;
}) {
  const s = useComposerStore(
    useShallow((st) => ({
      saving: st.saving,
      saveNow: st.save,
      errors: blockingIssues(st).length,
      checking: st.validation.checking,
      warnings: st.validation.warnings.length,
      revert: st.revert,
      reloadBase: st.reloadBase,
      fork: st.fork,
      workspaceOpen: st.workspaceOpen,
      item: st.catalog.items.find(
        (i) => doc.origin && i.name === doc.origin.name && i.scope === doc.origin.scope,
      ),
    })),
  );
  const dirty = isDirty(doc);
  const errors = s.errors;
  const tabs: Array<{ id: 'edit' | 'test' | 'history'; label: string }> = [
    { id: 'edit', label: 'Edit' },
    ...(narrow ? [{ id: 'test' as const, label: 'Test' }] : []),
    { id: 'history', label: 'History' },
  ];
  return (
    <header className="sc-head">
      <div className="sc-head__top">
        <div className="sc-head__titles">
          <h2 className="sc-title">{doc.draft.name || 'Untitled skill'}</h2>
          <div className="sc-row sc-row--wrap">
            <ScopeBadge scope={doc.scope} />
            {s.item && <OverrideBadge overridden={s.item.overridden} overrides={s.item.overrides} />}
            {!doc.origin ? (
              <span className="sc-state sc-state--new">Not saved yet</span>
            ) : dirty ? (
              <span className="sc-state sc-state--dirty">Unsaved changes</span>
            ) : (
              <span className="sc-state">Saved · {doc.base?.version}</span>
            )}
            {s.checking ? (
              <span className="sc-state">Checking…</span>
            ) : errors > 0 ? (
              <span className="sc-state sc-state--error" role="status">
                {errors} {errors === 1 ? 'problem' : 'problems'} · saving blocked
              </span>
            ) : (
              <span className="sc-state sc-state--ok">
                <Icon name="check" /> Valid
              </span>
            )}
            {!s.checking && s.warnings > 0 && (
              <span className="sc-state sc-state--warn" title="Warnings do not block saving">
                <Icon name="alert" /> {s.warnings} {s.warnings === 1 ? 'warning' : 'warnings'}
              </span>
            )}
          </div>
        </div>
        <div className="sc-row">
          {doc.origin?.scope === 'account' && s.workspaceOpen && (
            <button type="button" className="btn btn--small" onClick={() => void s.fork()}>
              Customize for this workspace
            </button>
          )}
          {doc.origin && <ExportMenu />}
          {dirty && (
            <button type="button" className="btn btn--small" onClick={s.revert}>
              {doc.origin ? 'Revert' : 'Discard'}
            </button>
          )}
          <button
            type="button"
            className="btn btn--primary"
            disabled={s.saving.busy || errors > 0 || (!dirty && doc.origin !== null)}
            onClick={() => void s.saveNow()}
            title="Save (Ctrl+S)"
          >
            {s.saving.busy ? 'Saving…' : 'Save'}
          </button>
        </div>
      </div>
      {s.saving.error && (
        <p className="sc-issues sc-issues--save" role="alert">
          {s.saving.error.message}
          {s.saving.error.code === 'CONFLICT' && (
            <button type="button" className="btn btn--small" onClick={() => void s.reloadBase()}>
              Load the latest, keep my edits
            </button>
          )}
        </p>
      )}
      <div className="sc-tabs" role="tablist" aria-label="Skill views">
        {tabs.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            aria-selected={pane === t.id}
            className={`sc-tab${pane === t.id ? ' is-on' : ''}`}
            disabled={t.id === 'history' && !doc.origin}
            onClick={() => setPane(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
    </header>
  );
}

function useNarrow(): boolean {
  return useMediaQuery('(max-width: 1279px)');
}

/** A percentage of a trigger rate, or a dash when there is none (no query of that kind). */
function pct(x: number | null): string {
  return x === null ? '–' : `${Math.round(x * 100)}%`;
}

/**
 * Asked when a save would lower the skill's phase-1 trigger recall or precision: the rates before
 * and after, and the queries it now gets wrong. Nothing is saved until the user chooses.
 */
function TriggerRegressionDialog({ regressions }: { regressions: TriggerRegressionView[] }) {
  const s = useComposerStore(useShallow((st) => ({ save: st.save, dismiss: st.dismissTriggers })));
  return (
    <AlertDialog
      title="This change makes the skill fire less reliably"
      onDismiss={s.dismiss}
      wide
      wrapActions
      actions={
        <>
          <button type="button" className="btn btn--primary" onClick={s.dismiss}>
            Keep editing
          </button>
          <button
            type="button"
            className="btn btn--ghost-danger"
            onClick={() => void s.save({ overwrite: true, acceptTriggers: true })}
          >
            Save anyway
          </button>
        </>
      }
    >
      {regressions.map((r) => (
        <div key={`${r.scope}/${r.name}`}>
          <p>
            Measured on {r.name}'s trigger evals (phase 1, no model): recall{' '}
            <strong>
              {pct(r.recall_before)} → {pct(r.recall_after)}
            </strong>
            , precision{' '}
            <strong>
              {pct(r.precision_before)} → {pct(r.precision_after)}
            </strong>
            .
          </p>
          {r.failing.length > 0 && (
            <ul className="sc-trigger-fails">
              {r.failing.map((f) => (
                <li key={f.query}>
                  {f.should_trigger ? 'Should fire, does not' : 'Should not fire, does'}
                  {f.newly ? ' (new)' : ''}: “{f.query}”
                </li>
              ))}
            </ul>
          )}
        </div>
      ))}
    </AlertDialog>
  );
}

/** The Skill Composer: catalog, package editor with history, and the test panel. */
export function ComposerView() {
  const s = useComposerStore(
    useShallow((st) => ({
      doc: openDoc(st),
      loading: st.loading,
      tab: st.tab,
      pending: st.pending,
      builtinAsk: st.builtinAsk,
      triggerAsk: st.triggerAsk,
      newOpen: st.newOpen,
      start: st.start,
      watch: st.watch,
      setTab: st.setTab,
      askNew: st.askNew,
      importFiles: st.importFiles,
      save: st.save,
      anyDirty: Object.values(st.docs).some(isDirty),
      runTick: st.runTick,
    })),
  );
  const newWithAi = useAppStore((st) => st.newWithAi);
  const closeNewWithAi = useAppStore((st) => st.closeNewWithAi);
  const narrow = useNarrow();
  const [showTest, setShowTest] = useState(false);
  const fileRef = useRef<HTMLInputElement>(null);
  const folderRef = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const depth = useRef(0);
  const { start, watch } = s;

  useEffect(() => {
    void start();
    return watch();
  }, [start, watch]);

  // Closing or reloading the window with unsaved edits asks first (the drafts are kept either way).
  useEffect(() => {
    if (!s.anyDirty) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [s.anyDirty]);

  // Another skill opens on its editor (Run from the catalog brings the test panel forward below).
  const openKey = s.doc?.key ?? null;
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the open skill changes
  useEffect(() => setShowTest(false), [openKey]);
  // Run from the catalog: the test panel comes forward (a tab when narrow) with Run skill focused.
  useEffect(() => {
    if (s.runTick === 0) return;
    setShowTest(true);
    const t = setTimeout(() => {
      const buttons = document.querySelectorAll<HTMLButtonElement>('.sc-test__actions button');
      Array.from(buttons)
        .find((b) => b.textContent?.trim() === 'Run skill')
        ?.focus();
    }, 0);
    return () => clearTimeout(t);
  }, [s.runTick]);

  const { save } = s;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 's') {
        e.preventDefault();
        void save();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [save]);

  const pane = narrow && showTest ? 'test' : s.tab;
  const setPane = (p: 'edit' | 'test' | 'history') => {
    setShowTest(p === 'test');
    if (p !== 'test') void s.setTab(p);
  };
  const hasFiles = (e: React.DragEvent) => Array.from(e.dataTransfer.types).includes('Files');

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: dropping files anywhere imports them; the Import button does the same
    <div
      className={`sc${narrow ? ' sc--narrow' : ''}${s.doc ? '' : ' sc--blank'}`}
      onDragEnter={(e) => {
        if (!hasFiles(e)) return;
        depth.current++;
        setDragging(true);
      }}
      onDragOver={(e) => hasFiles(e) && e.preventDefault()}
      onDragLeave={() => {
        depth.current = Math.max(0, depth.current - 1);
        if (depth.current === 0) setDragging(false);
      }}
      onDrop={(e) => {
        e.preventDefault();
        depth.current = 0;
        setDragging(false);
        void droppedFiles(e.dataTransfer).then((files) => s.importFiles(files));
      }}
    >
      <CatalogPane onImport={() => fileRef.current?.click()} />
      <input
        ref={fileRef}
        type="file"
        accept=".json,.zip,application/json,application/zip"
        multiple
        hidden
        data-testid="composer-import-input"
        onChange={(e) => {
          void s.importFiles(pickedFiles(e.target.files));
          e.target.value = '';
        }}
      />
      <input
        ref={folderRef}
        type="file"
        hidden
        data-testid="composer-import-folder"
        {...{ webkitdirectory: '' }}
        onChange={(e) => {
          void s.importFiles(pickedFiles(e.target.files));
          e.target.value = '';
        }}
      />
      <main className="sc-main" aria-label="Editor">
        <ImportReport />
        {s.doc ? (
          <>
            <EditorHead doc={s.doc} narrow={narrow} pane={pane} setPane={setPane} />
            <AgentBar doc={s.doc} />
            <div className="sc-scroll">
              {pane === 'edit' && (
                <>
                  <PackageForm doc={s.doc} />
                  <ArtifactsEditor doc={s.doc} />
                </>
              )}
              {pane === 'history' && <HistoryPanel />}
              {pane === 'test' && <TestPanel doc={s.doc} />}
            </div>
          </>
        ) : s.loading ? (
          s.loading.error ? (
            <div className="sc-blank">
              <div className="callout callout--error">
                <Icon name="alert" />
                <p>{s.loading.error.message}</p>
              </div>
            </div>
          ) : (
            <div className="sc-blank">
              <span className="spinner" />
            </div>
          )
        ) : (
          <div className="sc-blank">
            <div className="empty">
              <span className="empty__icon">
                <Icon name="pencil" size={26} />
              </span>
              <p className="empty__title">Open a skill to edit it</p>
              <p className="empty__text">
                Pick one from the catalog, start a new one, or drop JSON packages, zips or Agent Skills
                folders here to import them.
              </p>
              <div className="sc-row">
                <button type="button" className="btn btn--primary" onClick={s.askNew}>
                  <Icon name="plus" />
                  New skill
                </button>
                <NewWithAiButton />
                <button type="button" className="btn" onClick={() => fileRef.current?.click()}>
                  <Icon name="upload" />
                  Import files
                </button>
                <button type="button" className="btn" onClick={() => folderRef.current?.click()}>
                  <Icon name="folder" />
                  Import a folder
                </button>
              </div>
            </div>
          </div>
        )}
      </main>
      {/* With nothing open the editor's empty state takes the test column too. */}
      {!narrow && s.doc && <TestPanel doc={s.doc} />}
      {dragging && (
        <div className="drop-overlay" aria-hidden="true">
          <div className="drop-overlay__box">
            <Icon name="upload" size={32} />
            <p>Drop skills to import</p>
            <span>
              .json packages, .zip files, Agent Skills folders · nothing is written if any is refused
            </span>
          </div>
        </div>
      )}
      {s.newOpen && <NewSkillDialog />}
      {newWithAi && <NewSkillWithAiDialog onClose={closeNewWithAi} />}
      {s.pending && s.doc && <LeaveDialog name={s.doc.draft.name || 'this skill'} />}
      {s.builtinAsk && s.doc && <BuiltinDialog name={s.doc.base?.name ?? s.doc.draft.name} />}
      {s.triggerAsk && s.doc && <TriggerRegressionDialog regressions={s.triggerAsk} />}
      <Notice />
      <TraceDrawer />
    </div>
  );
}
