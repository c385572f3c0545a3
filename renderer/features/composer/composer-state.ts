/**
 * The Composer's state and its pure transitions `(state, event) → state`, tested without React
 * or a server. The store (`composer-store.ts`) does the calls and dispatches these events.
 */

import type { AppErrorData } from '../../../electron/contract/errors.js';
import { ARTIFACT_KINDS, BUNDLED_FILE_KIND, KIND_FACTS } from '../../../electron/contract/kinds.js';
import type {
  ArtifactKindName,
  ArtifactRunView,
  DiffVersionsRes,
  SkillListItem,
  SkillScope,
  SkillVersionsRes,
  TriggerRegressionView,
  ValidationIssue,
} from '../../../electron/contract/skills.js';
import { type CatalogFilterValues, filterCatalog } from '../skills/catalog-filter.js';
import {
  blankArtifact,
  type Draft,
  type DraftArtifact,
  draftToPackage,
  newArtifactKey,
  sameDraft,
} from './draft.js';

/** One open skill: `account:Name`, `workspace:Name`, or `new:…` for one never saved. */
export type DocKey = string;

/** The key of a stored skill. */
export function docKey(s: { scope: SkillScope; name: string }): DocKey {
  return `${s.scope}:${s.name}`;
}

/** A skill being edited: what was loaded (or last saved) and the edits on top. */
export interface EditorDoc {
  key: DocKey;
  /** The stored skill it edits; null until a new skill is first saved. */
  origin: { name: string; scope: SkillScope } | null;
  /** Where a save writes. */
  scope: SkillScope;
  /** As loaded or last saved; null for a new skill. */
  base: Draft | null;
  draft: Draft;
  /** The test context as JSON text (kept per skill while the page lives). */
  context: string;
  /** The stored skill's content hash when loaded or saved: a save is refused if it changed since. */
  baseHash?: string | null;
}

/** A template's syntax error, at a line and column when MiniJinja gives them. */
export interface TemplateError {
  message: string;
  line?: number;
  column?: number;
}

/** What happened to one package of an import. */
export interface ImportReportRow {
  file: string;
  name: string | null;
  outcome: 'created' | 'updated' | 'unchanged' | 'refused' | 'not-imported';
  detail: string;
  issues: ValidationIssue[];
  /** What did not stop the import (an Agent Skills name off the standard …). */
  warnings?: ValidationIssue[];
}

/** What a test run ran: the draft (unsaved edits included) or a saved version. */
export type RanLabel = { what: 'draft'; version: string } | { what: 'saved'; version: string };

/** The words a result is labelled with: "draft" or "version 1.0.2". */
export function ranText(r: RanLabel): string {
  return r.what === 'draft' ? 'draft' : `version ${r.version}`;
}

/** One artifact's run, with the rendered input read back from its trace. */
export interface RunResult extends ArtifactRunView {
  rendered_input?: string | null;
}

/** Which catalog rows show (the Skills view's filters). */
export type CatalogFilters = CatalogFilterValues;

/** Something that leaves the open skill, waiting for the user to say what to do with its edits. */
export type PendingLeave = { to: 'open'; key: DocKey } | { to: 'new' };

/** The Composer's state. */
export interface ComposerState {
  catalog: {
    status: 'idle' | 'loading' | 'ready' | 'error';
    items: SkillListItem[];
    error: AppErrorData | null;
  };
  filters: CatalogFilters;
  workspaceOpen: boolean;
  /** The desktop app, where the Composer can have its own window. */
  desktop: boolean;
  open: DocKey | null;
  loading: { key: DocKey; error: AppErrorData | null } | null;
  docs: Record<DocKey, EditorDoc>;
  /** The selected artifact's key in the open skill. */
  selected: string | null;
  tab: 'edit' | 'history';
  validation: {
    /** Bumped on every edit: a reply for an older one is dropped. */
    seq: number;
    checking: boolean;
    issues: ValidationIssue[];
    templates: Record<string, TemplateError>;
    /** Problems that do not block a save (JSON paths), from the server. */
    warnings: ValidationIssue[];
    /** The variables each template reads (by artifact key), from the server's MiniJinja. */
    variables: Record<string, string[]>;
  };
  saving: { busy: boolean; error: AppErrorData | null };
  test: {
    status: 'idle' | 'rendering' | 'running' | 'done' | 'failed' | 'cancelled';
    runId: string | null;
    rendered: string | null;
    results: RunResult[];
    error: AppErrorData | null;
    /** What the last run ran: the draft as edited, or the saved version. */
    ran: RanLabel | null;
  };
  history: {
    status: 'idle' | 'loading' | 'ready' | 'error';
    data: SkillVersionsRes | null;
    from: string | null;
    to: string | null;
    diff: DiffVersionsRes | null;
    diffStatus: 'idle' | 'loading' | 'ready' | 'error';
    error: AppErrorData | null;
    restoring: boolean;
  };
  pending: PendingLeave | null;
  /** Saving edits of a built-in skill waits for the user to choose: a copy, or the built-in itself. */
  builtinAsk: boolean;
  /** A save held back because it lowers the skill's trigger rates: shown, and saved only if confirmed. */
  triggerAsk: TriggerRegressionView[] | null;
  newOpen: boolean;
  imports: { busy: boolean; rows: ImportReportRow[] | null };
  notice: { tone: 'success' | 'error'; text: string } | null;
}

