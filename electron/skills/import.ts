import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { AppError } from '../contract/errors.js';
import type { SkillStore } from '../store/index.js';
import { skillNameKey } from '../store/index.js';
import { agentSkillToPackage, readFolder, unwrapSingleFolder } from './agent-skill.js';
import { packageToRows } from './convert.js';
import { formatBytes, type ImportLimits } from './limits.js';
import { agentSkillNameProblem } from './lint.js';
import { type PackageIssue, type SkillPackage, validatePackage } from './package-schema.js';
import { decodeUtf8Strict } from './strict-utf8.js';
import { compareVersions } from './version.js';
import { recordVersion } from './versions.js';
import { type FileMap, readZip } from './zip.js';

/** A package read from disk and validated, with where it came from. */
export interface LoadedPackage {
  file: string;
  pkg: SkillPackage;
  /** What did not stop it loading: an Agent Skills name off the standard. */
  warnings?: PackageIssue[];
}

/** What an import did to one skill. */
export interface ImportOutcome {
  name: string;
  scope: SkillStore['scope'];
  action: 'created' | 'updated' | 'unchanged';
  version: string;
  previous_version?: string;
  artifacts: number;
  file: string;
}

/**
 * Read and validate every package a path holds: a `.json` package, an Agent Skills folder
 * (`SKILL.md`), a folder of packages and skill folders, or a `.zip` of either. Nothing is written.
 */
export async function loadPackages(path: string, limits: ImportLimits): Promise<LoadedPackage[]> {
  if (!existsSync(path))
    throw new AppError('INVALID_INPUT', `${path}: no such file or folder`, { file: path });
  const st = statSync(path);
  if (st.isDirectory()) {
    if (existsSync(join(path, 'SKILL.md')))
      return [fromAgentFiles(readFolder(path, limits), path, basename(path))];
    const out: LoadedPackage[] = [];
    const files = readFolder(path, limits);
    const skillDirs = new Set<string>();
    for (const rel of files.keys()) {
      const parts = rel.split('/');
      if (parts.length === 2 && parts[1] === 'SKILL.md') skillDirs.add(parts[0]!);
    }
    for (const rel of [...files.keys()].sort()) {
      if (!rel.includes('/') && rel.endsWith('.json'))
        out.push(fromJson(files.get(rel)!, join(path, rel), limits));
    }
    for (const dir of [...skillDirs].sort()) {
      const sub: FileMap = new Map();
      for (const [rel, bytes] of files)
        if (rel.startsWith(`${dir}/`)) sub.set(rel.slice(dir.length + 1), bytes);
      out.push(fromAgentFiles(sub, join(path, dir), dir));
    }
    if (out.length === 0) {
      throw new AppError('INVALID_INPUT', `${path}: no SKILL.md, *.json packages or skill folders inside`, {
        file: path,
      });
    }
    return out;
  }
  if (st.size > limits.maxBytes) {
    throw new AppError(
      'TOO_LARGE',
      `${path}: ${formatBytes(st.size)} is over the ${formatBytes(limits.maxBytes)} import limit`,
      {
        file: path,
      },
    );
  }
  const bytes = readFileSync(path);
  if (
    path.toLowerCase().endsWith('.zip') ||
    bytes.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1'))
  ) {
    const zipped = await readZip(path, bytes, limits);
    const files = unwrapSingleFolder(zipped);
    if (files.has('SKILL.md')) {
      const folder =
        files === zipped ? basename(path).replace(/\.zip$/i, '') : [...zipped.keys()][0]!.split('/')[0]!;
      return [fromAgentFiles(files, path, folder)];
    }
    const jsons = [...files.keys()].filter((p) => p.endsWith('.json') && !p.includes('/')).sort();
    if (jsons.length === 0) {
      throw new AppError('INVALID_INPUT', `${path}: the zip holds neither a SKILL.md nor *.json packages`, {
        file: path,
      });
    }
    return jsons.map((p) => fromJson(files.get(p)!, `${path}:${p}`, limits));
  }
  if (basename(path) === 'SKILL.md') {
    return [fromAgentFiles(new Map([['SKILL.md', bytes]]), path, basename(dirname(path)))];
  }
  return [fromJson(bytes, path, limits)];
}

function fromJson(bytes: Buffer, file: string, limits: ImportLimits): LoadedPackage {
  if (bytes.length > limits.maxBytes) {
    throw new AppError(
      'TOO_LARGE',
      `${file}: ${formatBytes(bytes.length)} is over the ${formatBytes(limits.maxBytes)} import limit`,
      {
        file,
      },
    );
  }
  const text = decodeUtf8Strict(bytes, file);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new AppError('INVALID_INPUT', `${file}: not valid JSON (${(e as Error).message})`, { file });
  }
  return { file, pkg: check(raw, file) };
}

