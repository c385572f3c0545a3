import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../../contract/errors.js';
import {
  normalizeName,
  parseRequirements,
  pythonCommand,
  runCleanPip,
  wheelTags,
} from '../../skills/index.js';

/**
 * Packages of the native runtime: one virtual environment per skill, made from the user's
 * CPython 3.11+, filled only with wheels (`--only-binary=:all:`: manylinux/macOS builds, never a
 * source build) that pip fetched first into a folder, that SkillDesk hashed (SHA-256) and wrote
 * into a lock, and that pip then installs from that folder alone (`--no-index --require-hashes`).
 * pip always runs through `runCleanPip` (an environment built from nothing, no config file).
 */

/** The oldest CPython the native runtime takes. */
export const MIN_NATIVE_PYTHON: readonly [number, number] = [3, 11];

/** A usable CPython: its absolute path and version. */
export interface NativePython {
  executable: string;
  version: string;
}

/** One wheel installed into a skill's environment. */
export interface NativeWheel {
  filename: string;
  name: string;
  version: string;
  sha256: string;
  size: number;
  /** False for a wheel with compiled code (not `py3-none-any`). */
  pure: boolean;
}

/** A skill's environment as the lock records it. */
export interface NativeEnvRecord {
  skill: string;
  /** What was asked for (requirement lines SkillDesk normalised). */
  requirements: string[];
  /** Where they came from: the skill's requirements.txt, or its scripts' imports. */
  from: 'requirements' | 'imports';
  python: string;
  python_version: string;
  venv: string;
  wheels: NativeWheel[];
  installed_at: string;
}

const WheelSchema = z.object({
  filename: z.string(),
  name: z.string(),
  version: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  size: z.number(),
  pure: z.boolean(),
});
const LockSchema = z.object({
  version: z.literal(1),
  skills: z.record(
    z.string(),
    z.object({
      requirements: z.array(z.string()),
      from: z.enum(['requirements', 'imports']),
      python: z.string(),
      python_version: z.string(),
      venv: z.string(),
      wheels: z.array(WheelSchema),
      installed_at: z.string(),
    }),
  ),
});
type Lock = z.infer<typeof LockSchema>;

/** The native runtime's folder in the account's data folder. */
export const nativeDir = (home: string) => join(home, 'native');
const lockFile = (home: string) => join(nativeDir(home), 'environments.json');

function readLock(home: string): Lock {
  const f = lockFile(home);
  if (!existsSync(f)) return { version: 1, skills: {} };
  try {
    return LockSchema.parse(JSON.parse(readFileSync(f, 'utf8')));
  } catch {
    throw new AppError(
      'STORE_FAILED',
      `${f} is not a valid environment lock: delete it and install the packages again`,
      {
        file: f,
      },
    );
  }
}

function writeLock(home: string, lock: Lock): void {
  mkdirSync(nativeDir(home), { recursive: true });
  const tmp = `${lockFile(home)}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(lock, null, 2)}\n`);
  renameSync(tmp, lockFile(home));
}

/** The folder of a skill's environment: a readable slug plus a hash, so no name can escape it. */
export function venvDir(home: string, skill: string): string {
  const slug =
    skill
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .slice(0, 40) || 'skill';
  const h = createHash('sha256').update(skill).digest('hex').slice(0, 12);
  return join(nativeDir(home), 'venvs', `${slug}-${h}`);
}

/** The interpreter inside a venv. */
export const venvPython = (venv: string) => join(venv, 'bin', 'python');

/**
 * The user's CPython for the native runtime: `SKILLDESK_PYTHON`, else `python3`, which must be
 * 3.11 or newer. Throws INVALID_INPUT saying what to install otherwise.
 */
export function findNativePython(): NativePython {
  const cmd = pythonCommand();
  const r = spawnSync(
    cmd,
    ['-I', '-c', 'import sys;print(sys.executable);print("%d.%d.%d" % sys.version_info[:3])'],
    {
      encoding: 'utf8',
      timeout: 15_000,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    },
  );
  if (r.status !== 0 || !r.stdout) {
    throw new AppError(
      'INVALID_INPUT',
      `no Python found for the native runtime ("${cmd}" does not run); install Python ${MIN_NATIVE_PYTHON.join('.')}+ or point SKILLDESK_PYTHON at one`,
    );
  }
  const [executable, version] = r.stdout.trim().split('\n') as [string, string];
  const [maj, min] = version.split('.').map(Number) as [number, number];
  if (maj < MIN_NATIVE_PYTHON[0] || (maj === MIN_NATIVE_PYTHON[0] && min < MIN_NATIVE_PYTHON[1])) {
    throw new AppError(
      'INVALID_INPUT',
      `${executable} is Python ${version}; the native runtime needs ${MIN_NATIVE_PYTHON.join('.')} or newer (set SKILLDESK_PYTHON)`,
    );
  }
  return { executable, version };
}

