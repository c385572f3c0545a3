import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { AppError } from '../contract/errors.js';
import type { SkillStore } from '../store/index.js';
import { skillNameKey } from '../store/index.js';
import { agentSkillToPackage, readFolder, unwrapSingleFolder } from './agent-skill.js';
import { contentHash } from './content-hash.js';
import { packageToRows, skillToPackage } from './convert.js';
import { findSkillFolders } from './discover-folders.js';
import { formatBytes, type ImportLimits, SIZE_REMEDY } from './limits.js';
import { type PackageIssue, type SkillPackage, validatePackage } from './package-schema.js';
import { skillsRefWarnings } from './skills-ref-rules.js';
import { decodeUtf8Strict } from './strict-utf8.js';
import { bumpPatch, compareVersions } from './version.js';
import { type ArtifactDiff, diffPackages, type PackageDiff, recordVersion } from './versions.js';
import { type FileMap, readZip } from './zip.js';

/** A package read from disk and validated, with where it came from. */
export interface LoadedPackage {
  file: string;
  pkg: SkillPackage;
  /** What did not stop it loading: an Agent Skills name off the standard. */
  warnings?: PackageIssue[];
  /**
   * False when the source gave no version (most Agent Skills folders): the package's `1.0.0` is a
   * default then, and an update of its content bumps the installed version instead.
   */
  version_declared?: boolean;
}

