import { matchSkills } from '../activation/index.js';
import type { SkillCatalog } from '../skills/index.js';
import type { ToolModule, ToolOutcome } from './types.js';

/** `search_skills`: phase-1 ranking over the merged catalog (default 5 results). */
export const searchSkills: ToolModule<'search_skills'> = {
  name: 'search_skills',
  run({ query, limit }, ctx) {
    const matches = matchSkills(ctx.catalog, query, { limit: limit ?? 5 });
    const result = matches.map((m) => {
      const s = ctx.catalog.resolve(m.name, m.scope)!.skill;
      return { name: m.name, description: s.description, when: s.when ?? undefined, score: m.score };
    });
    return { ok: true, result: { matches: result } };
  },
};

/** The error for a skill name the catalog does not have, with the nearest names. */
export function unknownSkill(catalog: SkillCatalog, name: string): ToolOutcome {
  // A skill the user switched off is, to the model, no skill at all.
  const near = matchSkills(catalog, name, { limit: 3 }).map((m) => m.name);
  return {
    ok: false,
    result: {
      error: `no skill named "${name}"${near.length ? `; did you mean ${near.map((n) => `"${n}"`).join(' or ')}?` : ''} Use search_skills or list_skills.`,
    },
  };
}

/** The refusal for a skill the user switched off, or null when it may be used. */
export function switchedOff(catalog: SkillCatalog, name: string): ToolOutcome | null {
  if (catalog.switchOf(name) !== 'off') return null;
  return unknownSkill(catalog, name);
}
