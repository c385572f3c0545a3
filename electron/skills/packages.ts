import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../contract/errors.js';
import type { Skill } from '../store/index.js';
import { DEFAULT_PACKAGE_INDEX, runCleanPip } from './pip.js';
import {
  isRequirementsPath,
  normalizeName,
  parseRequirements,
  type Requirement,
  requirementLine,
} from './requirements.js';

/**
 * Pure-Python packages for skills' scripts: declared in a `requirements.txt` of the skill, fetched
 * once with pip (wheels only, for any platform, for the sandbox's Python) into a wheelhouse under
 * the account's data folder, recorded with their SHA-256, and handed to each run of that skill's
 * scripts read-only. Code in the sandbox never downloads anything.
 */

/** The sandbox's Python version (Pyodide's), which pip resolves for. */
export const SANDBOX_PYTHON_VERSION = '3.14';

/** A wheel in the wheelhouse. */
export interface WheelRecord {
  filename: string;
  name: string;
  version: string;
  sha256: string;
  size: number;
}

/** What an install did, for the CLI and the app. */
export interface PackageInstallReport {
  skill: string;
  requirements: string[];
  wheels: WheelRecord[];
  /** True when nothing had to be downloaded (all there, hashes checked). */
  already_installed: boolean;
}

const LockSchema = z.object({
  version: z.literal(1),
  wheels: z.record(
    z.string(),
    z.object({ name: z.string(), version: z.string(), sha256: z.string(), size: z.number() }),
  ),
  skills: z.record(
    z.string(),
    z.object({ requirements: z.array(z.string()), wheels: z.array(z.string()), installed_at: z.string() }),
  ),
});
type Lock = z.infer<typeof LockSchema>;

/** The account's wheelhouse folder. */
export function wheelhouseDir(home: string): string {
  return join(home, 'packages');
}

const lockPath = (home: string) => join(wheelhouseDir(home), 'packages.json');
const wheelsDir = (home: string) => join(wheelhouseDir(home), 'wheels');

function readLock(home: string): Lock {
  try {
    return LockSchema.parse(JSON.parse(readFileSync(lockPath(home), 'utf8')));
  } catch {
    return { version: 1, wheels: {}, skills: {} };
  }
}

function writeLock(home: string, lock: Lock): void {
  mkdirSync(wheelhouseDir(home), { recursive: true });
  const tmp = `${lockPath(home)}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(lock, null, 2)}\n`);
  renameSync(tmp, lockPath(home));
}

