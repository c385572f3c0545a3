/**
 * What `skills import PATH` reads: a package, a skill folder, a zip, an Agent Plugin, or a folder
 * holding any number of them at any depth (a repository of collections). For a folder it says
 * which collections it found (each folder that directly holds skills) and what it passed over
 * and why, so a large repository never imports in part without a word.
 */
import { statSync } from 'node:fs';
import { dirname, relative, sep } from 'node:path';
import { AppError } from '../contract/errors.js';
import { findSkillFolders, type SkippedEntry } from './discover-folders.js';
import { type LoadedPackage, loadPackages } from './import.js';
import type { ImportLimits } from './limits.js';
import { type LoadedPlugin, loadPlugin, pluginManifestPath } from './plugin.js';

/** A folder that directly holds skills (or plugins), and how many. */
export interface FoundCollection {
  /** Relative to the imported path (`.` for the path itself). */
  path: string;
  skills: number;
  plugins: number;
}

/** What was passed over under the imported path. */
export interface SkippedPath {
  /** Relative to the imported path. */
  path: string;
  reason: SkippedEntry['reason'] | 'nothing_to_import';
  /** Why, in a sentence, with what to do when something can be done. */
  message: string;
}

/** What {@link loadCollection} read. */
export interface LoadedCollection {
  packages: LoadedPackage[];
  plugins: LoadedPlugin[];
  collections: FoundCollection[];
  skipped: SkippedPath[];
}

/** Options of {@link loadCollection}. */
export interface CollectionOptions {
  /** Deepest level a skill may be at below the imported folder (its subfolders are level 1). */
  depth?: number;
}

function why(e: SkippedEntry, depth: number | undefined): string {
  switch (e.reason) {
    case 'too_deep':
      return `deeper than --depth ${depth}; raise --depth or import that folder itself`;
    case 'symbolic_link':
      return 'a symbolic link; links are not followed (import the folder it points to)';
    case 'not_a_package':
      return 'a repository or plugin manifest, not a skill package';
  }
}

/** Read everything `path` holds (see the module comment). Nothing is written. */
export async function loadCollection(
  path: string,
  limits: ImportLimits,
  opts: CollectionOptions = {},
): Promise<LoadedCollection> {
  const empty = { packages: [], plugins: [], collections: [], skipped: [] };
  if (pluginManifestPath(path)) return { ...empty, plugins: [await loadPlugin(path, limits)] };
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    // loadPackages says what is wrong with a path that is not there.
  }
  if (!isDir) return { ...empty, packages: await loadPackages(path, limits) };
  const found = findSkillFolders(path, { plugins: true, maxDepth: opts.depth });
  if (found.skillDirs.length === 1 && found.skillDirs[0] === path)
    return { ...empty, packages: await loadPackages(path, limits) };
  const rel = (p: string) => relative(path, p).split(sep).join('/') || '.';
  const link = found.skipped.find((x) => x.reason === 'symbolic_link');
  if (link)
    throw new AppError('UNSAFE_PATH', `${link.path} is a symbolic link; links are not imported`, {
      file: link.path,
    });
  const packages: LoadedPackage[] = [];
  for (const p of [...found.jsonFiles, ...found.skillDirs]) packages.push(...(await loadPackages(p, limits)));
  const plugins: LoadedPlugin[] = [];
  // A plugin of commands or agents only, inside a repository of collections, is passed over and
  // said so: it is not bad input, and it must not stop the skills beside it (a plugin imported
  // on its own still says there is nothing to import).
  const empty_plugins: SkippedPath[] = [];
  for (const p of found.pluginDirs) {
    const plugin = await loadPlugin(p, limits, { allowEmpty: true });
    if (plugin.skills.length > 0 || plugin.servers.length > 0) plugins.push(plugin);
    else
      empty_plugins.push({
        path: rel(p),
        reason: 'nothing_to_import',
        message: `the plugin "${plugin.name}" holds no skills and no MCP servers (SkillDesk installs only those)${plugin.not_installed.length > 0 ? `; not installed: ${plugin.not_installed.map((x) => x.path).join(', ')}` : ''}`,
      });
  }
  const counts = new Map<string, FoundCollection>();
  const count = (dir: string, what: 'skills' | 'plugins') => {
    const c = counts.get(dir) ?? { path: rel(dir), skills: 0, plugins: 0 };
    c[what]++;
    counts.set(dir, c);
  };
  for (const d of found.skillDirs) count(dirname(d), 'skills');
  for (const f of found.jsonFiles) count(dirname(f), 'skills');
  for (const pl of plugins) count(dirname(pl.dir), 'plugins');
  if (packages.length === 0 && plugins.length === 0) {
    if (empty_plugins.length > 0 && found.skipped.length === 0)
      throw new AppError(
        'INVALID_INPUT',
        `${path}: nothing to import: ${empty_plugins.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
        {
          file: path,
        },
      );
    const deep = found.skipped.filter((s) => s.reason === 'too_deep').length;
    throw new AppError(
      'INVALID_INPUT',
      deep > 0
        ? `${path}: no skills within --depth ${opts.depth}; ${deep} skill folder${deep === 1 ? ' is' : 's are'} deeper: raise --depth`
        : `${path}: no SKILL.md, *.json packages, skill folders or plugins inside`,
      { file: path },
    );
  }
  return {
    packages,
    plugins,
    collections: [...counts.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    skipped: [
      ...found.skipped.map((s) => ({ path: rel(s.path), reason: s.reason, message: why(s, opts.depth) })),
      ...empty_plugins,
    ],
  };
}
