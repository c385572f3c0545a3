/**
 * Where the skills under a folder are: every folder with a `SKILL.md` at any depth (Agent Skills,
 * collections of them, collections of collections, the `skills/<name>/` folders of Agent Plugins)
 * and JSON packages at the top or under a `packages/` folder. `skills import` of a folder and a
 * skill source both find skills this way. Links are never followed (a repository could point one
 * anywhere on the machine), and what is passed over is said, with why.
 */
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

// Manifests that sit beside skills in repositories and plugins and are not skill packages.
const NOT_PACKAGES =
  /^(?:package(?:-lock)?|tsconfig|jsconfig|plugin|marketplace|manifest|composer|renovate|biome|\.?eslintrc)\.json$/i;
/** Folders of tools and dependencies, never of the repository's own skills. */
export const SKIP_DIRS = new Set(['.git', 'node_modules', '__pycache__', '.venv', 'venv']);
const PLUGIN_MANIFESTS = ['.claude-plugin/plugin.json', 'plugin.json'];

/** Something under the folder that was not taken, and why. */
export interface SkippedEntry {
  /** Absolute path. */
  path: string;
  reason: 'too_deep' | 'symbolic_link' | 'not_a_package';
}

/** What {@link findSkillFolders} found, absolute paths in a stable order. */
export interface FoundSkills {
  skillDirs: string[];
  jsonFiles: string[];
  /** Agent Plugin folders (only when `plugins` was asked for: their skills are then not walked). */
  pluginDirs: string[];
  skipped: SkippedEntry[];
}

/** Options of {@link findSkillFolders}. */
export interface FindOptions {
  /** Deepest level a skill folder may be at (the root is 0, its subfolders 1 …); default no limit. */
  maxDepth?: number;
  /** Report Agent Plugin folders below the root as plugins instead of walking into them. */
  plugins?: boolean;
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function isPlugin(dir: string): boolean {
  return PLUGIN_MANIFESTS.some((m) => {
    const p = join(dir, m);
    return existsSync(p) && lstatSync(p).isFile();
  });
}

/** See the module comment. */
export function findSkillFolders(root: string, opts: FindOptions = {}): FoundSkills {
  const maxDepth = opts.maxDepth ?? Number.POSITIVE_INFINITY;
  const out: FoundSkills = { skillDirs: [], jsonFiles: [], pluginDirs: [], skipped: [] };
  const walk = (dir: string, depth: number, inPackages: boolean, counting: boolean) => {
    if (existsSync(join(dir, 'SKILL.md'))) {
      if (counting) out.skipped.push({ path: dir, reason: 'too_deep' });
      else out.skillDirs.push(dir);
      return;
    }
    if (opts.plugins && depth > 0 && isPlugin(dir)) {
      if (counting) out.skipped.push({ path: dir, reason: 'too_deep' });
      else out.pluginDirs.push(dir);
      return;
    }
    for (const e of readdirSync(dir, { withFileTypes: true }).sort(byName)) {
      const abs = join(dir, e.name);
      if (lstatSync(abs).isSymbolicLink()) {
        if (!counting && existsSync(join(abs, 'SKILL.md')))
          out.skipped.push({ path: abs, reason: 'symbolic_link' });
        continue;
      }
      if (e.isDirectory()) {
        if (SKIP_DIRS.has(e.name)) continue;
        // Below the limit the walk goes on only to say what it passes over.
        walk(abs, depth + 1, e.name === 'packages', counting || depth + 1 > maxDepth);
      } else if (!counting && e.isFile() && e.name.endsWith('.json') && (depth === 0 || inPackages)) {
        if (NOT_PACKAGES.test(e.name)) out.skipped.push({ path: abs, reason: 'not_a_package' });
        else out.jsonFiles.push(abs);
      }
    }
  };
  walk(root, 0, false, false);
  return out;
}