function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Options of {@link installNativeEnv}. */
export interface InstallNativeOptions {
  signal?: AbortSignal;
  indexUrl?: string;
  from?: NativeEnvRecord['from'];
  python?: NativePython;
}

/**
 * Build (or rebuild) a skill's environment from requirement lines: pip downloads wheels only into
 * a folder, each wheel is hashed and the lock written as `name==version --hash=sha256:…`, then a
 * fresh venv installs exactly those files with `--no-index --require-hashes --no-deps`. Nothing is
 * changed when a step fails. The lines are checked with the same parser as requirements.txt.
 */
export async function installNativeEnv(
  home: string,
  skill: string,
  requirements: string[],
  opts: InstallNativeOptions = {},
): Promise<NativeEnvRecord> {
  const reqs = parseRequirements(requirements.join('\n'), `${skill} (packages)`);
  if (reqs.length === 0) throw new AppError('INVALID_INPUT', `no packages to install for "${skill}"`);
  const python = opts.python ?? findNativePython();
  const specs = reqs.map((r) => r.spec);
  const have = readLock(home).skills[skill];
  if (
    have &&
    JSON.stringify(have.requirements) === JSON.stringify(specs) &&
    have.python === python.executable &&
    existsSync(venvPython(have.venv))
  ) {
    return { skill, ...have };
  }
  const work = mkdtempSync(join(tmpdir(), 'skilldesk-native-pkgs-'));
  try {
    const venv = venvDir(home, skill);
    const fresh = `${venv}.new`;
    rmSync(fresh, { recursive: true, force: true });
    mkdirSync(join(nativeDir(home), 'venvs'), { recursive: true });
    const mk = await runQuiet(python.executable, ['-I', '-m', 'venv', fresh], 120_000);
    if (mk.status !== 0) {
      rmSync(fresh, { recursive: true, force: true });
      throw new AppError(
        'INVALID_INPUT',
        `${python.executable} could not make a virtual environment (${(mk.stderr ?? '').trim().slice(-300)}); on Debian/Ubuntu install python3-venv`,
      );
    }
    const reqFile = join(work, 'requirements.txt');
    writeFileSync(
      reqFile,
      `${reqs.map((r) => [r.spec, ...r.hashes.map((h) => `--hash=sha256:${h}`)].join(' ')).join('\n')}\n`,
    );
    const dl = join(work, 'wheels');
    const pinned = reqs.every((r) => r.hashes.length > 0);
    const got = await runCleanPip(
      'download',
      ['--only-binary=:all:', ...(pinned ? ['--require-hashes'] : []), '-d', dl, '-r', reqFile],
      { signal: opts.signal, indexUrl: opts.indexUrl, python: venvPython(fresh) },
    );
    if (got.code !== 0) {
      rmSync(fresh, { recursive: true, force: true });
      const missing = /No matching distribution found for ([A-Za-z0-9._-]+)/.exec(got.out)?.[1];
      throw new AppError(
        'INVALID_INPUT',
        missing
          ? `pip found no wheel of "${missing}" for Python ${python.version} on this machine (SkillDesk never builds from source)`
          : `pip could not fetch the packages of "${skill}": ${got.out.trim().split('\n').slice(-3).join(' ').slice(0, 600)}`,
        { skill },
      );
    }
    const wheels: NativeWheel[] = [];
    for (const filename of readdirSync(dl).sort()) {
      const tags = wheelTags(filename);
      if (!tags) {
        rmSync(fresh, { recursive: true, force: true });
        throw new AppError('INVALID_INPUT', `pip fetched "${filename}", which is not a wheel`);
      }
      const path = join(dl, filename);
      wheels.push({
        filename,
        name: tags.name,
        version: tags.version,
        sha256: sha256File(path),
        size: readFileSync(path).byteLength,
        pure: tags.pure,
      });
    }
    const lockReq = join(work, 'lock.txt');
    writeFileSync(
      lockReq,
      `${wheels.map((w) => `${w.name}==${w.version} --hash=sha256:${w.sha256}`).join('\n')}\n`,
    );
    // The new environment's own pip installs from the hashed folder only.
    const inst = await runCleanPip(
      'install',
      [
        '--no-index',
        '--find-links',
        dl,
        '--only-binary=:all:',
        '--require-hashes',
        '--no-deps',
        '--no-compile',
        '-r',
        lockReq,
      ],
      { signal: opts.signal, python: venvPython(fresh) },
    );
    if (inst.code !== 0) {
      rmSync(fresh, { recursive: true, force: true });
      throw new AppError(
        'INVALID_INPUT',
        `pip could not install the packages of "${skill}": ${inst.out.trim().split('\n').slice(-3).join(' ').slice(0, 600)}`,
      );
    }
    // A venv names its own folder in pyvenv.cfg and its scripts: rebuild in place under the final
    // name so those paths hold (the old one goes only now that the new one is complete).
    rmSync(venv, { recursive: true, force: true });
    renameSync(fresh, venv);
    fixVenvPaths(venv, fresh);
    // Bytecode now, on every core: the environment is read-only in the sandbox, and pandas
    // compiled afresh on every import costs seconds per run.
    // Packages' own test suites (pandas ships thousands of files) are left out: no script imports them.
    await runQuiet(
      venvPython(venv),
      ['-I', '-m', 'compileall', '-q', '-j', '0', '-x', '/tests?/', join(venv, 'lib')],
      600_000,
    );
    const record: NativeEnvRecord = {
      skill,
      requirements: specs,
      from: opts.from ?? 'requirements',
      python: python.executable,
      python_version: python.version,
      venv,
      wheels,
      installed_at: new Date().toISOString(),
    };
    const lock = readLock(home);
    const { skill: _s, ...entry } = record;
    lock.skills[skill] = entry;
    writeLock(home, lock);
    return record;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Rewrite the old folder name in the venv's text files (activate scripts, entry points). */
export function fixVenvPaths(venv: string, old: string): void {
  const bin = join(venv, 'bin');
  for (const name of readdirSync(bin)) {
    const p = join(bin, name);
    try {
      const text = readFileSync(p);
      if (text.includes(0)) continue;
      const s = text.toString('utf8');
      if (s.includes(old)) writeFileSync(p, s.split(old).join(venv));
    } catch {
      // a symlink to the interpreter, or unreadable: nothing to fix
    }
  }
  const cfg = join(venv, 'pyvenv.cfg');
  try {
    const s = readFileSync(cfg, 'utf8');
    if (s.includes(old)) writeFileSync(cfg, s.split(old).join(venv));
  } catch {
    // no cfg: not a venv (mk succeeded, so it is)
  }
}

/** A skill's environment, or null when none was installed (or its folder is gone). */
export function nativeEnv(home: string, skill: string): NativeEnvRecord | null {
  const e = readLock(home).skills[skill];
  if (!e || !existsSync(venvPython(e.venv))) return null;
  return { skill, ...e };
}

/** Every skill's environment, for `skills packages list`. */
export function listNativeEnvs(home: string): NativeEnvRecord[] {
  return Object.entries(readLock(home).skills)
    .map(([skill, e]) => ({ skill, ...e }))
    .sort((a, b) => a.skill.localeCompare(b.skill));
}

/** Remove a skill's environment and its lock entry. */
export function removeNativeEnv(home: string, skill: string): boolean {
  const lock = readLock(home);
  const e = lock.skills[skill];
  if (!e) return false;
  rmSync(e.venv, { recursive: true, force: true });
  delete lock.skills[skill];
  writeLock(home, lock);
  return true;
}

/** The wheels of an environment that have compiled code, by project name. */
export function compiledPackages(env: Pick<NativeEnvRecord, 'wheels'>): string[] {
  return [...new Set(env.wheels.filter((w) => !w.pure).map((w) => normalizeName(w.name)))].sort();
}

/** Run a helper command without blocking the process; its stderr tail for an error message. */
export function runQuiet(
  cmd: string,
  args: string[],
  timeout: number,
  env: Record<string, string> = {},
): Promise<{ status: number; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...env },
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString('utf8')).slice(-4000);
    });
    child.on('error', (e) => resolve({ status: -1, stderr: e.message }));
    child.on('close', (code) => resolve({ status: code ?? -1, stderr }));
  });
}
