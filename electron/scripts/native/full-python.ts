import { createHash, randomBytes } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../../contract/errors.js';
import { normalizeName, parseRequirements, runCleanPip, wheelTags } from '../../skills/index.js';
import lockJson from './full-python-lock.json' with { type: 'json' };
import { pythonPrefixes } from './sandbox.js';
import {
  findNativePython,
  fixVenvPaths,
  type NativePython,
  nativeDir,
  runQuiet,
  venvPython,
} from './venv.js';

/** pip's target for the lock's wheels: CPython 3.11 on x86-64 Linux (manylinux), whatever runs pip. */
const CP311_LINUX_WHEELS = [
  '--python-version',
  '3.11',
  '--implementation',
  'cp',
  '--abi',
  'cp311',
  '--abi',
  'abi3',
  '--abi',
  'none',
  ...['manylinux_2_28_x86_64', 'manylinux_2_17_x86_64', 'manylinux2014_x86_64'].flatMap((p) => [
    '--platform',
    p,
  ]),
];

/**
 * Full Python's managed environment: CPython 3.11 with the scientific stack, built from the wheels
 * the app's lock names (exact version and SHA-256 of each cp311 manylinux x86_64 wheel and of every
 * dependency), fetched by the clean pip with `--require-hashes`, kept in a content-addressed wheel
 * cache (shared by every environment and by the tests), and installed with `--no-index
 * --no-deps`. Packages the user adds are resolved once against the lock's pins, hashed, cached and
 * recorded the same way, so a rebuild never asks the index again for anything it already has.
 */

const WheelSchema = z.object({
  name: z.string(),
  version: z.string(),
  filename: z.string().regex(/\.whl$/),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  size: z.number().int().positive(),
  requires: z.array(z.string()),
});
/** One wheel of the lock (or of the user's additions). */
export type LockedWheel = z.infer<typeof WheelSchema>;

const LockSchema = z.object({
  version: z.literal(1),
  python: z.literal('cp311'),
  platform: z.string(),
  packages: z.array(z.string()).min(1),
  wheels: z.array(WheelSchema).min(1),
});
/** The lock shipped with the app. */
export type FullPythonLock = z.infer<typeof LockSchema>;

/** The lock shipped with the app (validated once when the module loads). */
export const FULL_PYTHON_LOCK: FullPythonLock = LockSchema.parse(lockJson);

const ExtrasSchema = z.object({
  version: z.literal(1),
  /** What the user asked for, as SkillDesk normalised it. */
  requirements: z.array(z.string()),
  /** The wheels those came to, beyond the lock's. */
  wheels: z.array(WheelSchema),
});
type Extras = z.infer<typeof ExtrasSchema>;

/** What the user has added to Full Python. */
export interface FullPythonExtras {
  requirements: string[];
  wheels: LockedWheel[];
}

/** One step of an install, for progress events. */
export interface FullPythonProgress {
  phase: 'download' | 'install' | 'compile' | 'ready' | 'failed';
  /** Wheels (download) done so far and in all. */
  done: number;
  total: number;
  /** The wheel being fetched. */
  package?: string;
  bytes_done: number;
  bytes_total: number;
  message: string;
}

/** A built environment, ready to run code in. */
export interface FullPythonEnv {
  venv: string;
  python: string;
  /** Host folders the sandbox mounts read-only for the interpreter. */
  paths: string[];
  /** `name==version` of every installed wheel. */
  packages: string[];
  /** Prebuilt matplotlib font cache (copied into the run's private /tmp). */
  mpl_cache: string | null;
}

/** Options of {@link createFullPython}. */
export interface FullPythonOptions {
  /** The account's data folder. */
  home: string;
  /** The content-addressed wheel cache (default `<home>/cache/wheels`). */
  cacheDir?: string;
  /** Only these top-level packages of the lock (with their dependencies); default all. */
  only?: string[];
  /** The user's package index (Settings), else PyPI. */
  indexUrl?: () => string | undefined;
  python?: () => NativePython;
  /** Hears every install's steps (the host's progress area). */
  onProgress?: (p: FullPythonProgress) => void;
}