/** Everything that changes the Composer state. */
export type ComposerEvent =
  | { type: 'catalog/requested' }
  | { type: 'catalog/loaded'; items: SkillListItem[]; workspaceOpen?: boolean; desktop?: boolean }
  | { type: 'catalog/failed'; error: AppErrorData }
  | { type: 'filters/changed'; filters: Partial<CatalogFilters> }
  | { type: 'doc/loading'; key: DocKey }
  | { type: 'doc/load-failed'; key: DocKey; error: AppErrorData }
  | { type: 'doc/opened'; doc: EditorDoc }
  | { type: 'doc/focused'; key: DocKey }
  | { type: 'doc/closed' }
  | { type: 'doc/discarded'; key: DocKey }
  | { type: 'doc/scope'; scope: SkillScope }
  | { type: 'draft/field'; field: DraftField; value: string | boolean }
  | { type: 'draft/replaced'; draft: Draft }
  | { type: 'artifact/added'; kind: ArtifactKindName }
  | { type: 'artifact/variant-added'; key: string }
  | { type: 'artifact/removed'; key: string }
  | { type: 'artifact/moved'; key: string; delta: -1 | 1 }
  | { type: 'artifact/changed'; key: string; patch: Partial<Omit<DraftArtifact, 'key' | 'extra'>> }
  | { type: 'artifact/selected'; key: string }
  | { type: 'artifact/file-set'; path: string; content: string }
  | { type: 'tab/changed'; tab: 'edit' | 'history' }
  | { type: 'validation/started'; seq: number }
  | {
      type: 'validation/finished';
      seq: number;
      issues: ValidationIssue[];
      templates: Record<string, TemplateError>;
      warnings?: ValidationIssue[];
      variables?: Record<string, string[]>;
    }
  | { type: 'save/started' }
  | { type: 'save/succeeded'; oldKey: DocKey; doc: EditorDoc; text: string }
  | { type: 'save/failed'; error: AppErrorData | null }
  | { type: 'context/changed'; text: string }
  | { type: 'render/started' }
  | { type: 'render/finished'; rendered: string }
  | { type: 'render/failed'; error: AppErrorData }
  | { type: 'run/started'; runId: string; ran?: RanLabel }
  | { type: 'run/result'; runId: string; result: RunResult }
  | { type: 'run/trace'; runId: string; traceId: string; renderedInput: string | null }
  | { type: 'run/finished'; runId: string; results: ArtifactRunView[] }
  | { type: 'run/failed'; runId: string; error: AppErrorData }
  | { type: 'history/requested' }
  | { type: 'history/loaded'; data: SkillVersionsRes }
  | { type: 'history/failed'; error: AppErrorData }
  | { type: 'history/compare'; from: string; to: string }
  | { type: 'diff/loaded'; from: string; to: string; diff: DiffVersionsRes }
  | { type: 'diff/failed'; error: AppErrorData }
  | { type: 'restore/started' }
  | { type: 'restore/finished'; text: string }
  | { type: 'restore/failed'; error: AppErrorData }
  | { type: 'leave/asked'; pending: PendingLeave }
  | { type: 'leave/cancelled' }
  | { type: 'builtin/asked' }
  | { type: 'builtin/dismissed' }
  | { type: 'triggers/regressed'; regressions: TriggerRegressionView[] }
  | { type: 'triggers/dismissed' }
  /** The open built-in's edits become a new skill (`scope`), leaving the built-in as shipped. */
  | { type: 'doc/copied'; draft: Draft; scope: SkillScope }
  | { type: 'new/toggled'; open: boolean }
  | { type: 'import/started' }
  | { type: 'import/finished'; rows: ImportReportRow[] }
  | { type: 'import/dismissed' }
  | { type: 'notice/shown'; tone: 'success' | 'error'; text: string }
  | { type: 'notice/dismissed' };