/** The requirements a skill declares: every `requirements.txt` among its files. */
export function skillRequirements(skill: Skill): Requirement[] {
  const out: Requirement[] = [];
  for (const a of skill.artifacts) {
    const path = typeof a.metadata?.path === 'string' ? a.metadata.path : null;
    if (!path || !isRequirementsPath(path)) continue;
    // Import refuses a binary requirements.txt; one stored before that rule is refused here too.
    if (a.metadata?.encoding === 'base64')
      throw new AppError(
        'INVALID_INPUT',
        `${skill.name}/${path} is not text; a requirements.txt must be UTF-8 text`,
        {
          file: `${skill.name}/${path}`,
        },
      );
    out.push(...parseRequirements(a.content, `${skill.name}/${path}`));
  }
  return out;
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** `name-version-…-py3-none-any.whl` → name, version, and whether it runs anywhere. */
export function wheelTags(filename: string): { name: string; version: string; pure: boolean } | null {
  const m = /^([^-]+)-([^-]+)(?:-\d[^-]*)?-([^-]+)-([^-]+)-([^-]+)\.whl$/.exec(filename);
  if (!m) return null;
  const [, name, version, py, abi, platform] = m;
  const pure =
    abi === 'none' && platform === 'any' && py!.split('.').some((t) => t === 'py3' || t.startsWith('py3'));
  return { name: normalizeName(name!), version: version!, pure };
}

interface PyodideLockEntry {
  name: string;
  version: string;
  file_name: string;
}

/** Pyodide's own builds (its lock file), by normalised name. */
function pyodideBuilds(): Map<string, PyodideLockEntry> {
  try {
    const require = createRequire(import.meta.url);
    const dir = dirname(require.resolve('pyodide/package.json'));
    const lock = JSON.parse(readFileSync(join(dir, 'pyodide-lock.json'), 'utf8')) as {
      packages: Record<string, PyodideLockEntry>;
    };
    return new Map(Object.values(lock.packages).map((p) => [normalizeName(p.name), p]));
  } catch {
    return new Map();
  }
}

/**
 * Why a package cannot be used in the sandbox, in words that name it, and, when the skill did not
 * ask for it itself, the package that needs it (`via`, e.g. "mcp → pydantic").
 */
export function compiledPackageError(name: string, via?: string): AppError {
  const build = pyodideBuilds().get(normalizeName(name));
  const who = via ? `${via} needs "${name}", which` : `"${name}"`;
  const why = build
    ? `${who} has compiled (C/Rust) code and no pure-Python wheel; Pyodide builds it (${build.name} ${build.version}) but SkillDesk's sandbox ships only Pyodide's core, so it cannot be installed`
    : `${who} has compiled (C/Rust) code and no pure-Python wheel, and Pyodide has no build of it, so it cannot run in the sandbox`;
  return new AppError('INVALID_INPUT', `${why}. Scripts may use pure-Python packages only.`, {
    package: name,
    ...(via ? { required_by: via } : {}),
  });
}

/** Options of {@link installSkillPackages}. */
export interface InstallPackagesOptions {
  signal?: AbortSignal;
  /** The index the *user* chose in Settings; PyPI when absent. A skill never chooses one. */
  indexUrl?: string;
}

/**
 * Fetch a skill's declared packages into the wheelhouse: pip resolves them (dependencies included)
 * for the sandbox's Python as pure-Python wheels only (`--only-binary=:all: --platform any`), with
 * `--require-hashes` when every line pins a hash. pip reads a requirements file SkillDesk writes
 * from what it parsed, never the skill's own. Each wheel's SHA-256 is recorded; a package with
 * compiled code (asked for, or needed by one asked for) is refused naming it. Nothing is changed
 * when the download fails.
 */
export async function installSkillPackages(
  home: string,
  skill: Skill,
  opts: InstallPackagesOptions = {},
): Promise<PackageInstallReport> {
  const reqs = skillRequirements(skill);
  if (reqs.length === 0) {
    throw new AppError(
      'INVALID_INPUT',
      `skill "${skill.name}" declares no packages (add a requirements.txt beside its scripts)`,
    );
  }
  const specs = reqs.map((r) => r.spec);
  const have = checkInstalled(home, skill.name, specs);
  if (have) return { skill: skill.name, requirements: specs, wheels: have, already_installed: true };
  const tmp = mkdtempSync(join(tmpdir(), 'skilldesk-wheels-'));
  try {
    const reqFile = join(tmp, 'requirements.txt');
    const pinned = reqs.every((r) => r.hashes.length > 0);
    writeFileSync(reqFile, `${reqs.map(requirementLine).join('\n')}\n`);
    const dl = join(tmp, 'dl');
    const { code, out } = await runCleanPip(
      'download',
      [
        '--only-binary=:all:',
        '--platform',
        'any',
        '--implementation',
        'py',
        '--abi',
        'none',
        '--python-version',
        SANDBOX_PYTHON_VERSION,
        ...(pinned ? ['--require-hashes'] : []),
        '-d',
        dl,
        '-r',
        reqFile,
      ],
      { signal: opts.signal, indexUrl: opts.indexUrl },
    );
    if (code !== 0) throw pipFailure(skill.name, reqs, out, opts.indexUrl);
    const wheels: WheelRecord[] = [];
    for (const filename of readdirSync(dl).sort()) {
      const tags = wheelTags(filename);
      if (!tags) throw new AppError('INVALID_INPUT', `pip fetched "${filename}", which is not a wheel`);
      if (!tags.pure) throw compiledPackageError(tags.name);
      const bytes = readFileSync(join(dl, filename));
      wheels.push({
        filename,
        name: tags.name,
        version: tags.version,
        sha256: sha256(bytes),
        size: bytes.length,
      });
    }
    mkdirSync(wheelsDir(home), { recursive: true });
    for (const w of wheels) copyFileSync(join(dl, w.filename), join(wheelsDir(home), w.filename));
    const lock = readLock(home);
    for (const w of wheels)
      lock.wheels[w.filename] = { name: w.name, version: w.version, sha256: w.sha256, size: w.size };
    lock.skills[skill.name] = {
      requirements: specs,
      wheels: wheels.map((w) => w.filename),
      installed_at: new Date().toISOString(),
    };
    writeLock(home, lock);
    return { skill: skill.name, requirements: specs, wheels, already_installed: false };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Why pip could not fetch a skill's packages, naming the package at fault. pip says it two ways
 * when a package has no pure-Python wheel: "No matching distribution found for X" when no version
 * of X has one, and a ResolutionImpossible whose "conflict is caused by" lines say which versions
 * of a dependency "depend on" the package no wheel of which fits (pydantic → pydantic-core under
 * mcp). The requirement it came through is named too, from the requirements SkillDesk passed.
 */
export function pipFailure(skill: string, reqs: Requirement[], out: string, indexUrl?: string): AppError {
  const requested = new Set(reqs.map((r) => r.name));
  // An index that did not answer makes pip say "from versions: none" too: that is no verdict on
  // the package, so it is said as what it is.
  const unreachable =
    /Failed to establish a new connection|NewConnectionError|ConnectTimeoutError|SSLError|Could not fetch URL|ProxyError|Name or service not known/.exec(
      out,
    );
  if (unreachable) {
    return new AppError(
      'INVALID_INPUT',
      `pip could not reach the package index ${indexUrl ?? DEFAULT_PACKAGE_INDEX} (${unreachable[0]}) while fetching the packages of "${skill}"; check the network, or the index set in Settings`,
      { skill },
    );
  }
  const missing = /No matching distribution found for ([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(out)?.[1];
  if (missing && /from versions: none\)|Could not find a version/.test(out)) {
    const via = /satisfies the requirement \S+ \(from ([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(out)?.[1];
    return compiledPackageError(missing, via && !requested.has(normalizeName(missing)) ? via : undefined);
  }
  const caused = /The conflict is caused by:\n((?:[ \t]+\S.*\n?)+)/.exec(out)?.[1];
  if (caused) {
    const deps = new Map<string, Set<string>>();
    for (const m of caused.matchAll(
      /^\s+([A-Za-z0-9][A-Za-z0-9._-]*) \S+ depends on ([A-Za-z0-9][A-Za-z0-9._-]*)/gm,
    )) {
      const dep = normalizeName(m[2]!);
      if (!deps.has(dep)) deps.set(dep, new Set());
      deps.get(dep)!.add(normalizeName(m[1]!));
    }
    // One package every conflicting version needs: that is the one without a usable wheel.
    if (deps.size === 1) {
      const [dep, parents] = [...deps][0]!;
      const top = /Cannot install ([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(out)?.[1];
      const chain = [top, ...parents].filter((x): x is string => !!x && normalizeName(x) !== dep);
      return compiledPackageError(dep, chain.length ? [...new Set(chain)].join(' → ') : undefined);
    }
  }
  const last = out
    .trim()
    .split('\n')
    .filter((l) => !/^\[notice\]/.test(l))
    .slice(-3)
    .join(' ')
    .slice(0, 600);
  return new AppError('INVALID_INPUT', `pip could not fetch the packages of "${skill}": ${last}`, { skill });
}

/** The skill's recorded wheels when they match its requirements and their hashes; else null. */
function checkInstalled(home: string, skill: string, specs: string[]): WheelRecord[] | null {
  const lock = readLock(home);
  const entry = lock.skills[skill];
  if (!entry || JSON.stringify(entry.requirements) !== JSON.stringify(specs)) return null;
  const out: WheelRecord[] = [];
  for (const filename of entry.wheels) {
    const rec = lock.wheels[filename];
    const path = join(wheelsDir(home), filename);
    if (!rec || !existsSync(path) || sha256(readFileSync(path)) !== rec.sha256) return null;
    out.push({ filename, ...rec });
  }
  return out;
}

/**
 * The wheels to mount for a run of the skill's scripts, each checked against its recorded SHA-256
 * (a changed file is not mounted), and what it declares but has not installed.
 */
export function skillPackages(
  home: string,
  skill: Skill,
): { wheels: Array<{ filename: string; bytes: Uint8Array }>; missing: string[] } {
  let specs: string[];
  try {
    specs = skillRequirements(skill).map((r) => r.spec);
  } catch {
    return { wheels: [], missing: [] };
  }
  if (specs.length === 0) return { wheels: [], missing: [] };
  const lock = readLock(home);
  const entry = lock.skills[skill.name];
  if (!entry) return { wheels: [], missing: specs };
  const wheels: Array<{ filename: string; bytes: Uint8Array }> = [];
  const broken: string[] = [];
  for (const filename of entry.wheels) {
    const rec = lock.wheels[filename];
    try {
      const bytes = readFileSync(join(wheelsDir(home), filename));
      if (rec && sha256(bytes) === rec.sha256) wheels.push({ filename, bytes });
      else broken.push(filename);
    } catch {
      broken.push(filename);
    }
  }
  const declared = new Set(entry.requirements);
  const missing = [...specs.filter((s) => !declared.has(s)), ...broken.map((b) => `${b} (changed on disk)`)];
  return { wheels, missing };
}

/** Every skill's installed packages, for `skills packages list`. */
export function listInstalledPackages(
  home: string,
): Array<{ skill: string; requirements: string[]; wheels: WheelRecord[]; installed_at: string }> {
  const lock = readLock(home);
  return Object.entries(lock.skills)
    .map(([skill, e]) => ({
      skill,
      requirements: e.requirements,
      installed_at: e.installed_at,
      wheels: e.wheels.flatMap((f) => (lock.wheels[f] ? [{ filename: f, ...lock.wheels[f]! }] : [])),
    }))
    .sort((a, b) => a.skill.localeCompare(b.skill));
}
