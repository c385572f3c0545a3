/**
 * The Composer's store: the state of `composer-state.ts` plus the actions that call the API.
 * Drafts are kept per skill in local storage, so edits survive switching skills and a reload.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { AppErrorData } from '../../../electron/contract/errors.js';
import type { ArtifactKindName, SkillScope, ValidationIssue } from '../../../electron/contract/skills.js';
import type { Client } from '../../bridge/client.js';
import {
  blockingIssues,
  type CatalogFilters,
  type ComposerEvent,
  type ComposerState,
  composerReducer,
  type DocKey,
  type DraftField,
  docKey,
  type EditorDoc,
  freshName,
  type ImportReportRow,
  initialComposerState,
  isDirty,
  openDoc,
  type TemplateError,
} from './composer-state.js';
import {
  contextFor,
  type Draft,
  type DraftArtifact,
  draftFromSkill,
  draftFromTemplate,
  draftToPackage,
  isTemplate,
  TEMPLATE_INFO,
  type TemplateId,
  templateVariables,
} from './draft.js';
import { fromBase64, toBase64, zipFiles } from './files.js';

/** Where drafts are kept (`localStorage` in the app; absent in some tests). */
export interface DraftStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem?(key: string): void;
}

/** A dropped or picked file: its path relative to what was dropped (`tone/SKILL.md`), its content. */
export interface ComposerFile {
  name: string;
  text(): Promise<string>;
  /** The raw bytes (zips, binary resources); `text()` is used when absent. */
  bytes?(): Promise<Uint8Array>;
}

/** The Composer's state and actions. */
export interface ComposerStore extends ComposerState {
  dispatch(e: ComposerEvent): void;
  /** Load the catalog and restore what was open before a reload. */
  start(): Promise<void>;
  /** Follow catalog changes from other windows; returns the unsubscribe. */
  watch(): () => void;
  loadCatalog(): Promise<void>;
  setFilters(f: Partial<CatalogFilters>): void;
  /** Open a skill (asks first when the open one has unsaved edits and `force` is not set). */
  openSkill(key: DocKey, force?: boolean): Promise<void>;
  /** Open a skill with its test panel in front, ready to run (the catalog's Run). */
  openToRun(key: DocKey): Promise<void>;
  /** Bumped by {@link openToRun}: the view brings the test panel forward and focuses Run skill. */
  runTick: number;
  /** Start a new skill from a starting point. */
  newSkill(template: TemplateId): void;
  /** Ask for the new-skill chooser (asks about unsaved edits first). */
  askNew(): void;
  /** Resolve a pending leave: keep the draft, discard it, or stay. */
  resolveLeave(choice: 'keep' | 'discard' | 'cancel'): Promise<void>;
  /** Throw away the open skill's unsaved edits. */
  revert(): void;
  /** Reload the stored skill under the open one's edits (after a save refused as out of date). */
  reloadBase(): Promise<void>;
  setField(field: DraftField, value: string | boolean): void;
  setScope(scope: SkillScope): void;
  addArtifact(kind: ArtifactKindName): void;
  /** Copy a prompt template as another model variant of it. */
  addVariant(key: string): void;
  removeArtifact(key: string): void;
  moveArtifact(key: string, delta: -1 | 1): void;
  changeArtifact(key: string, patch: Partial<Omit<DraftArtifact, 'key' | 'extra'>>): void;
  selectArtifact(key: string): void;
  /** Write a bundled file of the open draft (a resource at `path`), adding it when absent. */
  setBundledFile(path: string, content: string): void;
  /** Validate the open draft now (edits schedule this, debounced). */
  validateNow(): Promise<void>;
  /**
   * Save the open draft. Edits of a built-in skill first ask (`builtinAsk`) unless `overwrite`:
   * saved in place, the built-in becomes the user's and stops receiving updates. A save that lowers
   * the skill's trigger recall or precision is held (`triggerAsk`) unless `acceptTriggers`.
   */
  save(opts?: { overwrite?: boolean; acceptTriggers?: boolean }): Promise<void>;
  /** Save the open built-in's edits as a new skill instead: a workspace copy, or an account copy under a new name. */
  saveCopy(where: SkillScope): Promise<void>;
  /** Close the built-in question without saving. */
  dismissBuiltin(): void;
  /** Keep editing: close the trigger-regression question without saving. */
  dismissTriggers(): void;
  setContext(text: string): void;
  /** Prefill the context from the selected artifact's template variables. */
  fillContext(): void;
  renderOnly(): Promise<void>;
  run(scope: 'artifact' | 'skill'): Promise<void>;
  cancelRun(): Promise<void>;
  setTab(tab: 'edit' | 'history'): Promise<void>;
  loadHistory(): Promise<void>;
  compare(from: string, to: string): Promise<void>;
  restore(version: string): Promise<void>;
  fork(): Promise<void>;
  /** Import dropped or picked files (JSON, zips, Agent Skills folders); `force` replaces a built-in or downgrades. */
  importFiles(files: ComposerFile[], opts?: { force?: boolean }): Promise<void>;
  /** Import the last files again, replacing a built-in skill or a newer version. */
  importAgainForced(): Promise<void>;
  /**
   * The open skill as a file to save: its JSON package, or its Agent Skills folder zipped (the
   * bundled files as they are stored). Null (with a notice) when it cannot be exported.
   */
  exportOpen(format: 'json' | 'agent-skill'): Promise<ExportedFile | null>;
  /** On the desktop, open the Composer in its own window (false where there are no windows). */
  popOut(): Promise<boolean>;
}

