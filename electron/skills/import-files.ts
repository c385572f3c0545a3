import { AppError, isAppError } from '../contract/errors.js';
import type { SkillStore } from '../store/index.js';
import { agentSkillToPackage, unwrapSingleFolder } from './agent-skill.js';
import { type ImportOptions, importPackages, type LoadedPackage } from './import.js';
import { formatBytes, type ImportLimits } from './limits.js';
import { packageWarnings } from './lint.js';
import { type PackageIssue, type SkillPackage, validatePackage } from './package-schema.js';
import { safeRelativePath } from './safe-path.js';
import { skillsRefWarnings } from './skills-ref-rules.js';
import { decodeUtf8Strict } from './strict-utf8.js';
import { type FileMap, readZip } from './zip.js';

/** A file dropped or picked in a window: its path relative to what was dropped, and its bytes. */
export interface DroppedFile {
  path: string;
  bytes: Buffer;
}

/** One package found among dropped files: read and valid, or refused with why and where. */
export type DroppedPackage =
  | { source: string; ok: true; pkg: SkillPackage; warnings: PackageIssue[]; version_declared?: boolean }
  | { source: string; ok: false; name: string | null; reason: string; issues: PackageIssue[] };

/** What an import of dropped files did to one package. */
export interface DroppedOutcome {
  /** The file, folder or `zip:entry` it came from. */
  source: string;
  name: string | null;
  outcome: 'created' | 'updated' | 'unchanged' | 'refused' | 'not_imported';
  version?: string;
  previous_version?: string;
  /** An update whose version the import raised (the content changed, the package's version did not). */
  version_bumped?: boolean;
  /** What an update changed: the skill's fields and the artifacts added, removed or changed. */
  changed?: string[];
  /** Why it was refused or not imported. */
  reason?: string;
  /** Problems at JSON paths (refused packages). */
  issues: PackageIssue[];
  /** Problems that did not stop the import (an Agent Skills name off the standard, …). */
  warnings: PackageIssue[];
}

const isZip = (path: string, bytes: Buffer) =>
  path.toLowerCase().endsWith('.zip') || bytes.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1'));

/**
 * Sort dropped files into packages: `.json` packages, Agent Skills folders (every file under a
 * folder holding `SKILL.md`), and `.zip` files of either. Each package is validated on its own, so
 * one bad file is reported with its reason and JSON path while the others are still checked.
 * Nothing is written.
 */
export async function readDroppedFiles(
  files: DroppedFile[],
  limits: ImportLimits,
): Promise<DroppedPackage[]> {
  const out: DroppedPackage[] = [];
  const byPath: FileMap = new Map();
  for (const f of files) {
    let rel: string;
    try {
      rel = safeRelativePath(f.path, f.path);
    } catch (e) {
      out.push(refusal(f.path, null, e));
      continue;
    }
    byPath.set(rel, f.bytes);
  }
  // Folders holding a SKILL.md; a file belongs to the deepest one above it.
  const roots = [...byPath.keys()]
    .filter((p) => p === 'SKILL.md' || p.endsWith('/SKILL.md'))
    .map((p) => p.slice(0, -'SKILL.md'.length).replace(/\/$/, ''))
    .sort((a, b) => b.length - a.length);
  const folders = new Map<string, FileMap>(roots.map((r) => [r, new Map()]));
  for (const [path, bytes] of byPath) {
    const root = roots.find((r) => r === '' || path.startsWith(`${r}/`));
    if (root !== undefined) {
      folders.get(root)!.set(root ? path.slice(root.length + 1) : path, bytes);
      continue;
    }
    if (isZip(path, bytes)) out.push(...(await fromZip(path, bytes, limits)));
    else if (path.toLowerCase().endsWith('.json')) out.push(fromJson(path, bytes, limits));
    else {
      out.push({
        source: path,
        ok: false,
        name: null,
        reason: 'not a skill package: drop .json packages, .zip files or folders holding a SKILL.md',
        issues: [],
      });
    }
  }
  for (const [root, map] of [...folders].sort(([a], [b]) => a.localeCompare(b))) {
    out.push(fromAgentFolder(root || 'SKILL.md', root.split('/').pop() || null, map, limits));
  }
  return out;
}

async function fromZip(path: string, bytes: Buffer, limits: ImportLimits): Promise<DroppedPackage[]> {
  let files: FileMap;
  try {
    if (bytes.length > limits.maxBytes) throw tooLarge(path, bytes.length, limits);
    files = await readZip(path, bytes, limits);
  } catch (e) {
    return [refusal(path, null, e)];
  }
  const unwrapped = unwrapSingleFolder(files);
  if (unwrapped.has('SKILL.md')) {
    const top = unwrapped === files ? null : [...files.keys()][0]!.split('/')[0]!;
    return [fromAgentFolder(path, top ?? zipStem(path), unwrapped, limits)];
  }
  const jsons = [...files.keys()].filter((p) => p.endsWith('.json') && !p.includes('/')).sort();
  if (jsons.length === 0) {
    return [
      {
        source: path,
        ok: false,
        name: null,
        reason: 'the zip holds neither a SKILL.md nor *.json packages at its top',
        issues: [],
      },
    ];
  }
  return jsons.map((p) => fromJson(`${path}:${p}`, files.get(p)!, limits));
}

function zipStem(path: string): string {
  return (path.split('/').pop() ?? path).replace(/\.zip$/i, '');
}