/** Full Python's environment manager. */
export interface FullPython {
  /** The top-level packages and wheels this environment is built from. */
  selection(): { packages: string[]; wheels: LockedWheel[] };
  /** The environment when built and current, else null (nothing is fetched). */
  current(): FullPythonEnv | null;
  /** Bytes still to download before the environment can be built. */
  missingBytes(): number;
  /** Build the environment when needed (one build at a time; callers share it). */
  ensure(opts?: {
    signal?: AbortSignal;
    onProgress?: (p: FullPythonProgress) => void;
  }): Promise<FullPythonEnv>;
  extras(): FullPythonExtras;
  /** Resolve and cache packages the user adds (wheels only, the lock's pins kept); rebuilds on next use. */
  add(requirements: string[], opts?: { signal?: AbortSignal }): Promise<FullPythonExtras>;
  /** Forget added packages by name; rebuilds on next use. */
  remove(names: string[]): FullPythonExtras;
}

/** The top-level packages named and every wheel they need, from the lock. */
export function lockClosure(lock: FullPythonLock, only?: string[]): LockedWheel[] {
  const byName = new Map(lock.wheels.map((w) => [w.name, w]));
  const roots = (only?.length ? only : lock.packages).map(normalizeName);
  const out = new Map<string, LockedWheel>();
  const visit = (n: string, from: string) => {
    if (out.has(n)) return;
    const w = byName.get(n);
    if (!w) throw new AppError('INVALID_INPUT', `"${n}" (${from}) is not in Full Python's lock`);
    out.set(n, w);
    for (const r of w.requires) visit(r, n);
  };
  for (const r of roots) visit(r, 'asked for');
  return [...out.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** Where a wheel lives in the content-addressed cache. */
export function cachedWheelPath(cacheDir: string, w: Pick<LockedWheel, 'sha256' | 'filename'>): string {
  return join(cacheDir, 'sha256', w.sha256.slice(0, 2), w.sha256, w.filename);
}

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

function cached(cacheDir: string, w: LockedWheel): boolean {
  const p = cachedWheelPath(cacheDir, w);
  try {
    return statSync(p).size === w.size;
  } catch {
    return false;
  }
}

/** Put a downloaded file in the cache after checking its hash (a mismatch is refused, never kept). */
function admit(cacheDir: string, file: string, w: LockedWheel): void {
  const got = sha256(file);
  if (got !== w.sha256)
    throw new AppError(
      'INVALID_INPUT',
      `${w.filename} has SHA-256 ${got}, not the ${w.sha256} the lock names: the download was refused`,
    );
  const dest = cachedWheelPath(cacheDir, w);
  mkdirSync(join(dest, '..'), { recursive: true });
  const tmp = `${dest}.${process.pid}.${randomBytes(4).toString('hex')}.part`;
  copyFileSync(file, tmp);
  renameSync(tmp, dest);
}

const envRoot = (home: string) => join(nativeDir(home), 'full-python');
const extrasFile = (home: string) => join(envRoot(home), 'added-packages.json');

function readExtras(home: string): Extras {
  const f = extrasFile(home);
  if (!existsSync(f)) return { version: 1, requirements: [], wheels: [] };
  try {
    return ExtrasSchema.parse(JSON.parse(readFileSync(f, 'utf8')));
  } catch {
    throw new AppError(
      'STORE_FAILED',
      `${f} is not a valid list of added packages: delete it and add the packages again`,
      { file: f },
    );
  }
}

function writeExtras(home: string, e: Extras): void {
  mkdirSync(envRoot(home), { recursive: true });
  const tmp = `${extrasFile(home)}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(e, null, 2)}\n`);
  renameSync(tmp, extrasFile(home));
}

const MarkerSchema = z.object({
  key: z.string(),
  packages: z.array(z.string()),
  mpl_cache: z.string().nullable(),
});

/** Create the manager of Full Python's environment. */
export function createFullPython(opts: FullPythonOptions): FullPython {
  const cacheDir = opts.cacheDir ?? join(opts.home, 'cache', 'wheels');
  const lock = FULL_PYTHON_LOCK;
  let building: Promise<FullPythonEnv> | null = null;
  let found: NativePython | null = null;
  // Asked once: every run checks the environment is current, and a spawn per run costs time.
  const findPython = () => {
    found ??= (opts.python ?? findNativePython)();
    return found;
  };
  const prefixes = new Map<string, string[]>();

  const wanted = (): LockedWheel[] => {
    const base = lockClosure(lock, opts.only);
    const have = new Set(base.map((w) => w.name));
    return [...base, ...readExtras(opts.home).wheels.filter((w) => !have.has(w.name))];
  };
  const keyOf = (wheels: LockedWheel[], python: string) =>
    createHash('sha256')
      .update(JSON.stringify([python, wheels.map((w) => w.sha256).sort()]))
      .digest('hex')
      .slice(0, 16);

  const envAt = (venv: string, packages: string[], mplCache: string | null): FullPythonEnv => {
    const python = venvPython(venv);
    let paths = prefixes.get(venv);
    if (!paths) {
      paths = [venv, ...pythonPrefixes(python)];
      prefixes.set(venv, paths);
    }
    return { venv, python, paths, packages, mpl_cache: mplCache };
  };

  const current = (): FullPythonEnv | null => {
    const link = join(envRoot(opts.home), 'current.json');
    if (!existsSync(link)) return null;
    let python: NativePython;
    try {
      python = findPython();
    } catch {
      return null;
    }
    const key = keyOf(wanted(), python.executable);
    try {
      const m = MarkerSchema.parse(JSON.parse(readFileSync(link, 'utf8')));
      const venv = join(envRoot(opts.home), key);
      if (m.key !== key || !existsSync(venvPython(venv))) return null;
      return envAt(venv, m.packages, m.mpl_cache);
    } catch {
      return null;
    }
  };

  async function build(
    signal?: AbortSignal,
    onProgress?: (p: FullPythonProgress) => void,
  ): Promise<FullPythonEnv> {
    const python = findPython();
    if (!python.version.startsWith('3.11.'))
      throw new AppError(
        'INVALID_INPUT',
        `Full Python's packages are pinned for CPython 3.11; ${python.executable} is Python ${python.version}. Install Python 3.11 and point SKILLDESK_PYTHON at it`,
      );
    if (process.platform !== 'linux' || process.arch !== 'x64')
      throw new AppError(
        'INVALID_INPUT',
        `Full Python's packages are pinned for Linux x86_64; this machine is ${process.platform} ${process.arch}`,
      );
    const wheels = wanted();
    const bytesTotal = wheels.reduce((n, w) => n + w.size, 0);
    let bytesDone = wheels.filter((w) => cached(cacheDir, w)).reduce((n, w) => n + w.size, 0);
    const missing = wheels.filter((w) => !cached(cacheDir, w));
    const total = wheels.length;
    let done = total - missing.length;
    const say = (p: Omit<FullPythonProgress, 'done' | 'total' | 'bytes_done' | 'bytes_total'>) =>
      onProgress?.({ ...p, done, total, bytes_done: bytesDone, bytes_total: bytesTotal });
    const work = mkdtempSync(join(tmpdir(), 'skilldesk-full-python-'));
    try {
      for (const w of missing) {
        if (signal?.aborted) throw new AppError('CANCELLED', 'the Full Python install was cancelled');
        say({
          phase: 'download',
          package: `${w.name} ${w.version}`,
          message: `Downloading ${w.name} ${w.version} (${(w.size / 1e6).toFixed(1)} MB)`,
        });
        const dl = join(work, `dl-${w.sha256.slice(0, 12)}`);
        const req = join(work, `${w.sha256.slice(0, 12)}.txt`);
        writeFileSync(req, `${w.name}==${w.version} --hash=sha256:${w.sha256}\n`);
        // One wheel per pip run: progress per package, and pip checks the hash before we do.
        const got = await runCleanPip(
          'download',
          [
            '--only-binary=:all:',
            '--no-deps',
            '--require-hashes',
            ...CP311_LINUX_WHEELS,
            '-d',
            dl,
            '-r',
            req,
          ],
          { signal, indexUrl: opts.indexUrl?.(), python: python.executable },
        );
        const file = join(dl, w.filename);
        if (got.code !== 0 || !existsSync(file))
          throw new AppError(
            'INVALID_INPUT',
            `pip could not fetch ${w.filename}: ${got.out.trim().split('\n').slice(-3).join(' ').slice(0, 600)}`,
          );
        admit(cacheDir, file, w);
        rmSync(dl, { recursive: true, force: true });
        done++;
        bytesDone += w.size;
      }
      say({ phase: 'install', message: `Installing ${total} packages` });
      // pip reads the wheels from a folder of links to the cache (names matter to pip, hashes to us).
      const links = join(work, 'links');
      mkdirSync(links);
      for (const w of wheels) {
        const src = cachedWheelPath(cacheDir, w);
        if (sha256(src) !== w.sha256)
          throw new AppError(
            'INVALID_INPUT',
            `the cached ${w.filename} does not match its hash; delete ${src}`,
          );
        try {
          linkSync(src, join(links, w.filename));
        } catch {
          copyFileSync(src, join(links, w.filename));
        }
      }
      const lockReq = join(work, 'lock.txt');
      writeFileSync(
        lockReq,
        `${wheels.map((w) => `${w.name}==${w.version} --hash=sha256:${w.sha256}`).join('\n')}\n`,
      );
      const key = keyOf(wheels, python.executable);
      const venv = join(envRoot(opts.home), key);
      const fresh = `${venv}.new`;
      rmSync(fresh, { recursive: true, force: true });
      mkdirSync(envRoot(opts.home), { recursive: true });
      const mk = await runQuiet(python.executable, ['-I', '-m', 'venv', fresh], 120_000);
      if (mk.status !== 0)
        throw new AppError(
          'INVALID_INPUT',
          `${python.executable} could not make a virtual environment (${mk.stderr.trim().slice(-300)}); on Debian/Ubuntu install python3-venv`,
        );
      // The new environment's own pip installs from the hashed folder only.
      const inst = await runCleanPip(
        'install',
        [
          '--no-index',
          '--find-links',
          links,
          '--only-binary=:all:',
          '--require-hashes',
          '--no-deps',
          '--no-compile',
          '-r',
          lockReq,
        ],
        { signal, python: venvPython(fresh) },
      );
      if (inst.code !== 0) {
        rmSync(fresh, { recursive: true, force: true });
        throw new AppError(
          'INVALID_INPUT',
          `pip could not install Full Python's packages: ${inst.out.trim().split('\n').slice(-3).join(' ').slice(0, 600)}`,
        );
      }
      rmSync(venv, { recursive: true, force: true });
      renameSync(fresh, venv);
      fixVenvPaths(venv, fresh);
      say({ phase: 'compile', message: 'Compiling the packages’ bytecode' });
      // The environment is read-only in the sandbox: bytecode now, or every import compiles afresh.
      await runQuiet(
        venvPython(venv),
        ['-I', '-m', 'compileall', '-q', '-j', '0', '-x', '/tests?/', join(venv, 'lib')],
        900_000,
      );
      // matplotlib builds its font list on first import (seconds); built once here, copied per run.
      let mplCache: string | null = null;
      if (wheels.some((w) => w.name === 'matplotlib')) {
        const dir = join(venv, 'skilldesk-mplconfig');
        mkdirSync(dir, { recursive: true });
        const r = await runQuiet(venvPython(venv), ['-I', '-c', 'import matplotlib.font_manager'], 300_000, {
          MPLCONFIGDIR: dir,
          MPLBACKEND: 'Agg',
        });
        if (r.status === 0) mplCache = dir;
      }
      const packages = wheels.map((w) => `${w.name}==${w.version}`);
      writeFileSync(
        join(envRoot(opts.home), 'current.json'),
        `${JSON.stringify({ key, packages, mpl_cache: mplCache })}\n`,
      );
      // Older environments (another lock, other added packages) are not used again.
      for (const name of readdirSync(envRoot(opts.home)))
        if (/^[0-9a-f]{16}$/.test(name) && name !== key)
          rmSync(join(envRoot(opts.home), name), { recursive: true, force: true });
      say({ phase: 'ready', message: 'Full Python is ready' });
      return envAt(venv, packages, mplCache);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }

  return {
    selection: () => ({
      packages: opts.only?.length ? opts.only.map(normalizeName) : lock.packages,
      wheels: wanted(),
    }),
    current,
    missingBytes: () =>
      wanted()
        .filter((w) => !cached(cacheDir, w))
        .reduce((n, w) => n + w.size, 0),
    async ensure(o = {}) {
      const have = current();
      if (have) return have;
      if (!building) {
        const listen = (p: FullPythonProgress) => {
          opts.onProgress?.(p);
          o.onProgress?.(p);
        };
        building = build(o.signal, listen)
          .catch((e: unknown) => {
            listen({
              phase: 'failed',
              done: 0,
              total: 0,
              bytes_done: 0,
              bytes_total: 0,
              message: e instanceof Error ? e.message : String(e),
            });
            throw e;
          })
          .finally(() => {
            building = null;
          });
      }
      return building;
    },
    extras: () => {
      const e = readExtras(opts.home);
      return { requirements: e.requirements, wheels: e.wheels };
    },
    async add(requirements, o = {}) {
      const reqs = parseRequirements(requirements.join('\n'), 'the packages to add');
      if (reqs.length === 0) throw new AppError('INVALID_INPUT', 'no packages to add');
      const python = findPython();
      const before = readExtras(opts.home);
      const specs = [...new Set([...before.requirements, ...reqs.map((r) => r.spec)])];
      const work = mkdtempSync(join(tmpdir(), 'skilldesk-full-python-add-'));
      try {
        const base = lockClosure(lock, opts.only);
        // The lock's pins hold: an added package must work with the versions already there.
        writeFileSync(
          join(work, 'constraints.txt'),
          `${lock.wheels.map((w) => `${w.name}==${w.version}`).join('\n')}\n`,
        );
        writeFileSync(join(work, 'req.txt'), `${specs.join('\n')}\n`);
        const dl = join(work, 'wheels');
        const got = await runCleanPip(
          'download',
          [
            '--only-binary=:all:',
            ...CP311_LINUX_WHEELS,
            '-c',
            join(work, 'constraints.txt'),
            '-d',
            dl,
            '-r',
            join(work, 'req.txt'),
          ],
          { signal: o.signal, indexUrl: opts.indexUrl?.(), python: python.executable },
        );
        if (got.code !== 0) {
          const missing = /No matching distribution found for ([A-Za-z0-9._-]+)/.exec(got.out)?.[1];
          throw new AppError(
            'INVALID_INPUT',
            missing
              ? `pip found no wheel of "${missing}" for CPython 3.11 on Linux x86_64 that fits Full Python's pinned packages (SkillDesk never builds from source)`
              : `pip could not fetch the packages: ${got.out.trim().split('\n').slice(-3).join(' ').slice(0, 600)}`,
          );
        }
        const inBase = new Set(base.map((w) => `${w.name}==${w.version}`));
        const added: LockedWheel[] = [];
        for (const filename of readdirSync(dl).sort()) {
          const tags = wheelTags(filename);
          if (!tags) throw new AppError('INVALID_INPUT', `pip fetched "${filename}", which is not a wheel`);
          const name = normalizeName(tags.name);
          if (inBase.has(`${name}==${tags.version}`)) continue;
          const path = join(dl, filename);
          const w: LockedWheel = {
            name,
            version: tags.version,
            filename,
            sha256: sha256(path),
            size: statSync(path).size,
            requires: [],
          };
          admit(cacheDir, path, w);
          added.push(w);
        }
        const next: Extras = { version: 1, requirements: specs, wheels: added };
        writeExtras(opts.home, next);
        return { requirements: next.requirements, wheels: next.wheels };
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    },
    remove(names) {
      const drop = new Set(names.map(normalizeName));
      const e = readExtras(opts.home);
      const keep = e.requirements.filter((r) => {
        const n = parseRequirements(r, 'added packages')[0]?.name;
        return !n || !drop.has(n);
      });
      const next: Extras = {
        version: 1,
        requirements: keep,
        // The wheels of what is left are fetched again on the next add; until then keep only those
        // not named.
        wheels: e.wheels.filter((w) => !drop.has(w.name)),
      };
      writeExtras(opts.home, next);
      return { requirements: next.requirements, wheels: next.wheels };
    },
  };
}