/** The package fields the form edits as text or a switch. */
export type DraftField = Exclude<keyof Draft, 'artifacts' | 'extra'>;

/** A fresh Composer. */
export function initialComposerState(): ComposerState {
  return {
    catalog: { status: 'idle', items: [], error: null },
    filters: { query: '', scope: 'all', source: 'all', kind: null },
    workspaceOpen: false,
    desktop: false,
    open: null,
    loading: null,
    docs: {},
    selected: null,
    tab: 'edit',
    validation: { seq: 0, checking: false, issues: [], templates: {}, warnings: [], variables: {} },
    saving: { busy: false, error: null },
    test: { status: 'idle', runId: null, rendered: null, results: [], error: null, ran: null },
    history: {
      status: 'idle',
      data: null,
      from: null,
      to: null,
      diff: null,
      diffStatus: 'idle',
      error: null,
      restoring: false,
    },
    pending: null,
    builtinAsk: false,
    triggerAsk: null,
    newOpen: false,
    imports: { busy: false, rows: null },
    notice: null,
  };
}

/** Whether a skill has edits that are not saved (a new skill always has). */
export function isDirty(doc: EditorDoc | undefined): boolean {
  if (!doc) return false;
  return doc.base === null || !sameDraft(doc.base, doc.draft);
}

/** The open skill, if any. */
export function openDoc(s: Pick<ComposerState, 'open' | 'docs'>): EditorDoc | null {
  return s.open ? (s.docs[s.open] ?? null) : null;
}

/** Every problem that blocks a save: schema issues, bad metadata JSON, template syntax errors. */
export function blockingIssues(s: ComposerState): ValidationIssue[] {
  const doc = openDoc(s);
  if (!doc) return [];
  const local = draftToPackage(doc.draft).issues;
  const templates = doc.draft.artifacts.flatMap((a, i) => {
    const t = s.validation.templates[a.key];
    return t ? [{ path: `artifacts[${i}].content`, message: templateMessage(t) }] : [];
  });
  const seen = new Set(local.map((i) => `${i.path}\u0000${i.message}`));
  return [
    ...local,
    ...s.validation.issues.filter((i) => !seen.has(`${i.path}\u0000${i.message}`)),
    ...templates,
  ];
}

/** A template error as one line. */
export function templateMessage(t: TemplateError): string {
  // MiniJinja says "template syntax error: syntax error: … at line 2, column 38": say it once.
  const msg = t.message
    .replace(/^template syntax error:\s*(?:syntax error:\s*)?/i, '')
    .replace(/\s+at line \d+, column \d+\s*$/, '')
    .replace(/\s+\(in [^)]*\)\s*$/, '');
  return t.line != null ? `Line ${t.line}${t.column != null ? `, column ${t.column}` : ''}: ${msg}` : msg;
}

/** The catalog rows the filters let through (the same filter as the Skills view's). */
export function visibleRows(s: Pick<ComposerState, 'catalog' | 'filters'>): SkillListItem[] {
  return filterCatalog(s.catalog.items, s.filters);
}

