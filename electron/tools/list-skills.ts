import type { ToolModule } from './types.js';

/**
 * `list_skills`: the merged catalog, at most 300 skills. Not the app's internal skills (the
 * Composer's and the eval judge's), nor skills whose SKILL.md says the model never starts them
 * (`disable-model-invocation`): matching leaves both out, and so does the model's own listing.
 * Skills the user switched off are left out too; name-only ones are listed (that is their point).
 */
export const listSkills: ToolModule<'list_skills'> = {
  name: 'list_skills',
  run(_args, ctx) {
    const skills = ctx.catalog
      .listAll()
      .filter((s) => s.metadata?.internal !== 'true' && s.invocation?.model_invocable !== false)
      .filter((s) => ctx.catalog.switchOf(s.name) !== 'off')
      .slice(0, 300)
      .map((s) => ({ name: s.name, description: s.description, when: s.when ?? undefined, scope: s.scope }));
    return { ok: true, result: { skills } };
  },
};