function fromJson(source: string, bytes: Buffer, limits: ImportLimits): DroppedPackage {
  if (bytes.length > limits.maxBytes) return refusal(source, null, tooLarge(source, bytes.length, limits));
  let raw: unknown;
  try {
    raw = JSON.parse(decodeUtf8Strict(bytes, source));
  } catch (e) {
    if (isAppError(e))
      return {
        source,
        ok: false,
        name: null,
        reason: e.message,
        issues: [{ path: '(package)', message: e.message }],
      };
    const message = `not valid JSON (${(e as Error).message})`;
    return { source, ok: false, name: null, reason: message, issues: [{ path: '(package)', message }] };
  }
  return checked(source, raw, []);
}

function fromAgentFolder(
  source: string,
  folder: string | null,
  files: FileMap,
  limits: ImportLimits,
): DroppedPackage {
  let total = 0;
  for (const b of files.values()) total += b.length;
  if (total > limits.maxBytes) return refusal(source, null, tooLarge(source, total, limits));
  if (files.size > limits.maxFiles) {
    return refusal(
      source,
      null,
      new AppError('TOO_LARGE', `${source}: more than ${limits.maxFiles} files`, { file: source }),
    );
  }
  let raw: Record<string, unknown>;
  try {
    raw = agentSkillToPackage(files, source);
  } catch (e) {
    return refusal(source, null, e);
  }
  const r = checked(source, raw, skillsRefWarnings(files.get('SKILL.md')!, folder));
  if (!r.ok) return r;
  return {
    ...r,
    version_declared: typeof raw.version === 'string',
  };
}

function checked(source: string, raw: unknown, warnings: PackageIssue[]): DroppedPackage {
  const name =
    raw && typeof raw === 'object' && typeof (raw as { name?: unknown }).name === 'string'
      ? ((raw as { name: string }).name as string)
      : null;
  const r = validatePackage(raw);
  if (!r.ok) {
    const first = r.issues[0]!;
    return { source, ok: false, name, reason: `${first.path}: ${first.message}`, issues: r.issues };
  }
  if (r.value.source === 'system') {
    const message = 'is reserved for the skills that ship with SkillDesk; use "user" or "community"';
    return {
      source,
      ok: false,
      name,
      reason: `source: ${message}`,
      issues: [{ path: 'source', message }],
    };
  }
  return { source, ok: true, pkg: r.value, warnings: [...warnings, ...packageWarnings(r.value)] };
}

function tooLarge(source: string, bytes: number, limits: ImportLimits): AppError {
  return new AppError(
    'TOO_LARGE',
    `${source}: ${formatBytes(bytes)} is over the ${formatBytes(limits.maxBytes)} import limit`,
    { file: source },
  );
}

function refusal(source: string, name: string | null, e: unknown): DroppedPackage {
  if (!(e instanceof AppError)) throw e;
  const details = (e.details ?? {}) as { issues?: PackageIssue[]; path?: string };
  const issues = details.issues ?? (details.path ? [{ path: details.path, message: e.message }] : []);
  // The message names the file already; the report shows the file beside it.
  const reason = e.message.startsWith(`${source}`)
    ? e.message.slice(source.length).replace(/^[:/\s]+/, '')
    : e.message;
  return { source, ok: false, name, reason: reason || e.message, issues };
}

/**
 * Import dropped packages into one store, all or nothing: when any package is refused (here or by
 * the store: an older version, a name taken twice, a built-in skill) nothing is written, and the
 * report says which one and why, the others `not_imported`.
 */
export function importDropped(
  store: SkillStore,
  found: DroppedPackage[],
  opts: ImportOptions = {},
): { written: boolean; packages: DroppedOutcome[] } {
  const notImported = (p: DroppedPackage, reason: string): DroppedOutcome => ({
    source: p.source,
    name: p.ok ? p.pkg.name : p.name,
    outcome: 'not_imported',
    reason,
    issues: [],
    warnings: p.ok ? p.warnings : [],
  });
  const refusedRow = (p: DroppedPackage & { ok: false }): DroppedOutcome => ({
    source: p.source,
    name: p.name,
    outcome: 'refused',
    reason: p.reason,
    issues: p.issues,
    warnings: [],
  });
  if (found.length === 0) return { written: false, packages: [] };
  if (found.some((p) => !p.ok)) {
    return {
      written: false,
      packages: found.map((p) =>
        p.ok
          ? notImported(p, 'valid, but nothing was imported because another package was refused')
          : refusedRow(p),
      ),
    };
  }
  const ok = found as Array<DroppedPackage & { ok: true }>;
  const loaded: LoadedPackage[] = ok.map((p) => ({
    file: p.source,
    pkg: p.pkg,
    version_declared: p.version_declared,
  }));
  try {
    const outcomes = importPackages(store, loaded, opts);
    return {
      written: outcomes.some((o) => o.action !== 'unchanged'),
      packages: outcomes.map((o, i) => ({
        source: o.file,
        name: o.name,
        outcome: o.action,
        version: o.version,
        ...(o.previous_version ? { previous_version: o.previous_version } : {}),
        ...(o.version_bumped ? { version_bumped: true } : {}),
        ...(o.changes
          ? {
              changed: [
                ...o.changes.fields.map((f) => f.field),
                ...o.changes.artifacts.map((a) => `${a.name} (${a.change})`),
              ],
            }
          : {}),
        issues: [],
        warnings: ok[i]!.warnings,
      })),
    };
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    const file = (e.details as { file?: string } | undefined)?.file;
    const blamed = ok.find((p) => p.source === file);
    return {
      written: false,
      packages: ok.map((p) =>
        p === (blamed ?? ok[0])
          ? refusedRow({
              source: p.source,
              ok: false,
              name: p.pkg.name,
              reason: e.message.startsWith(p.source) ? e.message.slice(p.source.length + 2) : e.message,
              issues: ((e.details as { issues?: PackageIssue[] } | undefined)?.issues ??
                []) as PackageIssue[],
            })
          : notImported(p, 'valid, but nothing was imported because another package was refused'),
      ),
    };
  }
}