/** A name no catalog row or open draft has yet: `base`, else `base 2`, `base 3`… */
export function freshName(s: Pick<ComposerState, 'catalog' | 'docs'>, base: string): string {
  const taken = new Set([
    ...s.catalog.items.map((i) => i.name.toLowerCase()),
    ...Object.values(s.docs).map((d) => d.draft.name.toLowerCase()),
  ]);
  if (!taken.has(base.toLowerCase())) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base} ${n}`.toLowerCase())) return `${base} ${n}`;
}

const idleTest = (): ComposerState['test'] => initialComposerState().test;
const idleHistory = (): ComposerState['history'] => initialComposerState().history;

/** Apply an edit to the open skill's draft (and bump the validation sequence). */
function editDraft(s: ComposerState, edit: (d: Draft) => Draft, selected = s.selected): ComposerState {
  const doc = openDoc(s);
  if (!doc) return s;
  const draft = edit(doc.draft);
  if (draft === doc.draft) return s;
  return {
    ...s,
    selected,
    docs: { ...s.docs, [doc.key]: { ...doc, draft } },
    validation: { ...s.validation, seq: s.validation.seq + 1 },
    saving: { ...s.saving, error: null },
  };
}

/** A resource artifact's path in the skill's folder: its metadata `path`, else its name. */
export function bundledPath(a: DraftArtifact): string {
  try {
    const m = a.metadata ? (JSON.parse(a.metadata) as { path?: unknown }) : null;
    if (m && typeof m.path === 'string') return m.path;
  } catch {
    // Metadata that is not JSON is the form's own issue; the name still says where it goes.
  }
  return a.name;
}

/** Switch the editor to a skill: its first artifact selected, validation and panels reset. */
function focusDoc(s: ComposerState, key: DocKey): ComposerState {
  const doc = s.docs[key];
  const keepSelection = doc?.draft.artifacts.some((a) => a.key === s.selected) ?? false;
  return {
    ...s,
    open: key,
    loading: null,
    pending: null,
    builtinAsk: false,
    triggerAsk: null,
    newOpen: false,
    selected: keepSelection ? s.selected : (doc?.draft.artifacts[0]?.key ?? null),
    validation: {
      seq: s.validation.seq + 1,
      checking: false,
      issues: [],
      templates: {},
      warnings: [],
      variables: {},
    },
    saving: { busy: false, error: null },
    test: idleTest(),
    history: idleHistory(),
    tab: s.open === key ? s.tab : 'edit',
  };
}

/** The Composer state machine. */
export function composerReducer(s: ComposerState, e: ComposerEvent): ComposerState {
  switch (e.type) {
    case 'catalog/requested':
      return { ...s, catalog: { ...s.catalog, status: s.catalog.status === 'ready' ? 'ready' : 'loading' } };
    case 'catalog/loaded':
      return {
        ...s,
        catalog: { status: 'ready', items: e.items, error: null },
        workspaceOpen: e.workspaceOpen ?? s.workspaceOpen,
        desktop: e.desktop ?? s.desktop,
      };
    case 'catalog/failed':
      return { ...s, catalog: { ...s.catalog, status: 'error', error: e.error } };
    case 'filters/changed':
      return { ...s, filters: { ...s.filters, ...e.filters } };
    case 'doc/loading':
      return { ...s, loading: { key: e.key, error: null }, pending: null, newOpen: false };
    case 'doc/load-failed':
      return s.loading?.key === e.key ? { ...s, loading: { key: e.key, error: e.error } } : s;
    case 'doc/opened':
      if (s.loading && s.loading.key !== e.doc.key) return s;
      return focusDoc({ ...s, docs: { ...s.docs, [e.doc.key]: e.doc } }, e.doc.key);
    case 'doc/focused':
      return s.docs[e.key] ? focusDoc(s, e.key) : s;
    case 'doc/closed':
      return { ...s, open: null, loading: null, selected: null, test: idleTest(), history: idleHistory() };
    case 'doc/discarded': {
      const { [e.key]: _gone, ...docs } = s.docs;
      return { ...s, docs, open: s.open === e.key ? null : s.open };
    }
    case 'doc/scope': {
      const doc = openDoc(s);
      if (!doc || doc.origin) return s;
      return { ...s, docs: { ...s.docs, [doc.key]: { ...doc, scope: e.scope } } };
    }
    case 'draft/field':
      return editDraft(s, (d) => (d[e.field] === e.value ? d : { ...d, [e.field]: e.value }));
    case 'draft/replaced':
      return editDraft(s, () => e.draft, e.draft.artifacts[0]?.key ?? null);
    case 'artifact/added': {
      const doc = openDoc(s);
      if (!doc) return s;
      const names = new Set(doc.draft.artifacts.map((a) => a.name));
      let name = KIND_DEFAULT_NAME[e.kind];
      for (let n = 2; names.has(name); n++) name = `${KIND_DEFAULT_NAME[e.kind]} ${n}`;
      const a = { ...blankArtifact(e.kind, name), key: newArtifactKey() };
      return editDraft(s, (d) => ({ ...d, artifacts: [...d.artifacts, a] }), a.key);
    }
    case 'artifact/variant-added': {
      const doc = openDoc(s);
      const at = doc?.draft.artifacts.findIndex((a) => a.key === e.key) ?? -1;
      if (!doc || at < 0) return s;
      const src = doc.draft.artifacts[at]!;
      const taken = new Set(
        doc.draft.artifacts.filter((a) => a.name === src.name).map((a) => a.model_variant),
      );
      let variant = 'new-variant';
      for (let n = 2; taken.has(variant); n++) variant = `new-variant-${n}`;
      const copy: DraftArtifact = { ...src, key: newArtifactKey(), model_variant: variant, extra: {} };
      return editDraft(
        s,
        (d) => ({ ...d, artifacts: [...d.artifacts.slice(0, at + 1), copy, ...d.artifacts.slice(at + 1)] }),
        copy.key,
      );
    }
    case 'artifact/removed': {
      const doc = openDoc(s);
      if (!doc) return s;
      const at = doc.draft.artifacts.findIndex((a) => a.key === e.key);
      if (at < 0) return s;
      const artifacts = doc.draft.artifacts.filter((a) => a.key !== e.key);
      const nextSel =
        s.selected === e.key ? (artifacts[Math.min(at, artifacts.length - 1)]?.key ?? null) : s.selected;
      const { [e.key]: _t, ...templates } = s.validation.templates;
      const next = editDraft(s, (d) => ({ ...d, artifacts }), nextSel);
      return { ...next, validation: { ...next.validation, templates } };
    }
    case 'artifact/moved':
      return editDraft(s, (d) => {
        const i = d.artifacts.findIndex((a) => a.key === e.key);
        const j = i + e.delta;
        if (i < 0 || j < 0 || j >= d.artifacts.length) return d;
        const artifacts = [...d.artifacts];
        [artifacts[i], artifacts[j]] = [artifacts[j]!, artifacts[i]!];
        return { ...d, artifacts };
      });
    case 'artifact/changed':
      return editDraft(s, (d) => {
        const i = d.artifacts.findIndex((a) => a.key === e.key);
        if (i < 0) return d;
        const cur = d.artifacts[i]!;
        const changed = Object.entries(e.patch).some(([k, v]) => cur[k as keyof DraftArtifact] !== v);
        if (!changed) return d;
        const artifacts = [...d.artifacts];
        artifacts[i] = { ...cur, ...e.patch };
        return { ...d, artifacts };
      });
    case 'artifact/file-set':
      // A bundled file written by a panel (the evals rows): the artifact at that path, or a new
      // resource there; the selection stays where the user left it.
      return editDraft(s, (d) => {
        const i = d.artifacts.findIndex((a) => a.kind === BUNDLED_FILE_KIND && bundledPath(a) === e.path);
        if (i < 0) {
          const a = {
            ...blankArtifact(BUNDLED_FILE_KIND, e.path, e.content),
            metadata: JSON.stringify({ path: e.path }),
          };
          return { ...d, artifacts: [...d.artifacts, a] };
        }
        if (d.artifacts[i]!.content === e.content) return d;
        const artifacts = [...d.artifacts];
        artifacts[i] = { ...d.artifacts[i]!, content: e.content };
        return { ...d, artifacts };
      });
    case 'artifact/selected':
      return s.selected === e.key ? s : { ...s, selected: e.key, test: { ...idleTest() } };
    case 'tab/changed':
      return { ...s, tab: e.tab };
    case 'validation/started':
      return e.seq === s.validation.seq ? { ...s, validation: { ...s.validation, checking: true } } : s;
    case 'validation/finished':
      if (e.seq !== s.validation.seq) return s;
      return {
        ...s,
        validation: {
          seq: e.seq,
          checking: false,
          issues: e.issues,
          templates: e.templates,
          warnings: e.warnings ?? [],
          // A template that does not compile has none from the server: the editor guesses them.
          variables: e.variables ?? {},
        },
      };
    case 'save/started':
      return { ...s, saving: { busy: true, error: null } };
    case 'save/succeeded': {
      const { [e.oldKey]: _old, ...docs } = s.docs;
      return {
        ...s,
        docs: { ...docs, [e.doc.key]: e.doc },
        open: s.open === e.oldKey ? e.doc.key : s.open,
        saving: { busy: false, error: null },
        triggerAsk: null,
        history: idleHistory(),
        notice: { tone: 'success', text: e.text },
      };
    }
    case 'save/failed':
      return { ...s, saving: { busy: false, error: e.error } };
    case 'context/changed': {
      const doc = openDoc(s);
      if (!doc || doc.context === e.text) return s;
      return { ...s, docs: { ...s.docs, [doc.key]: { ...doc, context: e.text } } };
    }
    case 'render/started':
      return { ...s, test: { ...idleTest(), status: 'rendering' } };
    case 'render/finished':
      return { ...s, test: { ...idleTest(), status: 'done', rendered: e.rendered } };
    case 'render/failed':
      return { ...s, test: { ...idleTest(), status: 'failed', error: e.error } };
    case 'run/started':
      return { ...s, test: { ...idleTest(), status: 'running', runId: e.runId, ran: e.ran ?? null } };
    case 'run/result': {
      if (s.test.runId !== e.runId) return s;
      const results = s.test.results.filter((r) => r.trace_id !== e.result.trace_id);
      return { ...s, test: { ...s.test, results: [...results, e.result] } };
    }
    case 'run/trace':
      if (s.test.runId !== e.runId) return s;
      return {
        ...s,
        test: {
          ...s.test,
          results: s.test.results.map((r) =>
            r.trace_id === e.traceId ? { ...r, rendered_input: e.renderedInput } : r,
          ),
        },
      };
    case 'run/finished': {
      if (s.test.runId !== e.runId) return s;
      const known = new Map(s.test.results.map((r) => [r.trace_id, r.rendered_input]));
      return {
        ...s,
        test: {
          ...s.test,
          status: 'done',
          results: e.results.map((r) => ({ ...r, rendered_input: known.get(r.trace_id) })),
        },
      };
    }
    case 'run/failed':
      if (s.test.runId !== e.runId) return s;
      return {
        ...s,
        test: { ...s.test, status: e.error.code === 'CANCELLED' ? 'cancelled' : 'failed', error: e.error },
      };
    case 'history/requested':
      return { ...s, history: { ...s.history, status: 'loading', error: null } };
    case 'history/loaded': {
      const kept = e.data.versions;
      const latest = kept[kept.length - 1];
      const keep = s.history.from !== null && s.history.to !== null;
      return {
        ...s,
        history: {
          ...s.history,
          status: 'ready',
          data: e.data,
          from: keep ? s.history.from : latest ? String(latest.number) : null,
          to: keep ? s.history.to : e.data.current ? 'current' : null,
        },
      };
    }
    case 'history/failed':
      return { ...s, history: { ...s.history, status: 'error', error: e.error } };
    case 'history/compare':
      return { ...s, history: { ...s.history, from: e.from, to: e.to, diffStatus: 'loading' } };
    case 'diff/loaded':
      if (s.history.from !== e.from || s.history.to !== e.to) return s;
      return { ...s, history: { ...s.history, diff: e.diff, diffStatus: 'ready' } };
    case 'diff/failed':
      return { ...s, history: { ...s.history, diffStatus: 'error', error: e.error } };
    case 'restore/started':
      return { ...s, history: { ...s.history, restoring: true, error: null } };
    case 'restore/finished':
      return {
        ...s,
        history: { ...idleHistory() },
        notice: { tone: 'success', text: e.text },
      };
    case 'restore/failed':
      return { ...s, history: { ...s.history, restoring: false, error: e.error } };
    case 'leave/asked':
      return { ...s, pending: e.pending };
    case 'leave/cancelled':
      return { ...s, pending: null };
    case 'builtin/asked':
      return { ...s, builtinAsk: true };
    case 'builtin/dismissed':
      return { ...s, builtinAsk: false };
    case 'triggers/regressed':
      return { ...s, saving: { busy: false, error: null }, triggerAsk: e.regressions };
    case 'triggers/dismissed':
      return { ...s, triggerAsk: null };
    case 'doc/copied': {
      const doc = openDoc(s);
      if (!doc) return s;
      const copy: EditorDoc = {
        ...doc,
        origin: null,
        base: null,
        baseHash: null,
        scope: e.scope,
        draft: e.draft,
      };
      return { ...s, builtinAsk: false, docs: { ...s.docs, [doc.key]: copy } };
    }
    case 'new/toggled':
      return { ...s, newOpen: e.open };
    case 'import/started':
      return { ...s, imports: { busy: true, rows: null } };
    case 'import/finished':
      return { ...s, imports: { busy: false, rows: e.rows } };
    case 'import/dismissed':
      return { ...s, imports: { busy: false, rows: null } };
    case 'notice/shown':
      return { ...s, notice: { tone: e.tone, text: e.text } };
    case 'notice/dismissed':
      return { ...s, notice: null };
  }
}

/** The name a new artifact of each kind starts with. */
export const KIND_DEFAULT_NAME = Object.fromEntries(
  ARTIFACT_KINDS.map((k) => [k, KIND_FACTS[k].default_name]),
) as Record<ArtifactKindName, string>;
