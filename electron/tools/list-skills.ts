import type { ToolModule } from './types.js';

/** `list_skills`: the merged catalog, at most 300 skills. */
export const listSkills: ToolModule<'list_skills'> = {
  name: 'list_skills',
  run(_args, ctx) {
    const skills = ctx.catalog
      .listAll()
      .slice(0, 300)
      .map((s) => ({ name: s.name, description: s.description, when: s.when ?? undefined, scope: s.scope }));
    return { ok: true, result: { skills } };
  },
};