/** A file made by an export, for the view to hand to the browser's download. */
export interface ExportedFile {
  name: string;
  type: string;
  data: Uint8Array | string;
  /** What the Agent Skills form could not hold. */
  skipped: string[];
}

const DRAFT_PREFIX = 'skilldesk.composer.draft:';
const INDEX_KEY = 'skilldesk.composer.drafts';
const OPEN_KEY = 'skilldesk.composer.open';
const CONTEXT_PREFIX = 'skilldesk.composer.context:';
/** How long edits settle before they are validated and stored. */
export const VALIDATE_DELAY_MS = 300;

/** A kept draft: enough to reopen a skill with its edits. */
interface StoredDraft {
  origin: EditorDoc['origin'];
  scope: SkillScope;
  draft: Draft;
}

/** Read and write kept drafts. */
export function createDraftShelf(storage: DraftStorage | null) {
  const readIndex = (): DocKey[] => {
    try {
      const v = JSON.parse(storage?.getItem(INDEX_KEY) ?? '[]');
      return Array.isArray(v) ? v.filter((k): k is string => typeof k === 'string') : [];
    } catch {
      return [];
    }
  };
  const writeIndex = (keys: DocKey[]) => storage?.setItem(INDEX_KEY, JSON.stringify([...new Set(keys)]));
  return {
    keys: readIndex,
    get(key: DocKey): StoredDraft | null {
      try {
        const raw = storage?.getItem(DRAFT_PREFIX + key);
        if (!raw) return null;
        const v = JSON.parse(raw) as StoredDraft;
        return v && typeof v === 'object' && v.draft && Array.isArray(v.draft.artifacts) ? v : null;
      } catch {
        return null;
      }
    },
    put(key: DocKey, value: StoredDraft) {
      try {
        storage?.setItem(DRAFT_PREFIX + key, JSON.stringify(value));
        writeIndex([...readIndex(), key]);
      } catch {
        // Storage full or unavailable: the draft lives on in memory.
      }
    },
    drop(key: DocKey) {
      if (storage?.removeItem) storage.removeItem(DRAFT_PREFIX + key);
      else storage?.setItem(DRAFT_PREFIX + key, '');
      writeIndex(readIndex().filter((k) => k !== key));
    },
    /** The test context last used with a skill ('' when none). */
    context(key: DocKey): string {
      return storage?.getItem(CONTEXT_PREFIX + key) ?? '';
    },
    setContext(key: DocKey, text: string) {
      try {
        storage?.setItem(CONTEXT_PREFIX + key, text);
      } catch {
        // Not kept: the context still lives in memory.
      }
    },
    get open(): DocKey | null {
      return storage?.getItem(OPEN_KEY) || null;
    },
    set open(key: DocKey | null) {
      storage?.setItem(OPEN_KEY, key ?? '');
    },
  };
}

