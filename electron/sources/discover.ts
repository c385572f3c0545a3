/**
 * The skills a fetched source holds: every folder with a `SKILL.md` (Agent Skills, and the
 * `skills/<name>/` folders of Agent Plugins) at any depth, and JSON packages at the top of the
 * source or under a `packages/` folder. Each is read by the same importer as `skills import`; one
 * that does not load is reported, not fatal, so one broken skill upstream does not block the rest.
 */
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type ImportLimits, type LoadedPackage, loadPackages } from '../skills/index.js';

// Manifests that sit beside skills in repositories and plugins and are not skill packages.
const NOT_PACKAGES =
  /^(?:package(?:-lock)?|tsconfig|jsconfig|plugin|marketplace|manifest|composer|renovate|biome|\.?eslintrc)\.json$/i;
const SKIP_DIRS = new Set(['.git', 'node_modules', '__pycache__', '.venv', 'venv']);
const MAX_DEPTH = 6;

/** What was found, and what could not be read. */
export interface Discovered {
  packages: LoadedPackage[];
  invalid: Array<{ file: string; error: string }>;
}

/** Find and load the skills under `root` (paths reported relative to it). */
export async function discoverPackages(root: string, limits: ImportLimits): Promise<Discovered> {
  const skillDirs: string[] = [];
  const jsonFiles: string[] = [];
  const walk = (dir: string, depth: number, inPackages: boolean) => {
    if (existsSync(join(dir, 'SKILL.md'))) {
      skillDirs.push(dir);
      return;
    }
    if (depth > MAX_DEPTH) return;
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const abs = join(dir, e.name);
      // Links are never followed: a repository could point one anywhere on this machine.
      if (lstatSync(abs).isSymbolicLink()) continue;
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) walk(abs, depth + 1, e.name === 'packages');
      } else if (
        e.isFile() &&
        e.name.endsWith('.json') &&
        (depth === 0 || inPackages) &&
        !NOT_PACKAGES.test(e.name)
      ) {
        jsonFiles.push(abs);
      }
    }
  };
  walk(root, 0, false);
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
