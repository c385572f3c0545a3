import { chmodSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AppError } from '../contract/errors.js';
import { type Skill, writeFolderAtomic } from '../store/index.js';
import { agentFolderSlug } from './agent-export.js';
import { skillToAgentFiles } from './agent-skill.js';
import { skillToPackage } from './convert.js';
import { isExecutable } from './file-modes.js';
import { assertPortablePaths, safeRelativePath } from './safe-path.js';

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
  const { files, skipped } = skillToAgentFiles(skill);
  const executable = [...files.keys()].filter((p) => isExecutable(files, p));
  return {
    ...writeAgentSkillFolder(agentFolderSlug(skill), files, target, { ...opts, executable }),
    skipped,
  };
}

/**
 * Write the files of an Agent Skills folder (from `skillToAgentFiles` or the `skills/export-agent-skill`
 * channel) under `target`, or `./<slug>`: see {@link exportAgentSkill}. Every path is checked first.
 */
export function writeAgentSkillFolder(
  slug: string,
  files: ReadonlyMap<string, Uint8Array>,
  target: string | undefined,
  opts: { force?: boolean; executable?: readonly string[] } = {},
): { dir: string; files: string[] } {
  const safeSlug = safeRelativePath(slug, 'skill folder');
  const rels = [...files.keys()].map((rel) => safeRelativePath(rel, safeSlug));
  // Never write what Windows reserves or a case-insensitive filesystem would merge.
  assertPortablePaths([safeSlug], 'skill folder');
  assertPortablePaths(rels, safeSlug);
  let dir = resolve(target ?? safeSlug);
  if (
    target &&
    existsSync(dir) &&
    statSync(dir).isDirectory() &&
    readdirSync(dir).length > 0 &&
    !existsSync(join(dir, 'SKILL.md'))
  ) {
    dir = join(dir, safeSlug);
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
  // Whole or not at all: a full disk or a crash never leaves half a skill folder.
  writeFolderAtomic(dir, files, { replace: opts.force });
  // Files are written 0644 (less the umask); scripts that came executable are made so again.
  for (const rel of opts.executable ?? []) {
    const abs = join(dir, safeRelativePath(rel, safeSlug));
    chmodSync(abs, statSync(abs).mode | 0o111);
  }
  return { dir, files: rels };
}