let runSeq = 0;

/** Create the Composer store over a client and where drafts are kept. */
export function createComposerStore(client: Client, storage: DraftStorage | null): StoreApi<ComposerStore> {
  const shelf = createDraftShelf(storage);
  let validateTimer: ReturnType<typeof setTimeout> | null = null;
  // The files of the last import, offered again with force when a built-in or newer one refused them.
  let lastImport: ComposerFile[] = [];

  return createStore<ComposerStore>()((set, get) => {
    const dispatch = (e: ComposerEvent) => set((s) => composerReducer(s, e));

    /** Keep the open draft (or drop it when it matches what is saved) and re-validate soon. */
    const afterEdit = () => {
      const doc = openDoc(get());
      if (doc) {
        if (isDirty(doc)) shelf.put(doc.key, { origin: doc.origin, scope: doc.scope, draft: doc.draft });
        else shelf.drop(doc.key);
      }
      if (validateTimer) clearTimeout(validateTimer);
      validateTimer = setTimeout(() => void get().validateNow(), VALIDATE_DELAY_MS);
    };
    const edit = (e: ComposerEvent) => {
      dispatch(e);
      afterEdit();
    };
    const focus = (key: DocKey) => {
      shelf.open = key;
      dispatch({ type: 'doc/focused', key });
      void get().validateNow();
    };

    /** Open a doc now (no question asked). */
    const openNow = async (key: DocKey) => {
      if (get().docs[key]) return focus(key);
      const stored = shelf.get(key);
      if (key.startsWith('new:')) {
        if (!stored) return;
        dispatch({ type: 'doc/loading', key });
        dispatch({
          type: 'doc/opened',
          doc: {
            key,
            origin: null,
            scope: stored.scope,
            base: null,
            draft: stored.draft,
            context: shelf.context(key),
          },
        });
        shelf.open = key;
        void get().validateNow();
        return;
      }
      const i = key.indexOf(':');
      const scope = key.slice(0, i) as SkillScope;
      const name = key.slice(i + 1);
      dispatch({ type: 'doc/loading', key });
      const [r, versions] = await Promise.all([
        client.call('skills/get', { name, scope }),
        client.call('skills/versions', { name, scope }),
      ]);
      if (!r.ok) {
        dispatch({ type: 'doc/load-failed', key, error: r.error });
        return;
      }
      const base = draftFromSkill(r.value.skill);
      const baseHash = versions.ok ? (versions.value.current?.content_hash ?? null) : null;
      dispatch({
        type: 'doc/opened',
        doc: {
          key,
          origin: { name, scope },
          scope,
          base,
          draft: stored?.draft ?? base,
          // The context of the last run, else one prefilled from the templates' variables.
          context: shelf.context(key) || prefill(stored?.draft ?? base),
          baseHash,
        },
      });
      shelf.open = key;
      void get().validateNow();
    };

    const leaveOrAsk = (pending: ComposerState['pending']): boolean => {
      const doc = openDoc(get());
      if (doc && isDirty(doc) && pending) {
        dispatch({ type: 'leave/asked', pending });
        return false;
      }
      return true;
    };

    const reloadOpenBase = async () => {
      const doc = openDoc(get());
      if (!doc?.origin) return;
      const [r, versions] = await Promise.all([
        client.call('skills/get', { name: doc.origin.name, scope: doc.origin.scope }),
        client.call('skills/versions', { name: doc.origin.name, scope: doc.origin.scope }),
      ]);
      if (!r.ok) return;
      const wasDirty = isDirty(doc);
      const base = draftFromSkill(r.value.skill);
      const baseHash = versions.ok ? (versions.value.current?.content_hash ?? null) : null;
      const fresh: EditorDoc = { ...doc, base, draft: wasDirty ? doc.draft : base, baseHash };
      dispatch({ type: 'doc/opened', doc: fresh });
      if (!wasDirty) shelf.drop(doc.key);
    };

    return {
      ...initialComposerState(),
      dispatch,

      async start() {
        await get().loadCatalog();
        const last = shelf.open;
        if (last && !get().open) await openNow(last);
      },

      watch() {
        return client.subscribe('skills/catalog-changed', () => void get().loadCatalog());
      },

      async loadCatalog() {
        dispatch({ type: 'catalog/requested' });
        const [list, info] = await Promise.all([client.call('skills/list', {}), client.call('app/info', {})]);
        if (!list.ok) return dispatch({ type: 'catalog/failed', error: list.error });
        dispatch({
          type: 'catalog/loaded',
          items: list.value.skills,
          workspaceOpen: info.ok ? info.value.workspace !== null : undefined,
          desktop: info.ok ? info.value.mode === 'electron' : undefined,
        });
      },

      setFilters: (filters) => dispatch({ type: 'filters/changed', filters }),

      runTick: 0,
      async openToRun(key) {
        await get().openSkill(key);
        if (get().open === key) set({ runTick: get().runTick + 1 });
      },

      async openSkill(key, force = false) {
        if (get().open === key) return;
        if (!force && !leaveOrAsk({ to: 'open', key })) return;
        await openNow(key);
      },

      askNew() {
        if (!leaveOrAsk({ to: 'new' })) return;
        dispatch({ type: 'new/toggled', open: true });
      },

      newSkill(template) {
        const s = get();
        const name = freshName(
          s,
          template === 'blank' ? 'New skill' : `My ${TEMPLATE_INFO[template].title.toLowerCase()}`,
        );
        const draft = draftFromTemplate(template, name);
        const key = `new:${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
        const scope: SkillScope = s.workspaceOpen ? 'workspace' : 'account';
        dispatch({ type: 'doc/loading', key });
        const vars = draft.artifacts.flatMap((a) =>
          a.kind === 'prompt_template' || a.kind === 'code_template' ? templateVariables(a.content) : [],
        );
        dispatch({
          type: 'doc/opened',
          doc: { key, origin: null, scope, base: null, draft, context: contextFor(vars) },
        });
        shelf.put(key, { origin: null, scope, draft });
        shelf.open = key;
        void get().validateNow();
      },

      async resolveLeave(choice) {
        const pending = get().pending;
        if (!pending || choice === 'cancel') return dispatch({ type: 'leave/cancelled' });
        const doc = openDoc(get());
        if (choice === 'discard' && doc) {
          shelf.drop(doc.key);
          if (doc.base) dispatch({ type: 'draft/replaced', draft: doc.base });
          else dispatch({ type: 'doc/discarded', key: doc.key });
        }
        dispatch({ type: 'leave/cancelled' });
        if (pending.to === 'new') dispatch({ type: 'new/toggled', open: true });
        else await openNow(pending.key);
      },

      revert() {
        const doc = openDoc(get());
        if (!doc) return;
        shelf.drop(doc.key);
        if (doc.base) {
          dispatch({ type: 'draft/replaced', draft: doc.base });
          void get().validateNow();
        } else {
          dispatch({ type: 'doc/discarded', key: doc.key });
          shelf.open = null;
        }
      },

      async reloadBase() {
        await reloadOpenBase();
        dispatch({ type: 'save/failed', error: null });
        afterEdit();
      },

      setField: (field, value) => edit({ type: 'draft/field', field, value }),
      setScope: (scope) => {
        dispatch({ type: 'doc/scope', scope });
        afterEdit();
      },
      addArtifact: (kind) => edit({ type: 'artifact/added', kind }),
      addVariant: (key) => edit({ type: 'artifact/variant-added', key }),
      removeArtifact: (key) => edit({ type: 'artifact/removed', key }),
      moveArtifact: (key, delta) => edit({ type: 'artifact/moved', key, delta }),
      changeArtifact: (key, patch) => edit({ type: 'artifact/changed', key, patch }),
      selectArtifact: (key) => dispatch({ type: 'artifact/selected', key }),
      setBundledFile: (path, content) => edit({ type: 'artifact/file-set', path, content }),

      async validateNow() {
        if (validateTimer) {
          clearTimeout(validateTimer);
          validateTimer = null;
        }
        const s = get();
        const doc = openDoc(s);
        if (!doc) return;
        const seq = s.validation.seq;
        dispatch({ type: 'validation/started', seq });
        const { pkg, issues: local } = draftToPackage(doc.draft);
        const templates = doc.draft.artifacts.filter(isTemplate);
        const [pkgRes, ...tplRes] = await Promise.all([
          client.call('skills/validate', { kind: 'package', package: pkg }),
          ...templates.map((a) =>
            client.call('skills/validate', { kind: 'template', source: a.content, name: a.name }),
          ),
        ]);
        const issues: ValidationIssue[] = [...local];
        if (pkgRes?.ok && !pkgRes.value.ok) {
          // A metadata field that is not JSON was left out of the package: its own issue says so.
          issues.push(...pkgRes.value.issues.filter((i) => !local.some((l) => i.path.startsWith(l.path))));
        } else if (pkgRes && !pkgRes.ok) {
          issues.push({ path: '(package)', message: pkgRes.error.message });
        }
        const warnings = pkgRes?.ok && pkgRes.value.ok ? (pkgRes.value.warnings ?? []) : [];
        const tplErrors: Record<string, TemplateError> = {};
        const variables: Record<string, string[]> = {};
        tplRes.forEach((r, i) => {
          const a = templates[i]!;
          if (r.ok && r.value.ok && r.value.variables) variables[a.key] = r.value.variables;
          if (r.ok && !r.value.ok) {
            tplErrors[a.key] = {
              message: r.value.message,
              ...(r.value.line != null ? { line: r.value.line } : {}),
              ...(r.value.column != null ? { column: r.value.column } : {}),
            };
          }
        });
        dispatch({ type: 'validation/finished', seq, issues, templates: tplErrors, warnings, variables });
      },

      async save(opts) {
        await get().validateNow();
        const s = get();
        const doc = openDoc(s);
        if (!doc || s.saving.busy) return;
        if (doc.origin && doc.base?.source === 'system' && !opts?.overwrite) {
          dispatch({ type: 'builtin/asked' });
          return;
        }
        if (s.builtinAsk) dispatch({ type: 'builtin/dismissed' });
        if (blockingIssues(s).length > 0) {
          dispatch({
            type: 'save/failed',
            error: { code: 'INVALID_INPUT', message: 'Fix the problems marked in red before saving.' },
          });
          return;
        }
        dispatch({ type: 'save/started' });
        const { pkg } = draftToPackage(doc.draft);
        // The id stays, so a renamed skill is renamed in place rather than copied.
        const r = await client.call('skills/save-package', {
          package: pkg,
          scope: doc.scope,
          ...(doc.origin && doc.baseHash ? { expected_hash: doc.baseHash } : {}),
          ...(opts?.acceptTriggers ? { accept_trigger_regression: true } : {}),
        });
        if (!r.ok) return dispatch({ type: 'save/failed', error: r.error });
        const outcome = r.value.saved;
        if (!outcome)
          return dispatch({ type: 'triggers/regressed', regressions: r.value.trigger_regression ?? [] });
        const { name, scope } = outcome;
        const key = docKey({ scope, name });
        const saved = await client.call('skills/get', { name, scope });
        const base = saved.ok ? draftFromSkill(saved.value.skill) : doc.draft;
        // Keep the artifact keys the editor already has, so the selection and editors stay put.
        const keyed: Draft = {
          ...base,
          artifacts: base.artifacts.map((a, i) => ({ ...a, key: doc.draft.artifacts[i]?.key ?? a.key })),
        };
        shelf.drop(doc.key);
        shelf.open = key;
        dispatch({
          type: 'save/succeeded',
          oldKey: doc.key,
          doc: {
            key,
            origin: { name, scope },
            scope,
            base: keyed,
            draft: keyed,
            context: doc.context,
            baseHash: outcome.content_hash,
          },
          text:
            outcome.action === 'unchanged'
              ? `${name} is unchanged.`
              : `Saved ${name} ${outcome.version} to the ${scope} store.`,
        });
        void get().loadCatalog();
        if (get().tab === 'history') await get().loadHistory();
      },

      async saveCopy(where) {
        const s = get();
        const doc = openDoc(s);
        if (!doc) return;
        // A copy is a new skill: without the built-in's id (a save by id would edit the built-in), and
        // in the account under a name of its own (the same name would replace the built-in there).
        const { id: _id, ...extra } = doc.draft.extra;
        const name = where === 'account' ? freshName(s, `${doc.draft.name} (my copy)`) : doc.draft.name;
        const source = doc.draft.source === 'system' ? 'user' : doc.draft.source;
        dispatch({ type: 'doc/copied', draft: { ...doc.draft, name, source, extra }, scope: where });
        await get().save();
      },

      dismissBuiltin: () => dispatch({ type: 'builtin/dismissed' }),

      dismissTriggers: () => dispatch({ type: 'triggers/dismissed' }),

      setContext: (text) => dispatch({ type: 'context/changed', text }),

      fillContext() {
        const s = get();
        const doc = openDoc(s);
        if (!doc) return;
        let prev: Record<string, unknown> = {};
        try {
          const v = JSON.parse(doc.context || '{}');
          if (v && typeof v === 'object' && !Array.isArray(v)) prev = v;
        } catch {
          prev = {};
        }
        const sel = doc.draft.artifacts.find((a) => a.key === s.selected);
        const sources = sel ? [sel] : doc.draft.artifacts;
        // The server's MiniJinja knows best; the lexical guess covers a template not checked yet.
        const vars = sources.flatMap((a) =>
          isTemplate(a) ? (s.validation.variables[a.key] ?? templateVariables(a.content)) : [],
        );
        dispatch({ type: 'context/changed', text: contextFor([...new Set(vars)], prev) });
      },

      async renderOnly() {
        const s = get();
        const doc = openDoc(s);
        const a = doc?.draft.artifacts.find((x) => x.key === s.selected);
        if (!doc || !a) return;
        const ctx = parseContext(doc.context);
        if (!ctx.ok) return dispatch({ type: 'render/failed', error: ctx.error });
        shelf.setContext(doc.key, doc.context);
        dispatch({ type: 'render/started' });
        const r = await client.call('skills/render', { source: a.content, name: a.name, context: ctx.value });
        if (r.ok) dispatch({ type: 'render/finished', rendered: r.value.rendered });
        else dispatch({ type: 'render/failed', error: r.error });
      },

      async run(what) {
        const s = get();
        const doc = openDoc(s);
        if (!doc) return;
        const ctx = parseContext(doc.context);
        if (!ctx.ok) return dispatch({ type: 'render/failed', error: ctx.error });
        shelf.setContext(doc.key, doc.context);
        const sel = doc.draft.artifacts.find((x) => x.key === s.selected);
        // What the user sees is what runs: an edited or unsaved skill runs as its draft (validated
        // by the main process, never saved); an unedited one runs the stored version.
        const draft = isDirty(doc) ? draftToPackage(doc.draft) : null;
        if (draft && draft.issues.length > 0) {
          const first = draft.issues[0]!;
          return dispatch({
            type: 'render/failed',
            error: {
              code: 'INVALID_INPUT',
              message: `${first.path} ${first.message}; fix it to run the draft`,
            },
          });
        }
        runSeq += 1;
        const runId = `composer-${Date.now().toString(36)}-${runSeq}`;
        const version = (doc.draft.version.trim() || doc.base?.version) ?? '';
        dispatch({
          type: 'run/started',
          runId,
          ran: draft ? { what: 'draft', version } : { what: 'saved', version: doc.base?.version ?? version },
        });
        const off = client.subscribe('skills/artifact-ran', (ev) => {
          if (ev.run_id !== runId) return;
          dispatch({ type: 'run/result', runId, result: ev.result });
          void client.call('traces/get', { id: ev.result.trace_id }).then((t) => {
            if (t.ok)
              dispatch({
                type: 'run/trace',
                runId,
                traceId: ev.result.trace_id,
                renderedInput: t.value.trace.rendered_input,
              });
          });
        });
        try {
          const r = await client.call('skills/run', {
            ...(draft
              ? { name: doc.draft.name, scope: doc.origin?.scope ?? doc.scope, package: draft.pkg }
              : { name: doc.origin?.name ?? doc.draft.name, scope: doc.origin?.scope ?? doc.scope }),
            ...(what === 'artifact' && sel ? { artifact: sel.name } : {}),
            context: ctx.value,
            session_id: 'composer',
            run_id: runId,
          });
          if (r.ok) dispatch({ type: 'run/finished', runId, results: r.value.results });
          else dispatch({ type: 'run/failed', runId, error: r.error });
        } finally {
          off();
        }
        // Read the rendered input of results the events did not bring.
        for (const res of get().test.results) {
          if (res.rendered_input !== undefined || get().test.runId !== runId) continue;
          const t = await client.call('traces/get', { id: res.trace_id });
          if (t.ok)
            dispatch({
              type: 'run/trace',
              runId,
              traceId: res.trace_id,
              renderedInput: t.value.trace.rendered_input,
            });
        }
      },

      async cancelRun() {
        const runId = get().test.runId;
        if (!runId || get().test.status !== 'running') return;
        await client.call('skills/cancel-run', { run_id: runId });
      },

      async setTab(tab) {
        dispatch({ type: 'tab/changed', tab });
        if (tab === 'history') await get().loadHistory();
      },

      async loadHistory() {
        const doc = openDoc(get());
        if (!doc?.origin) return;
        dispatch({ type: 'history/requested' });
        const r = await client.call('skills/versions', { name: doc.origin.name, scope: doc.origin.scope });
        if (!r.ok) return dispatch({ type: 'history/failed', error: r.error });
        dispatch({ type: 'history/loaded', data: r.value });
        const { from, to } = get().history;
        if (from && to) await get().compare(from, to);
      },

      async compare(from, to) {
        const doc = openDoc(get());
        if (!doc?.origin) return;
        dispatch({ type: 'history/compare', from, to });
        const r = await client.call('skills/diff-versions', {
          name: doc.origin.name,
          scope: doc.origin.scope,
          from,
          to,
        });
        if (r.ok) dispatch({ type: 'diff/loaded', from, to, diff: r.value });
        else dispatch({ type: 'diff/failed', error: r.error });
      },

      async restore(version) {
        const doc = openDoc(get());
        if (!doc?.origin) return;
        // A restore is saved as the new current version; unsaved edits stay in the editor, over it.
        const keptEdits = isDirty(doc);
        dispatch({ type: 'restore/started' });
        const r = await client.call('skills/restore-version', {
          name: doc.origin.name,
          scope: doc.origin.scope,
          version,
        });
        if (!r.ok) return dispatch({ type: 'restore/failed', error: r.error });
        const done = `Restored ${r.value.restored.name} ${r.value.restored.version} (from version #${r.value.restored.from_number}) and saved it.`;
        dispatch({
          type: 'restore/finished',
          text: keptEdits
            ? `${done} Your unsaved edits are still in the editor, over it: Revert to see the restored version.`
            : done,
        });
        await reloadOpenBase();
        void get().loadCatalog();
        dispatch({ type: 'tab/changed', tab: 'history' });
        await get().loadHistory();
      },

      async fork() {
        const doc = openDoc(get());
        if (doc?.origin?.scope !== 'account') return;
        const origin = doc.origin;
        const r = await client.call('skills/fork', { name: origin.name, to: 'workspace' });
        if (!r.ok) return dispatch({ type: 'notice/shown', tone: 'error', text: r.error.message });
        dispatch({
          type: 'notice/shown',
          tone: 'success',
          text: `${r.value.forked.name} now has a workspace copy.`,
        });
        await get().loadCatalog();
        await get().openSkill(docKey({ scope: 'workspace', name: r.value.forked.name }));
      },

      async popOut() {
        const r = await client.call('app/open-window', { window: 'composer' });
        if (!r.ok) dispatch({ type: 'notice/shown', tone: 'error', text: r.error.message });
        return r.ok && r.value.opened;
      },

      async exportOpen(format) {
        const doc = openDoc(get());
        if (!doc?.origin) return null;
        const { name, scope } = doc.origin;
        if (format === 'json') {
          const r = await client.call('skills/export-package', { name, scope });
          if (!r.ok) {
            dispatch({ type: 'notice/shown', tone: 'error', text: r.error.message });
            return null;
          }
          return { name: r.value.file_name, type: 'application/json', data: r.value.text, skipped: [] };
        }
        const r = await client.call('skills/export-agent-skill', { name, scope });
        if (!r.ok) {
          dispatch({ type: 'notice/shown', tone: 'error', text: r.error.message });
          return null;
        }
        const zip = zipFiles(
          r.value.files.map((f) => ({
            path: `${r.value.slug}/${f.path}`,
            bytes: fromBase64(f.data_base64),
            executable: f.executable === true,
          })),
        );
        return { name: `${r.value.slug}.zip`, type: 'application/zip', data: zip, skipped: r.value.skipped };
      },

      async importAgainForced() {
        await get().importFiles(lastImport, { force: true });
      },

      async importFiles(files, opts = {}) {
        if (files.length === 0) return;
        lastImport = files;
        dispatch({ type: 'import/started' });
        const rows: ImportReportRow[] = [];
        const payload: Array<{ path: string; data_base64: string }> = [];
        for (const f of files) {
          try {
            const bytes = f.bytes ? await f.bytes() : new TextEncoder().encode(await f.text());
            payload.push({ path: f.name, data_base64: toBase64(bytes) });
          } catch (e) {
            rows.push({
              file: f.name,
              name: null,
              outcome: 'refused',
              detail: `could not be read (${(e as Error).message})`,
              issues: [],
            });
          }
        }
        if (rows.length > 0 || payload.length === 0) return dispatch({ type: 'import/finished', rows });
        const r = await client.call('skills/import-files', {
          files: payload,
          ...(opts.force ? { force: true } : {}),
        });
        if (!r.ok) {
          // The request itself was refused (too many or too large files): nothing was read.
          return dispatch({
            type: 'import/finished',
            rows: files.map((f) => ({
              file: f.name,
              name: null,
              outcome: 'refused' as const,
              detail: r.error.message,
              issues: [],
            })),
          });
        }
        for (const p of r.value.packages) {
          rows.push({
            file: p.source,
            name: p.name,
            outcome: p.outcome === 'not_imported' ? 'not-imported' : p.outcome,
            detail:
              p.outcome === 'updated'
                ? `${p.previous_version ?? '?'} → ${p.version} in the ${r.value.scope} store${
                    p.changed && p.changed.length > 0 ? `; changed: ${p.changed.join(', ')}` : ''
                  }`
                : p.outcome === 'created' || p.outcome === 'unchanged'
                  ? `${p.version} in the ${r.value.scope} store`
                  : (p.reason ?? ''),
            issues: p.issues,
            warnings: p.warnings,
          });
        }
        if (r.value.written) void get().loadCatalog();
        dispatch({ type: 'import/finished', rows });
      },
    };
  });
}

/** A test context with an empty value for each variable the draft's templates read. */
function prefill(d: Draft): string {
  const vars = d.artifacts.flatMap((a) => (isTemplate(a) ? templateVariables(a.content) : []));
  return vars.length > 0 ? contextFor([...new Set(vars)]) : '';
}

function parseContext(
  text: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; error: AppErrorData } {
  if (!text.trim()) return { ok: true, value: {} };
  try {
    const v: unknown = JSON.parse(text);
    if (v && typeof v === 'object' && !Array.isArray(v))
      return { ok: true, value: v as Record<string, unknown> };
    return {
      ok: false,
      error: {
        code: 'INVALID_INPUT',
        message: 'The context must be a JSON object such as {"topic": "tea"}.',
      },
    };
  } catch (e) {
    return {
      ok: false,
      error: { code: 'INVALID_INPUT', message: `The context is not valid JSON: ${(e as Error).message}` },
    };
  }
}
