import type { TriggerRegressionView } from '../contract/skills.js';
import type { Scope, Skill, SkillStore, SkillSummary, SkillSwitch } from '../store/index.js';
import { readSwitches, skillNameKey } from '../store/index.js';
import type { SkillPackage } from './package-schema.js';

/** A skill as the merged catalog shows it. */
export interface CatalogEntry extends SkillSummary {
  scope: Scope;
  /** Set on an account skill hidden by a workspace skill of the same name. */
  overridden_by?: 'workspace';
  /** Set on a workspace skill that hides an account skill of the same name. */
  overrides?: 'account';
}

/**
 * The merged view of both stores: same name (compared by {@link skillNameKey}: NFKC, full case
 * folding) → the workspace skill wins and the account one is reported as overridden.
 */
/**
 * The skills among `names` whose phase-1 trigger rates `apply` (a write to the store of `scope`)
 * would lower, measured without writing; `incoming` (the packages being written) lets the check
 * skip the copy when no side has trigger evals. Implemented in `activation/`, given to the skills
 * and sources handlers by the host.
 */
export type TriggerRegressionCheck = (
  catalog: SkillCatalog,
  scope: Scope,
  names: readonly string[],
  apply: (store: SkillStore) => void,
  incoming?: readonly SkillPackage[],
) => TriggerRegressionView[];

export class SkillCatalog {
  constructor(
    readonly account: SkillStore,
    readonly workspace: SkillStore | null,
  ) {}

  /** The open stores, workspace first (resolution order). */
  stores(): SkillStore[] {
    return this.workspace ? [this.workspace, this.account] : [this.account];
  }

  /** The store of a scope, or null when that scope is not open. */
  store(scope: Scope): SkillStore | null {
    return scope === 'account' ? this.account : this.workspace;
  }

  /**
   * Every skill, workspace first then account, each by name. With `includeOverridden` the hidden
   * account skills are listed too (marked `overridden_by`), as `skills list` shows them.
   */
  listAll(opts: { includeOverridden?: boolean } = {}): CatalogEntry[] {
    const ws = this.workspace?.repo.listSkills() ?? [];
    const wsNames = new Set(ws.map((s) => skillNameKey(s.name)));
    const acc = this.account.repo.listSkills();
    const accNames = new Set(acc.map((s) => skillNameKey(s.name)));
    const out: CatalogEntry[] = ws.map((s) =>
      accNames.has(skillNameKey(s.name))
        ? { ...s, scope: 'workspace', overrides: 'account' }
        : { ...s, scope: 'workspace' },
    );
    for (const s of acc) {
      if (!wsNames.has(skillNameKey(s.name))) out.push({ ...s, scope: 'account' });
      else if (opts.includeOverridden) out.push({ ...s, scope: 'account', overridden_by: 'workspace' });
    }
    return out.sort((a, b) => a.name.localeCompare(b.name) || (a.scope === 'workspace' ? -1 : 1));
  }

  /** The skill a name resolves to (workspace first), or the one of a given scope. */
  resolve(name: string, scope?: Scope): { skill: Skill; scope: Scope; overridden_by?: 'workspace' } | null {
    if (scope) {
      const store = this.store(scope);
      const skill = store?.repo.getSkillByName(name) ?? null;
      if (!skill) return null;
      const hidden = scope === 'account' && this.workspace?.repo.hasSkillNamed(skill.name);
      return hidden ? { skill, scope, overridden_by: 'workspace' } : { skill, scope };
    }
    for (const store of this.stores()) {
      const skill = store.repo.getSkillByName(name);
      if (skill) return { skill, scope: store.scope };
    }
    return null;
  }

  /** True when the workspace holds a skill of this name (so the account one is hidden). */
  isOverridden(name: string): boolean {
    return this.workspace?.repo.hasSkillNamed(name) ?? false;
  }

  /**
   * A skill's switch as it applies here: the workspace's when it set one (a workspace may switch
   * an account skill), else the account's, else on.
   */
  switchOf(name: string): SkillSwitch {
    const key = skillNameKey(name);
    return (
      (this.workspace ? readSwitches(this.workspace.db).get(key) : undefined) ??
      readSwitches(this.account.db).get(key) ??
      'on'
    );
  }

  /** Close both stores. */
  close(): void {
    this.workspace?.close();
    this.account.close();
  }
}

/** The open catalog, which may be reopened (to create the workspace store on its first write). */
export interface CatalogRef {
  get(): SkillCatalog;
  /** The catalog with the store of `scope` open (created if it has no file yet). */
  withStore(scope: Scope): { catalog: SkillCatalog; store: SkillStore };
  /** True when a workspace folder is configured (its store may not exist yet). */
  hasWorkspace(): boolean;
}