/** How an updated skill differs from the one it replaced (unchanged artifacts left out). */
export interface ImportChanges {
  fields: PackageDiff['fields'];
  artifacts: ArtifactDiff[];
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
  /** {@link contentHash} of what is installed after the import (what would be, on a dry run). */
  content_hash: string;
  previous_content_hash?: string;
  /** The version was raised by the import: the content changed and the package's did not. */
  version_bumped?: boolean;
  /** What an update changes. */
  changes?: ImportChanges;
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
    // A collection, at any depth: the limits apply to each package in it (a skill folder, a .json
    // file), so a collection of a thousand skills imports under the defaults as each would.
    const found = findSkillFolders(path);
    const link = found.skipped.find((x) => x.reason === 'symbolic_link');
    if (link)
      throw new AppError('UNSAFE_PATH', `${link.path} is a symbolic link; links are not imported`, {
        file: link.path,
      });
    const out: LoadedPackage[] = [];
    for (const file of found.jsonFiles) {
      const size = statSync(file).size;
      if (size > limits.maxBytes) throw tooLarge(file, size, limits);
      out.push(fromJson(readFileSync(file), file, limits));
    }
    for (const dir of found.skillDirs) out.push(fromAgentFiles(readFolder(dir, limits), dir, basename(dir)));
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
      `${path}: ${formatBytes(st.size)} is over the ${formatBytes(limits.maxBytes)} import limit; ${SIZE_REMEDY}`,
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

function tooLarge(file: string, bytes: number, limits: ImportLimits): AppError {
  return new AppError(
    'TOO_LARGE',
    `${file}: ${formatBytes(bytes)} is over the ${formatBytes(limits.maxBytes)} import limit; ${SIZE_REMEDY}`,
    { file },
  );
}

function fromJson(bytes: Buffer, file: string, limits: ImportLimits): LoadedPackage {
  if (bytes.length > limits.maxBytes) {
    throw new AppError(
      'TOO_LARGE',
      `${file}: ${formatBytes(bytes.length)} is over the ${formatBytes(limits.maxBytes)} import limit; ${SIZE_REMEDY}`,
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
  const raw = agentSkillToPackage(files, file);
  const pkg = check(raw, file);
  // The Agent Skills client guide: warn about a name off the standard, and still load the skill.
  // Everything the reference validator would reject, read from the file as it reads it.
  const warnings = skillsRefWarnings(files.get('SKILL.md')!, folder);
  return {
    file,
    pkg,
    version_declared: typeof raw.version === 'string',
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

/**
 * The package as the `skills/import-packages` channel carries it: without a version the source
 * did not declare, so the store can tell a default `1.0.0` from a declared one.
 */
export function packageForChannel(l: LoadedPackage): Record<string, unknown> {
  if (l.version_declared !== false) return l.pkg as Record<string, unknown>;
  const { version: _v, ...rest } = l.pkg;
  return rest;
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
   * Accept an older version over a newer one, and replace a built-in (`source: "system"`) skill of
   * the same name.
   */
  force?: boolean;
  /** Work out and report what the import would do; write nothing. */
  dryRun?: boolean;
}

/**
 * Write user packages into one store, all or nothing, in one transaction. What is installed is
 * compared by content ({@link contentHash}), not by version: a new name is created; the same content
 * is left alone (`unchanged`, whatever the versions say, except that a higher declared version is
 * taken); different content is an update, the replaced skill kept in its history. An update takes
 * the package's version when it is higher than the installed one, else the installed version with
 * its patch number raised (most Agent Skills declare none, and `1.0.0` again must not hide an
 * edit); a declared lower version is refused unless `force`. Names compare by {@link skillNameKey}.
 * A package may not claim `source: "system"`, and replacing a built-in skill needs `force` (the
 * replacement keeps the package's own source, so it is never labelled built-in). With `dryRun`
 * the outcomes are the same and nothing is written.
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
  const write = !opts.dryRun;
  return store.repo.transaction(() =>
    loaded.map(({ pkg, file, version_declared }): ImportOutcome => {
      const existing = store.repo.getSummaryByName(pkg.name);
      const hash = contentHash(pkg);
      const base = {
        name: pkg.name,
        scope: store.scope,
        version: pkg.version,
        artifacts: pkg.artifacts.length,
        file,
        content_hash: hash,
      };
      if (!existing) {
        if (pkg.id && store.repo.getSkill(pkg.id)) {
          throw new AppError(
            'CONFLICT',
            `${file}: id ${pkg.id} already belongs to another skill in the ${store.scope} store; remove "id" to import it as a copy`,
            { file },
          );
        }
        if (write) {
          const rows = packageToRows(pkg);
          store.repo.createSkill(rows.skill);
          for (const a of rows.artifacts) store.repo.addArtifact(a);
        }
        return { ...base, action: 'created' };
      }
      if (existing.source === 'system' && !opts.force) {
        throw new AppError(
          'CONFLICT',
          `${file}: "${existing.name}" is a built-in SkillDesk skill in the ${store.scope} store, and importing "${pkg.name}" would replace it. Give your skill another name, or pass --force to replace the built-in one`,
          { file, name: existing.name, source: 'system' },
        );
      }
      const replaced = store.repo.getSkill(existing.id)!;
      const installed = skillToPackage(replaced);
      const previousHash = contentHash(installed);
      const declared = version_declared !== false;
      const cmp = compareVersions(pkg.version, existing.version);
      const sameContent = previousHash === hash && pkg.name === existing.name;
      if (sameContent && !(declared && cmp > 0)) {
        return {
          ...base,
          name: existing.name,
          version: existing.version,
          action: 'unchanged',
          previous_content_hash: previousHash,
        };
      }
      if (declared && cmp < 0 && !opts.force) {
        throw new AppError(
          'VERSION_CONFLICT',
          `${file}: "${pkg.name}" ${pkg.version} is older than the ${existing.version} in the ${store.scope} store; raise its version above ${existing.version}, or pass --force to downgrade`,
          { file, version: pkg.version, installed: existing.version },
        );
      }
      const bumped = !sameContent && !(declared && cmp !== 0);
      const version = bumped ? bumpPatch(existing.version) : pkg.version;
      const next: SkillPackage = { ...pkg, version };
      const diff = diffPackages(installed, next);
      if (write) {
        const rows = packageToRows(next, existing.id);
        recordVersion(store.db, replaced, 'import');
        store.repo.updateSkill(rows.skill);
        store.repo.replaceArtifacts(existing.id, rows.artifacts);
      }
      return {
        ...base,
        version,
        action: 'updated',
        previous_version: existing.version,
        previous_content_hash: previousHash,
        ...(bumped ? { version_bumped: true } : {}),
        changes: {
          fields: diff.fields,
          artifacts: diff.artifacts.filter((a) => a.change !== 'unchanged'),
        },
      };
    }),
  );
}
