/**
 * The skills a fetched source holds: every folder with a `SKILL.md` (Agent Skills, and the
 * `skills/<name>/` folders of Agent Plugins) at any depth, and JSON packages at the top of the
 * source or under a `packages/` folder. Each is read by the same importer as `skills import`; one
 * that does not load is reported, not fatal, so one broken skill upstream does not block the rest.
 */
import { relative } from 'node:path';
import { findSkillFolders, type ImportLimits, type LoadedPackage, loadPackages } from '../skills/index.js';

// How deep a source's skill folders may be (the source's root is level 0).
const MAX_DEPTH = 7;

/** What was found, and what could not be read. */
export interface Discovered {
  packages: LoadedPackage[];
  invalid: Array<{ file: string; error: string }>;
}

/** Find and load the skills under `root` (paths reported relative to it). */
export async function discoverPackages(root: string, limits: ImportLimits): Promise<Discovered> {
  const { skillDirs, jsonFiles } = findSkillFolders(root, { maxDepth: MAX_DEPTH });
  const out: Discovered = { packages: [], invalid: [] };
  for (const path of [...jsonFiles, ...skillDirs]) {
    const rel = relative(root, path) || '.';
    try {
      for (const l of await loadPackages(path, limits)) out.packages.push({ ...l, file: rel });
    } catch (e) {
      out.invalid.push({ file: rel, error: (e as Error).message.replace(path, rel) });
    }
  }
  return out;
}
