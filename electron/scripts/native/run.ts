import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AppError } from '../../contract/errors.js';
import type { HttpGateOptions, HttpLogEntry } from '../../sandbox/index.js';
import { nativeConsent } from './consent.js';
import { startNetProxy } from './net-proxy.js';
import {
  type NativeInput,
  type NativeLimits,
  type NativeRunResult,
  pythonPrefixes,
  runNativeSandboxed,
} from './sandbox.js';
import { compiledPackages, type NativeEnvRecord, nativeDir, nativeEnv, venvDir, venvPython } from './venv.js';

/** Output files a native run hands back at most (the rest are listed as dropped). */
export const MAX_NATIVE_OUTPUT_FILES = 256;

/** A skill's file, at its path relative to the skill's folder. */
export interface NativeSkillFile {
  path: string;
  bytes: Uint8Array;
}

/** A file the script wrote under `out/` (its path relative to the working folder: `out/x.docx`). */
export interface NativeOutputFile {
  path: string;
  bytes: Uint8Array;
}

/** What a native script run gives back. */
export interface NativeScriptResult extends NativeRunResult {
  files: NativeOutputFile[];
  /** Every request the script made through the network proxy (when it had one). */
  requests?: HttpLogEntry[];
  truncated?: NativeRunResult['truncated'] & { files?: string[] };
}

/** Options of {@link runNativeSkillScript}. */
export interface NativeScriptOptions {
  home: string;
  skill: string;
  /** The skill's files (SKILL.md, scripts, references…), written read-only for the run. */
  files: NativeSkillFile[];
  script: string;
  argv?: string[];
  stdin?: string;
  env?: Record<string, string>;
  /** The user's files, by host path, read-only under `inputs/<name>`. */
  inputs?: NativeInput[];
  timeoutMs?: number;
  limits?: Partial<NativeLimits>;
  signal?: AbortSignal;
  /** The environment to use (default: the skill's installed one). */
  env_record?: NativeEnvRecord;
  /**
   * The skill's network grant, as the `http_request` gate's options (hosts, limits, log): the run
   * reaches them through the proxy (see `net-proxy.ts`). Absent: no network at all.
   */
  network?: HttpGateOptions;
  /** Programs not granted to the skill: covered in the sandbox by a stand-in `script` at each path. */
  denied?: Array<{ program: string; paths: string[]; script: string }>;
  /** What the granted programs need to execute (`grantedExecutables`); nothing else outside Python starts. */
  allowed?: string[];
}

const safeRel = (p: string) =>
  !!p &&
  !p.startsWith('/') &&
  !p.includes('\0') &&
  !p.split('/').some((s) => s === '' || s === '.' || s === '..');

/**
 * Run one of a skill's scripts with CPython in the OS sandbox, in the skill's own virtual
 * environment. The skill's files are written to a fresh folder (read-only in the sandbox), the
 * inputs mounted read-only, `out/` collected afterwards, and the run's folders removed. Throws
 * NOT_FOUND when the skill has no environment (naming the install command) and FORBIDDEN where no
 * OS sandbox exists.
 */
export async function runNativeSkillScript(opts: NativeScriptOptions): Promise<NativeScriptResult> {
  const env = opts.env_record ?? nativeEnv(opts.home, opts.skill);
  if (!env) {
    throw new AppError(
      'NOT_FOUND',
      `skill "${opts.skill}" has no packages installed for the OS sandbox; install them with: skilldesk skills packages install ${JSON.stringify(opts.skill)}`,
      { skill: opts.skill },
    );
  }
  const skillDir = skillFolder(opts.home, opts.skill, opts.files);
  const work = mkdtempSync(join(tmpdir(), 'skilldesk-native-run-'));
  const requests: HttpLogEntry[] = [];
  const proxy = opts.network ? await startNetProxy(networkLogged(opts.network, requests)) : null;
  try {
    const outDir = join(work, 'out');
    const python = venvPython(env.venv);
    const covers: Array<{ path: string; with: string }> = [];
    if (opts.denied?.length) {
      mkdirSync(join(work, 'stand-ins'));
      for (const d of opts.denied) {
        const file = join(work, 'stand-ins', d.program);
        writeFileSync(file, d.script, { mode: 0o555 });
        for (const path of d.paths) covers.push({ path, with: file });
      }
    }
    const r = await runNativeSandboxed({
      proxySocket: proxy?.socketPath,
      python,
      pythonPaths: [env.venv, ...pythonPrefixes(python)],
      skillDir,
      script: opts.script,
      argv: opts.argv,
      stdin: opts.stdin,
      env: opts.env,
      inputs: opts.inputs,
      outDir,
      covers,
      execs: opts.allowed,
      limits: {
        ...(opts.limits ?? {}),
        ...(opts.timeoutMs !== undefined ? { timeout_ms: opts.timeoutMs } : {}),
      },
      signal: opts.signal,
    });
    const { files, dropped } = collect(outDir);
    return {
      ...r,
      files,
      ...(requests.length ? { requests } : {}),
      ...(dropped.length || r.truncated
        ? { truncated: { ...(r.truncated ?? {}), ...(dropped.length ? { files: dropped } : {}) } }
        : {}),
    };
  } finally {
    await proxy?.close();
    rmSync(work, { recursive: true, force: true });
  }
}

/** The gate's options with every request also kept (the first 100) for the run's result. */
function networkLogged(network: HttpGateOptions, requests: HttpLogEntry[]): HttpGateOptions {
  return {
    ...network,
    log: (e) => {
      if (requests.length < 100) requests.push(e);
      network.log?.(e);
    },
  };
}