function fromAgentFiles(files: FileMap, file: string, folder: string): LoadedPackage {
  const pkg = check(agentSkillToPackage(files, file), file);
  // The Agent Skills client guide: warn about a name off the standard, and still load the skill.
  const problem = agentSkillNameProblem(pkg.name, folder);
  return { file, pkg, ...(problem ? { warnings: [{ path: 'name', message: problem }] } : {}) };
}

function check(raw: unknown, file: string): SkillPackage {
  const r = validatePackage(raw);
  if (r.ok) {
    assertNotSystemSource(r.value, file);
    return r.value;
  }
  const lines = r.issues.slice(0, 10).map((i) => `${i.path}: ${i.message}`);
  const more = r.issues.length > 10 ? `\n  … and ${r.issues.length - 10} more` : '';
  throw new AppError(
    'INVALID_INPUT',
    `${file}: ${lines.length === 1 ? lines[0] : `\n  ${lines.join('\n  ')}`}${more}`,
    {
      file,
      issues: r.issues,
    },
  );
}

/**
 * Refuse a package that claims to be one of SkillDesk's built-in skills. Only the app's own
 * `seed-skills/` are written as `source: "system"` (by `seedAccountStore`, which does not
 * come through here), so a shared package can never pass itself off as built in.
 */
export function assertNotSystemSource(pkg: SkillPackage, file: string): void {
  if (pkg.source !== 'system') return;
  throw new AppError(
    'INVALID_INPUT',
    `${file}: source: "system" is reserved for the skills that ship with SkillDesk; set "source" to "user" or "community" (or remove it) to import this package`,
    {
      file,
      issues: [
        {
          path: 'source',
          message: 'is reserved for the skills that ship with SkillDesk; use "user" or "community"',
        },
      ],
    },
  );
}

/** Options for {@link importPackages}. */
export interface ImportOptions {
  /**
   * Accept an older version over a newer one (and re-write an equal one), and replace a built-in
   * (`source: "system"`) skill of the same name.
   */
  force?: boolean;
}

/**
 * Write user packages into one store, all or nothing, in one transaction: a new name is created,
 * the same version is left alone, a newer version replaces the skill (keeping its id), an older
 * one is refused unless `force`. Names compare by {@link skillNameKey}. A package may not claim
 * `source: "system"`, and replacing a built-in skill needs `force` (the replacement keeps the
 * package's own source, so it is never labelled built-in).
 */
export function importPackages(
  store: SkillStore,
  loaded: LoadedPackage[],
  opts: ImportOptions = {},
): ImportOutcome[] {
  const seen = new Map<string, string>();
  for (const { pkg, file } of loaded) {
    assertNotSystemSource(pkg, file);
    const key = skillNameKey(pkg.name);
    const other = seen.get(key);
    if (other) {
      throw new AppError(
        'CONFLICT',
        `${file}: a skill named "${pkg.name}" is also in ${other}; import them separately`,
        { file },
      );
    }
    seen.set(key, file);
  }
  return store.repo.transaction(() =>
    loaded.map(({ pkg, file }): ImportOutcome => {
      const existing = store.repo.getSummaryByName(pkg.name);
      const base = {
        name: pkg.name,
        scope: store.scope,
        version: pkg.version,
        artifacts: pkg.artifacts.length,
        file,
      };
      if (!existing) {
        if (pkg.id && store.repo.getSkill(pkg.id)) {
          throw new AppError(
            'CONFLICT',
            `${file}: id ${pkg.id} already belongs to another skill in the ${store.scope} store; remove "id" to import it as a copy`,
            { file },
          );
        }
        const rows = packageToRows(pkg);
        store.repo.createSkill(rows.skill);
        for (const a of rows.artifacts) store.repo.addArtifact(a);
        return { ...base, action: 'created' };
      }
      if (existing.source === 'system' && !opts.force) {
        throw new AppError(
          'CONFLICT',
          `${file}: "${existing.name}" is a built-in SkillDesk skill in the ${store.scope} store, and importing "${pkg.name}" would replace it. Give your skill another name, or pass --force to replace the built-in one`,
          { file, name: existing.name, source: 'system' },
        );
      }
      const cmp = compareVersions(pkg.version, existing.version);
      if (cmp === 0 && !opts.force) return { ...base, name: existing.name, action: 'unchanged' };
      if (cmp < 0 && !opts.force) {
        throw new AppError(
          'VERSION_CONFLICT',
          `${file}: "${pkg.name}" ${pkg.version} is older than the ${existing.version} in the ${store.scope} store; pass --force to downgrade`,
          { file, version: pkg.version, installed: existing.version },
        );
      }
      const rows = packageToRows(pkg, existing.id);
      const replaced = store.repo.getSkill(existing.id);
      if (replaced) recordVersion(store.db, replaced, 'import');
      store.repo.updateSkill(rows.skill);
      store.repo.replaceArtifacts(existing.id, rows.artifacts);
      return { ...base, action: 'updated', previous_version: existing.version };
    }),
  );
}
