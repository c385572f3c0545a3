import type { EventHub, HandlersFor } from '../contract/channels.js';
import { AppError } from '../contract/errors.js';
import { stateRule } from '../kinds/index.js';
import type { Scope, SkillStore } from '../store/index.js';
import type { SkillCatalog, TriggerRegressionCheck } from './catalog.js';
import { skillToPackage } from './convert.js';
import type { SkillPackage } from './package-schema.js';
import {
  diffPackages,
  forkSkill,
  listVersions,
  packageHash,
  readVersion,
  restoreVersion,
  savePackage,
} from './versions.js';

/** The `skills/*` channels of a skill's history. */
export type SkillVersionChannel =
  | 'skills/versions'
  | 'skills/diff-versions'
  | 'skills/restore-version'
  | 'skills/fork'
  | 'skills/save-package';

/** What the history slice needs. */
export interface SkillVersionHandlerDeps {
  catalog: {
    get(): SkillCatalog;
    withStore(scope: Scope): { catalog: SkillCatalog; store: SkillStore };
    hasWorkspace(): boolean;
  };
  events: EventHub;
  /** Parse and validate a package (as imports do). */
  parsePackage(input: string | Record<string, unknown>, file: string): SkillPackage;
  /** See `SkillsHandlerDeps.triggerRegressions`. */
  triggerRegressions?: TriggerRegressionCheck;
}

/**
 * Compiled state (a DSPy module's few-shot demos from `optimize`: a kind with `state`) never
 * reaches the editor, which sees only its size; a save from it would drop what an optimisation run
 * produced. So such an artifact saved without a state keeps the stored one of the same name and
 * variant, as long as its program is unchanged: a changed program's demos may no longer fit it.
 */
function keepCompiledState(store: SkillStore, pkg: SkillPackage): SkillPackage {
  const current = store.repo.getSkillByName(pkg.name);
  if (!current) return pkg;
  const stored = (skillToPackage(current) as SkillPackage).artifacts;
  return {
    ...pkg,
    artifacts: pkg.artifacts.map((a) => {
      if (!stateRule(a.kind) || a.state_blob != null) return a;
      const same = stored.find(
        (o) =>
          o.kind === a.kind &&
          o.name === a.name &&
          (o.model_variant ?? null) === (a.model_variant ?? null) &&
          o.content === a.content &&
          o.state_blob != null,
      );
      return same ? { ...a, state_blob: same.state_blob } : a;
    }),
  };
}

/**
 * The history slice: list, diff and restore kept versions, and fork an account skill into the
 * workspace. A skill's history lives in the store of its scope (the workspace one first).
 */
export function createSkillVersionHandlers(deps: SkillVersionHandlerDeps) {
  /** The store a name's history is read from: the scope given, else where the skill is now. */
  const storeOf = (name: string, scope?: Scope) => {
    const c = deps.catalog.get();
    if (scope) {
      const store = c.store(scope);
      if (!store)
        throw new AppError('NOT_FOUND', `There is no ${scope} store, so "${name}" has no history there`);
      return store;
    }
    return c.resolve(name)?.scope === 'workspace' && c.workspace ? c.workspace : c.account;
  };
  const packageAt = (store: ReturnType<typeof storeOf>, name: string, ref: string) => {
    if (ref === 'current') {
      const skill = store.repo.getSkillByName(name);
      if (!skill)
        throw new AppError('NOT_FOUND', `"${name}" has no current version in the ${store.scope} store`);
      return { ref, pkg: skillToPackage(skill) as SkillPackage };
    }
    const v = readVersion(store.db, name, ref);
    return { ref: String(v.entry.number), pkg: v.package };
  };

  return {
    'skills/versions': (req) => {
      const store = storeOf(req.name, req.scope);
      const current = store.repo.getSkillByName(req.name);
      const versions = listVersions(store.db, req.name);
      if (!current && versions.length === 0) {
        throw new AppError(
          'NOT_FOUND',
          `There is no skill named "${req.name}" in the ${store.scope} store, and no history of one`,
        );
      }
      return {
        name: current?.name ?? req.name,
        scope: store.scope,
        current: current
          ? {
              version: current.version,
              content_hash: packageHash(skillToPackage(current)),
              updated_at: current.updated_at,
            }
          : null,
        versions,
      };
    },
    'skills/diff-versions': (req) => {
      const store = storeOf(req.name, req.scope);
      const from = packageAt(store, req.name, req.from);
      const to = packageAt(store, req.name, req.to ?? 'current');
      return {
        name: to.pkg.name,
        scope: store.scope,
        from: { ref: from.ref, version: from.pkg.version },
        to: { ref: to.ref, version: to.pkg.version },
        ...diffPackages(from.pkg, to.pkg),
      };
    },
    'skills/restore-version': (req) => {
      const store = storeOf(req.name, req.scope);
      const r = restoreVersion(store, req.name, req.version, req.note);
      deps.events.emit('skills/catalog-changed', { reason: 'restored', names: [r.name] });
      return {
        restored: { name: r.name, scope: store.scope, version: r.version, from_number: r.from_number },
      };
    },
    'skills/save-package': (req) => {
      if (req.scope === 'workspace' && !deps.catalog.hasWorkspace()) {
        throw new AppError(
          'INVALID_INPUT',
          'No workspace is open: save to the account scope, or open a workspace',
        );
      }
      const { catalog, store } = deps.catalog.withStore(req.scope);
      const pkg = keepCompiledState(store, deps.parsePackage(req.package, 'package'));
      if (!req.accept_trigger_regression && deps.triggerRegressions) {
        // Tried without the editor's hash: a conflict is the real save's to report.
        const regressed = deps.triggerRegressions(
          catalog,
          req.scope,
          [pkg.name],
          (copy) => savePackage(copy, pkg, { note: req.note }),
          [pkg],
        );
        if (regressed.length > 0) return { saved: null, trigger_regression: regressed };
      }
      const r = savePackage(store, pkg, { expectedHash: req.expected_hash, note: req.note });
      if (r.action !== 'unchanged')
        deps.events.emit('skills/catalog-changed', { reason: 'saved', names: [r.name] });
      return {
        saved: {
          name: r.name,
          scope: req.scope,
          version: r.version,
          action: r.action,
          content_hash: r.content_hash,
        },
      };
    },
    'skills/fork': (req) => {
      const c = deps.catalog.get();
      const skill = c.account.repo.getSkillByName(req.name);
      if (!skill) throw new AppError('NOT_FOUND', `There is no account skill named "${req.name}" to fork`);
      const { catalog } = deps.catalog.withStore('workspace');
      const target = catalog.workspace;
      if (!target) {
        throw new AppError(
          'INVALID_INPUT',
          'No workspace is open: open one (or pass --workspace DIR) to fork into it',
        );
      }
      const r = forkSkill(skill, target);
      deps.events.emit('skills/catalog-changed', { reason: 'forked', names: [r.name] });
      return {
        forked: {
          name: r.name,
          scope: 'workspace' as const,
          version: r.version,
          from_scope: 'account' as const,
        },
      };
    },
  } satisfies Pick<HandlersFor<'skills'>, SkillVersionChannel>;
}