/** How long an unused copy of a skill's files is kept. */
const SKILL_FOLDER_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The skill's files as a folder on disk, written once per content (named by the SHA-256 of paths
 * and bytes) under `<home>/native/skill-files/` and reused by every run of that content: the
 * sandbox binds it read-only, so a run never rewrites a skill's files (the document skills carry
 * 3 MB of schemas). Written to a temporary name and renamed, so a run started beside the first one
 * sees a whole folder or none; copies of the skill's older contents unused for a day are removed.
 */
export function skillFolder(home: string, skill: string, files: NativeSkillFile[]): string {
  const h = createHash('sha256');
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const f of sorted) {
    const rel = f.path.replace(/\\/g, '/');
    if (!safeRel(rel)) throw new AppError('INVALID_INPUT', `skill file "${f.path}" is not a relative path`);
    h.update(`${rel}\0${f.bytes.byteLength}\0`).update(f.bytes);
  }
  const root = join(nativeDir(home), 'skill-files');
  const slug = `${venvDir(home, skill).split('/').at(-1)}`;
  const dir = join(root, `${slug}-${h.digest('hex').slice(0, 32)}`);
  const now = new Date();
  if (existsSync(dir)) {
    try {
      utimesSync(dir, now, now);
    } catch {
      // read-only home: the copy is still good
    }
    return dir;
  }
  mkdirSync(root, { recursive: true });
  const tmp = mkdtempSync(`${dir}.tmp-`);
  try {
    for (const f of sorted) {
      const abs = join(tmp, ...f.path.replace(/\\/g, '/').split('/'));
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, f.bytes, { mode: 0o444 });
    }
    renameSync(tmp, dir);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(dir)) throw e;
  }
  for (const name of readdirSync(root)) {
    if (!name.startsWith(`${slug}-`) || join(root, name) === dir) continue;
    try {
      if (statSync(join(root, name)).mtimeMs < now.getTime() - SKILL_FOLDER_TTL_MS)
        rmSync(join(root, name), { recursive: true, force: true });
    } catch {
      // removed meanwhile
    }
  }
  return dir;
}

/**
 * The regular files under `dir`, sorted, as `prefix/<path>` (`<path>` without a prefix); symlinks a
 * run made are skipped, and so are folders `skipDir` names. Both native runners collect their
 * outputs with it.
 */
export function regularFiles(
  dir: string,
  prefix = '',
  skipDir: (name: string) => boolean = () => false,
): string[] {
  const found: string[] = [];
  const walk = (abs: string, rel: string) => {
    let names: string[];
    try {
      names = readdirSync(abs).sort();
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(abs, n);
      const r = rel ? `${rel}/${n}` : n;
      const st = lstatSync(p);
      if (st.isDirectory()) {
        if (!skipDir(n)) walk(p, r);
      } else if (st.isFile()) found.push(r);
    }
  };
  walk(dir, prefix);
  return found;
}

/** The regular files under `out/`, sorted, as `out/<path>` (symlinks the script made are skipped). */
function collect(outDir: string): { files: NativeOutputFile[]; dropped: string[] } {
  const found = existsSync(outDir) ? regularFiles(outDir, 'out') : [];
  const files = found.slice(0, MAX_NATIVE_OUTPUT_FILES).map((path) => ({
    path,
    bytes: new Uint8Array(readFileSync(join(outDir, ...path.split('/').slice(1)))),
  }));
  return { files, dropped: found.slice(MAX_NATIVE_OUTPUT_FILES) };
}

/** Which runtime a skill's scripts use, and why, in words for the install report and the skill page. */
export interface ScriptRuntimeChoice {
  runtime: 'pyodide' | 'native';
  /** Packages with compiled code that make the native runtime necessary. */
  compiled: string[];
  /** "its scripts need lxml, which has compiled code: they run in the OS sandbox". */
  reason?: string;
}

/** The sentence that says why a skill's scripts run in the OS sandbox. */
export function nativeReason(compiled: string[]): string {
  const list =
    compiled.length <= 1 ? (compiled[0] ?? '') : `${compiled.slice(0, -1).join(', ')} and ${compiled.at(-1)}`;
  return `its scripts need ${list}, which ${compiled.length > 1 ? 'have' : 'has'} compiled code: they run in the OS sandbox`;
}

/** The runtime a skill's scripts need: native when its environment holds a compiled wheel. */
export function scriptRuntimeFor(home: string, skill: string): ScriptRuntimeChoice {
  const env = nativeEnv(home, skill);
  const compiled = env ? compiledPackages(env) : [];
  if (compiled.length === 0) return { runtime: 'pyodide', compiled };
  return { runtime: 'native', compiled, reason: nativeReason(compiled) };
}

/** A skill's runtime with the user's answer about the OS sandbox, as the skill page and the CLI show them. */
export interface NativeRuntimeFacts extends ScriptRuntimeChoice {
  /** Whether the user accepted the OS-sandbox runtime for the skill. */
  native_accepted: boolean;
  /** When, if accepted. */
  accepted_at: string | null;
}

/** The runtime a skill's scripts need and whether the user has accepted the OS sandbox for it. */
export function nativeRuntimeFacts(home: string, skill: string): NativeRuntimeFacts {
  const consent = nativeConsent(home, skill);
  return {
    ...scriptRuntimeFor(home, skill),
    native_accepted: !!consent,
    accepted_at: consent?.accepted_at ?? null,
  };
}
