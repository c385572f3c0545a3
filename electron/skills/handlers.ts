import type { EventHub, HandlersFor } from '../contract/channels.js';
import { AppError } from '../contract/errors.js';
import type { ImportOutcomeView, SkillDetail, SkillListItem } from '../contract/skills.js';
import { type Scope, type Skill, type SkillSwitch, setSwitch } from '../store/index.js';
import { agentFolderSlug } from './agent-export.js';
import { skillSlug, skillToAgentFiles } from './agent-skill.js';
import type { CatalogEntry, CatalogRef, SkillCatalog, TriggerRegressionCheck } from './catalog.js';
import { catalogChanges } from './changes.js';
import { exportJson } from './export.js';
import { isExecutable } from './file-modes.js';
import { importPackages } from './import.js';
import { importDropped, readDroppedFiles } from './import-files.js';
import { formatBytes, type ImportLimits } from './limits.js';
import { validatePackage } from './package-schema.js';
import { createSkillVersionHandlers, type SkillVersionChannel } from './version-handlers.js';
import { recordVersion } from './versions.js';

/** What the skills slice needs. */
export interface SkillsHandlerDeps {
  catalog: CatalogRef;
  events: EventHub;
  limits: ImportLimits;
  /**
   * The skills among `names` whose phase-1 trigger rates `apply` (a write to the store of
   * `scope`) would lower, measured without writing (absent: nothing is checked).
   */
  triggerRegressions?: TriggerRegressionCheck;
}

function toListItem(e: CatalogEntry, sw: SkillSwitch): SkillListItem {
  return {
    id: e.id,
    name: e.name,
    scope: e.scope,
    version: e.version,
    source: e.source,
    description: e.description,
    tags: e.tags ?? [],
    author: e.author,
    artifact_kinds: e.artifact_kinds,
    trigger_phrases: e.trigger_phrases ?? [],
    intent_patterns: e.intent_patterns ?? [],
    always_on: e.always_on,
    updated_at: e.updated_at,
    switch: sw,
    overridden: e.overridden_by !== undefined,
    ...(e.overridden_by ? { overridden_by: e.overridden_by } : {}),
    ...(e.overrides ? { overrides: e.overrides } : {}),
    ...(e.metadata?.internal === 'true' ? { internal: true as const } : {}),
    ...(e.invocation?.model_invocable === false ? { model_invocable: false as const } : {}),
    ...(e.invocation?.user_invocable === false ? { user_invocable: false as const } : {}),
    ...(e.invocation?.argument_hint ? { argument_hint: e.invocation.argument_hint } : {}),
  };
}

function toDetail(skill: Skill, entry: CatalogEntry, sw: SkillSwitch): SkillDetail {
  return {
    ...toListItem(entry, sw),
    when: skill.when,
    modalities: skill.modalities ?? [],
    requires: skill.requires ?? [],
    license: skill.license,
    compatibility: skill.compatibility,
    metadata: skill.metadata,
    allowed_tools: skill.allowed_tools,
    created_at: skill.created_at,
    artifacts: skill.artifacts.map((a) => ({
      id: a.id,
      kind: a.kind,
      name: a.name,
      ordinal: a.ordinal,
      content: a.content,
      model_variant: a.model_variant,
      metadata: a.metadata,
      state_blob_bytes: a.state_blob ? a.state_blob.length : null,
    })),
  };
}

/** The error of a skill name that resolves to nothing. */
export function notFound(name: string, scope?: Scope): AppError {
  return new AppError(
    'NOT_FOUND',
    `There is no skill named "${name}"${scope ? ` in the ${scope} store` : ''}. It may have been deleted; refresh the list.`,
    { name, ...(scope ? { scope } : {}) },
  );
}

function noWorkspace(): AppError {
  return new AppError(
    'INVALID_INPUT',
    'No workspace is open, so there is no workspace store. Choose the account scope, or start SkillDesk with --workspace DIR.',
    { scope: 'workspace' },
  );
}

/** The skill a name resolves to (the workspace one first), or NOT_FOUND. */
export function resolveOrThrow(catalog: SkillCatalog, name: string, scope?: Scope) {
  if (scope === 'workspace' && !catalog.workspace) throw notFound(name, scope);
  const found = catalog.resolve(name, scope);
  if (!found) throw notFound(name, scope);
  return found;
}

