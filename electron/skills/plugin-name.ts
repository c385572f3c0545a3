/**
 * Names of plugin skills. Claude Code names a skill that comes with a plugin `plugin:skill`
 * (`discord:access`), so two plugins may both ship an `access` skill; SkillDesk stores and shows
 * the same name, and accepts it wherever a skill name is asked for.
 */

/** The name a plugin's skill is stored under: `plugin:skill`. */
export function pluginSkillName(plugin: string, skill: string): string {
  return skill.startsWith(`${plugin}:`) ? skill : `${plugin}:${skill}`;
}

/**
 * The skill part of `plugin:skill` when `name` is that skill's plugin name, else null: only when
 * `skill` is what the skill's own SKILL.md calls it, so a display name holding a colon is no plugin.
 */
export function pluginSkillPart(name: string, skill: string): string | null {
  const at = name.length - skill.length - 1;
  return at > 0 && name[at] === ':' && name.endsWith(skill) && !name.slice(0, at).includes(':')
    ? skill
    : null;
}
