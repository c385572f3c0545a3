/**
 * Prompts the app itself sends (the Composer agent's, the eval judge's) live in system skills as
 * `prompt_template` artifacts, so a user can read them and fork them into a workspace or account
 * copy that wins over the shipped one.
 */
import { AppError } from '../contract/errors.js';
import type { SkillCatalog } from './catalog.js';
import { loadSeedPackages } from './seed.js';

/** A system skill's prompt templates, and where they came from. */
export interface SkillPrompts<P extends string> {
  templates: Record<P, string>;
  /** `workspace`/`account`: the catalog's copy; `shipped`: the seed file. */
  source: 'workspace' | 'account' | 'shipped';
}

/**
 * The `parts` (prompt_template names) of the skill `skillName`: the catalog's copy (workspace
 * first), any part it lacks from the shipped seed. Throws NOT_FOUND when neither has a part.
 */
export function loadSkillPrompts<P extends string>(
  catalog: SkillCatalog | null,
  skillName: string,
  parts: readonly P[],
): SkillPrompts<P> {
  const shipped = loadSeedPackages().find((p) => p.name === skillName);
  const found = catalog?.resolve(skillName) ?? null;
  const templates = {} as Record<P, string>;
  for (const part of parts) {
    const mine = found?.skill.artifacts.find((a) => a.kind === 'prompt_template' && a.name === part);
    const theirs = shipped?.artifacts.find((a) => a.kind === 'prompt_template' && a.name === part);
    const content = mine?.content ?? theirs?.content;
    if (content === undefined) {
      throw new AppError('NOT_FOUND', `the "${skillName}" skill has no prompt_template "${part}"`);
    }
    templates[part] = content;
  }
  return { templates, source: found ? found.scope : 'shipped' };
}