/** Parse and validate package text or an object; problems name the file and the JSON path. */
export function parsePackageInput(
  input: string | Record<string, unknown>,
  file: string,
  limits: ImportLimits,
) {
  let raw: unknown = input;
  if (typeof input === 'string') {
    const bytes = Buffer.byteLength(input, 'utf8');
    if (bytes > limits.maxBytes) {
      throw new AppError(
        'TOO_LARGE',
        `${file}: ${formatBytes(bytes)} is over the ${formatBytes(limits.maxBytes)} import limit`,
        { file },
      );
    }
    try {
      raw = JSON.parse(input.replace(/^\uFEFF/, ''));
    } catch (e) {
      throw new AppError('INVALID_INPUT', `${file}: not valid JSON (${(e as Error).message})`, {
        file,
        issues: [{ path: '(package)', message: `not valid JSON (${(e as Error).message})` }],
      });
    }
  }
  const r = validatePackage(raw);
  if (r.ok) return r.value;
  const first = r.issues[0]!;
  const more = r.issues.length > 1 ? ` (and ${r.issues.length - 1} more)` : '';
  throw new AppError('INVALID_INPUT', `${file}: ${first.path}: ${first.message}${more}`, {
    file,
    issues: r.issues,
  });
}

/** The `skills/*` handler slice over the merged catalog. */
export function createSkillsHandlers(deps: SkillsHandlerDeps) {
  const { catalog, events } = deps;
  return {
    ...createSkillVersionHandlers({
      catalog,
      events,
      parsePackage: (input, file) => parsePackageInput(input, file, deps.limits),
      triggerRegressions: deps.triggerRegressions,
    }),
    'skills/list': (req) => {
      const all = catalog
        .get()
        .listAll({ includeOverridden: true })
        .filter((e) => !req.scope || e.scope === req.scope);
      const c = catalog.get();
      return { skills: all.map((e) => toListItem(e, c.switchOf(e.name))) };
    },

    'skills/get': (req) => {
      const c = catalog.get();
      const found = resolveOrThrow(c, req.name, req.scope);
      const entry = c
        .listAll({ includeOverridden: true })
        .find((e) => e.scope === found.scope && e.id === found.skill.id);
      if (!entry) throw notFound(req.name, req.scope);
      return { skill: toDetail(found.skill, entry, c.switchOf(entry.name)) };
    },

    'skills/changes': (req) => {
      const c = catalog.get();
      return catalogChanges(
        c,
        req.since,
        (skill, entry) => toDetail(skill, entry, c.switchOf(entry.name)),
        req.limit,
      );
    },

    'skills/set-switch': (req) => {
      const scope: Scope = req.scope ?? (catalog.hasWorkspace() ? 'workspace' : 'account');
      if (scope === 'workspace' && !catalog.hasWorkspace()) throw noWorkspace();
      const { catalog: c, store } = catalog.withStore(scope);
      // A switch may name a skill of the other scope (a workspace turns an account skill off), so
      // the name must resolve somewhere in the catalog, not necessarily in this store.
      const found = c.resolve(req.name);
      if (!found) throw notFound(req.name);
      setSwitch(store.db, found.skill.name, req.state);
      // A change to every store holding that name, so whoever follows the change log (the MCP
      // server's catalog, a window's list) sees the skill's new switch.
      for (const st of c.stores()) {
        const id = st.repo.getSummaryByName(found.skill.name)?.id;
        if (id) st.db.prepare('INSERT INTO skill_index_log (skill_id) VALUES (?)').run(id);
      }
      deps.events.emit('skills/catalog-changed', { reason: 'switched', names: [found.skill.name] });
      return { name: found.skill.name, scope, state: req.state, effective: c.switchOf(found.skill.name) };
    },

    'skills/import-package': (req) => {
      const file = req.file_name?.trim() || 'package.json';
      const pkg = parsePackageInput(req.package, file, deps.limits);
      const scope: Scope = req.scope ?? (catalog.hasWorkspace() ? 'workspace' : 'account');
      if (scope === 'workspace' && !catalog.hasWorkspace()) throw noWorkspace();
      const { catalog: c, store } = catalog.withStore(scope);
      if (!req.accept_trigger_regression && deps.triggerRegressions) {
        const regressed = deps.triggerRegressions(
          c,
          scope,
          [pkg.name],
          (copy) => importPackages(copy, [{ file, pkg }], { force: req.force }),
          [pkg],
        );
        if (regressed.length > 0) return { imported: [], trigger_regression: regressed };
      }
      const outcomes: ImportOutcomeView[] = importPackages(store, [{ file, pkg }], { force: req.force });
      if (outcomes.some((o) => o.action !== 'unchanged')) {
        events.emit('skills/catalog-changed', { reason: 'imported', names: outcomes.map((o) => o.name) });
      }
      return { imported: outcomes };
    },

    // What is dropped on the Composer, sorted into packages, all or nothing.
    'skills/import-files': async (req) => {
      const scope: Scope = req.scope ?? (catalog.hasWorkspace() ? 'workspace' : 'account');
      if (scope === 'workspace' && !catalog.hasWorkspace()) throw noWorkspace();
      const found = await readDroppedFiles(
        req.files.map((f) => ({ path: f.path, bytes: Buffer.from(f.data_base64, 'base64') })),
        deps.limits,
      );
      const { store } = catalog.withStore(scope);
      const r = importDropped(store, found, { force: req.force });
      if (r.written) {
        const names = r.packages.flatMap((p) => (p.name && p.outcome !== 'unchanged' ? [p.name] : []));
        events.emit('skills/catalog-changed', { reason: 'imported', names });
      }
      return { written: r.written, scope, packages: r.packages };
    },

    'skills/import-packages': (req) => {
      // Every package is checked before anything is written: one bad package imports nothing.
      const loaded = req.packages.map((p) => ({
        file: p.file_name,
        pkg: parsePackageInput(p.package, p.file_name, deps.limits),
        version_declared: typeof p.package.version === 'string',
      }));
      const scope: Scope = req.scope ?? (catalog.hasWorkspace() ? 'workspace' : 'account');
      if (scope === 'workspace' && !catalog.hasWorkspace()) throw noWorkspace();
      const { catalog: c, store } = catalog.withStore(scope);
      // All or nothing, like the import itself: one skill whose trigger rates drop holds them all.
      const regressed =
        req.accept_trigger_regression || !deps.triggerRegressions
          ? []
          : deps.triggerRegressions(
              c,
              scope,
              loaded.map((l) => l.pkg.name),
              (copy) => importPackages(copy, loaded, { force: req.force }),
              loaded.map((l) => l.pkg),
            );
      const flagged = regressed.length > 0 ? { trigger_regression: regressed } : {};
      if (regressed.length > 0 && !req.dry_run) return { imported: [], ...flagged };
      const outcomes: ImportOutcomeView[] = importPackages(store, loaded, {
        force: req.force,
        dryRun: req.dry_run,
      });
      if (req.dry_run) return { imported: outcomes, dry_run: true, ...flagged };
      if (outcomes.some((o) => o.action !== 'unchanged')) {
        events.emit('skills/catalog-changed', { reason: 'imported', names: outcomes.map((o) => o.name) });
      }
      return { imported: outcomes };
    },

    'skills/export-agent-skill': (req) => {
      const found = resolveOrThrow(catalog.get(), req.name, req.scope);
      const { files, skipped } = skillToAgentFiles(found.skill);
      return {
        name: found.skill.name,
        scope: found.scope,
        slug: agentFolderSlug(found.skill),
        files: [...files].map(([path, bytes]) => ({
          path,
          data_base64: Buffer.from(bytes).toString('base64'),
          ...(isExecutable(files, path) ? { executable: true } : {}),
        })),
        skipped,
      };
    },

    'skills/export-package': (req) => {
      const found = resolveOrThrow(catalog.get(), req.name, req.scope);
      return {
        name: found.skill.name,
        scope: found.scope,
        file_name: `${skillSlug(found.skill.name)}.json`,
        text: exportJson(found.skill),
      };
    },

    'skills/delete': (req) => {
      const c = catalog.get();
      const store = c.store(req.scope);
      if (!store) throw notFound(req.name, req.scope);
      const skill = store.repo.getSummaryByName(req.name);
      if (!skill) throw notFound(req.name, req.scope);
      // The deleted skill stays in its history, so it can be restored.
      store.repo.transaction(() => {
        const full = store.repo.getSkill(skill.id);
        if (full) recordVersion(store.db, full, 'delete');
        store.repo.deleteSkill(skill.id);
      });
      const revealed = req.scope === 'workspace' ? c.account.repo.getSummaryByName(skill.name) : null;
      events.emit('skills/catalog-changed', { reason: 'deleted', names: [skill.name] });
      return {
        deleted: { name: skill.name, scope: req.scope, version: skill.version },
        ...(revealed
          ? { revealed: { name: revealed.name, scope: 'account' as const, version: revealed.version } }
          : {}),
      };
    },
  } satisfies Omit<
    HandlersFor<'skills'>,
    | SkillRunChannel
    | SkillVersionChannel
    | 'skills/match'
    | 'skills/embed'
    | 'skills/warm-match'
    | 'skills/semantic-status'
    | 'skills/call-tool'
  > &
    Pick<HandlersFor<'skills'>, SkillVersionChannel>;
}

/** The `skills/*` channels that execute something (see `dispatch/skill-run-handlers.ts`). */
type SkillRunChannel =
  | 'skills/render'
  | 'skills/validate'
  | 'skills/run'
  | 'skills/cancel-run'
  | 'skills/optimize'
  | 'skills/eval'
  | 'skills/cancel-eval'
  | 'skills/eval-history'
  | 'skills/trigger-eval'
  | 'skills/improve-triggers';
