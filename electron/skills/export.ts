import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { AppError } from '../contract/errors.js';
import type { Skill } from '../store/skill-repository.js';
import { skillSlug, skillToAgentFiles } from './agent-skill.js';
import { skillToPackage } from './convert.js';

/** The JSON text of a skill's package (2-space indent, trailing newline). */
export function exportJson(skill: Skill): string {
  return `${JSON.stringify(skillToPackage(skill), null, 2)}\n`;
}

/**
 * Write a skill as an Agent Skills folder. `target` is the folder to create; if it is an existing
 * folder, the skill's folder is created inside it. An existing non-empty skill folder is refused
 * unless `force`. Returns the folder written and the artifacts the format could not hold.
 */
export function exportAgentSkill(
  skill: Skill,
  target: string | undefined,
  opts: { force?: boolean } = {},
): { dir: string; skipped: string[]; files: string[] } {
  const slug = skillSlug(skill.name);
  let dir = resolve(target ?? slug);
  if (
    target &&
    existsSync(dir) &&
    statSync(dir).isDirectory() &&
    readdirSync(dir).length > 0 &&
    !existsSync(join(dir, 'SKILL.md'))
  ) {
    dir = join(dir, slug);
  }
  if (existsSync(dir) && (!statSync(dir).isDirectory() || (readdirSync(dir).length > 0 && !opts.force))) {
    throw new AppError(
      'CONFLICT',
      `${dir} already exists and is not empty; pass --force to overwrite or choose another -o`,
      {
        file: dir,
      },
    );
  }
  const { files, skipped } = skillToAgentFiles(skill);
  for (const [rel, bytes] of files) {
    const abs = join(dir, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, bytes);
  }
  return { dir, skipped, files: [...files.keys()] };
}
