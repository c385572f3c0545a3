import { randomUUID } from 'node:crypto';
import {
  type Dirent,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, sep } from 'node:path';
import {
  SCRIPT_OUTPUT_URI,
  type ScriptOutputRef,
  type ScriptRuntimeStatus,
} from '../contract/builtin-tools.js';
import { AppError } from '../contract/errors.js';
import { BUNDLED_FILE_KIND } from '../contract/kinds.js';
import {
  createSandboxHost,
  type HttpLogEntry,
  httpRequest,
  MAX_INPUT_FOLDER_FILES,
  MAX_NATIVE_INPUT_FOLDER_BYTES,
  mediaTypeOf,
  type RunSkillScriptResult,
  runSkillScript,
  type SandboxPool,
  type ScriptFile,
  type ScriptInput,
  type ScriptPackage,
  scanInputFolder,
  scriptInputName,
  scriptRelativePath,
} from '../sandbox/index.js';
import {
  installSkillPackages,
  normalizeName,
  type PackageInstallReport,
  skillRequirements,
  skillToAgentFiles,
} from '../skills/index.js';
import type { FileStore, Skill } from '../store/index.js';
import { acceptNativeRuntime, nativeConsent } from './native/consent.js';
import { type ImportScan, scanImports } from './native/imports.js';
import {
  deniedPrograms,
  grantedExecutables,
  programGrants,
  programRefusedHint,
} from './native/program-grants.js';
import {
  locatePrograms,
  missingProgramHint,
  missingProgramsSentence,
  type SkillProgram,
} from './native/programs.js';
import { nativeReason, nativeRuntimeFacts, runNativeSkillScript, scriptRuntimeFor } from './native/run.js';
import { nativeSandboxSupport } from './native/sandbox.js';
import { compiledPackages, findNativePython, installNativeEnv, nativeEnv } from './native/venv.js';

/** A script of a skill as the model is told about it. */
export interface SkillScriptInfo {
  /** Path relative to the skill's folder (`scripts/fill_form.py`). */
  path: string;
  /** The first line of the script's docstring or leading comment, when it has one. */
  summary?: string;
}

/** What a skill's script run gives back (the bytes of its files kept in the output store). */
export interface SkillScriptRun extends Omit<RunSkillScriptResult, 'files'> {
  skill: string;
  script: string;
  run_id: string;
  files: ScriptOutputRef[];
  /** Said when the skill declares packages that are not installed yet. */
  hint?: string;
}

/** A script run as callers ask for it (the skill already resolved). */
export interface SkillScriptRequest {
  script: string;
  argv?: string[];
  stdin?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Fair-queue key (the chat's session). */
  queue?: string;
  /**
   * The user's files given to this run, read-only under `inputs/<name>` (by their path on this
   * machine: either runtime takes them without copying them into a program).
   */
  inputs?: ScriptInput[];
}

/**
 * Input names for files named by people and models (chat attachments): the last path segment,
 * control and reserved characters replaced, a leading dot dropped, duplicates numbered (`2-a.csv`).
 * The CLI and MCP refuse such names instead, so the user sees what the script will.
 */
export function inputNames(names: string[]): string[] {
  const taken = new Set<string>();
  return names.map((n, i) => {
    const base =
      (n.split(/[\\/]/).at(-1) ?? '')
        .replace(/[\u0000-\u001f<>:"|?*]/g, '_')
        .replace(/^\.+/, '')
        .slice(0, 200) || `input-${i + 1}`;
    let name = base;
    for (let k = 2; taken.has(name.toLowerCase()); k++) name = `${k}-${base}`;
    taken.add(name.toLowerCase());
    return name;
  });
}

/** The installed packages a skill's scripts get, or why some are missing. */
export interface SkillPackagesFor {
  wheels: ScriptPackage[];
  /** Declared but not installed (names as the skill wrote them). */
  missing: string[];
}

/** Runs skills' scripts in one runtime's sandbox and keeps what they write. */
export interface SkillScriptRunner {
  run(skill: Skill, req: SkillScriptRequest): Promise<SkillScriptRun>;
  /** One output file of an earlier run; NOT_FOUND once it has expired. */
  readOutput(runId: string, path: string): { bytes: Buffer; media_type: string };
  /** Every output of an earlier run. */
  listOutputs(runId: string): ScriptOutputRef[];
  /** Fetch the packages the skill declares into the account's wheelhouse (pip; see skills/packages.ts). */
  installPackages(
    skill: Skill,
    signal?: AbortSignal,
    opts?: InstallPackagesOptions,
  ): Promise<PackageInstallReport>;
  /** The user's files kept for runs (chat attachments, files an MCP client sent), by SHA-256. */
  readonly files: FileStore;
}

/** What an install into the OS-sandbox runtime adds to the report. */
export interface NativeInstallFacts {
  /** `native` when the packages went to the skill's OS-sandbox environment. */
  runtime?: 'pyodide' | 'native';
  /** Why, in words: "its scripts need lxml, which has compiled code: they run in the OS sandbox". */
  runtime_reason?: string;
  /** Whether the user has accepted that runtime for the skill. */
  native_accepted?: boolean;
  /** Programs its scripts start outside Python (LibreOffice, Poppler), found here or not. */
  programs?: SkillProgram[];
  /** In words, the programs that are missing and how to install them. */
  missing_programs?: string;
}

/** How a skill's packages are installed beyond its pure-Python requirements. */
export interface InstallPackagesOptions {
  /** Install what the scripts import (for a skill without requirements.txt) into its OS-sandbox environment. */
  fromImports?: boolean;
  /** Accept the OS-sandbox runtime when the packages have compiled code (else the install stops and says so). */
  acceptNative?: boolean;
  /** Put packages with compiled code into the OS-sandbox environment instead of refusing them. */
  native?: boolean;
  /** With `fromImports`: the distributions the user confirmed; others proposed now stop the install. */
  expected?: string[];
}

/** How long a run's output files are kept. */
export const SCRIPT_OUTPUT_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The skill's files as its Agent Skills folder holds them (SKILL.md and every bundled file). */
export function skillScriptFiles(skill: Skill): ScriptFile[] {
  const { files } = skillToAgentFiles(skill);
  return [...files].map(([path, bytes]) => ({ path, bytes: new Uint8Array(bytes) }));
}

/** The Python scripts a skill bundles (its `.py` files, packages' `__init__.py` left out). */
export function listSkillScripts(skill: Skill): SkillScriptInfo[] {
  const out: SkillScriptInfo[] = [];
  for (const a of skill.artifacts) {
    const path = typeof a.metadata?.path === 'string' ? a.metadata.path : null;
    if (a.kind !== BUNDLED_FILE_KIND || !path || !path.endsWith('.py') || /(^|\/)__init__\.py$/.test(path))
      continue;
    if (a.metadata?.encoding === 'base64') continue;
    const summary = scriptSummary(a.content);
    out.push(summary ? { path, summary } : { path });
  }
  return out.sort((x, y) => x.path.localeCompare(y.path));
}

/** The first sentence-ish line of a module docstring or of the leading comments. */
function scriptSummary(source: string): string | undefined {
  const body = source.replace(/^#![^\n]*\n/, '').replace(/^\s*#.*coding[:=][^\n]*\n/, '');
  const doc = /^\s*(?:[rRuU]?)("""|''')\s*([\s\S]*?)\1/.exec(body);
  const text = doc ? doc[2] : /^(?:\s*#[^\n]*\n?)+/.exec(body)?.[0].replace(/^\s*#\s?/gm, '');
  const line = text
    ?.split('\n')
    .map((l) => l.trim())
    .find(Boolean);
  return line ? line.slice(0, 200) : undefined;
}

/** How the model calls a skill's scripts, for `read_skill` and the CLI. */
export function scriptUsage(skill: string, scripts: SkillScriptInfo[]): string | undefined {
  if (scripts.length === 0) return undefined;
  const first = scripts[0]!.path;
  return `Run a script with run_script {"name": ${JSON.stringify(skill)}, "script": ${JSON.stringify(first)}, "args": ["--help"]} (args and stdin optional). It runs in a sandbox with the skill's files read-only in its working folder; files it writes there (e.g. under out/) come back as results.`;
}

/**
 * The script runner of one runtime: each run gets the skill's folder, the packages installed for
 * it and the request's arguments; its output files are kept under `outputDir/<run_id>/` for
 * {@link SCRIPT_OUTPUT_TTL_MS} (downloads in the chat, MCP resources).
 */
export function createSkillScriptRunner(deps: {
  pool: () => SandboxPool;
  outputDir: string;
  /** The account's data folder, whose wheelhouse holds the installed packages. */
  home?: string;
  packagesFor?: (skill: Skill) => SkillPackagesFor;
  /** The package index the user set in Settings (undefined: PyPI). */
  packageIndex?: () => string | undefined;
  /** The store of the user's files (see {@link SkillScriptRunner.files}). */
  files: FileStore;
  /** Hosts the user granted a skill (its Network access); the native runtime reaches them through the proxy. */
  grants?: (skill: string) => string[];
}): SkillScriptRunner {
  const runDir = (runId: string) => {
    if (!RUN_ID.test(runId)) throw new AppError('INVALID_INPUT', `"${runId}" is not a script run id`);
    return join(deps.outputDir, runId);
  };
  const listOutputs = (runId: string): ScriptOutputRef[] => {
    const dir = runDir(runId);
    const out: ScriptOutputRef[] = [];
    const walk = (abs: string, rel: string) => {
      let entries: Dirent[];
      try {
        entries = readdirSync(abs, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const r = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) walk(join(abs, e.name), r);
        else if (e.isFile()) out.push(ref(runId, r, statSync(join(abs, e.name)).size));
      }
    };
    walk(dir, '');
    return out.sort((a, b) => a.path.localeCompare(b.path));
  };
  return {
    async run(skill, req) {
      const choice = deps.home ? scriptRuntimeFor(deps.home, skill.name) : null;
      const pkgs =
        choice?.runtime === 'native'
          ? { wheels: [], missing: [] }
          : (deps.packagesFor?.(skill) ?? { wheels: [], missing: [] });
      const granted = deps.grants?.(skill.name) ?? [];
      // In Pyodide a granted skill's scripts get the one host function LLM skills' tools get:
      // http_request to its granted hosts (urllib goes through it); without a grant, nothing.
      const requests: HttpLogEntry[] = [];
      const host = granted.length
        ? createSandboxHost({
            http: (input) =>
              httpRequest(input, {
                skill: skill.name,
                granted,
                signal: req.signal,
                timeoutMs: 15_000,
                log: (e) => {
                  if (requests.length < 100) requests.push(e);
                },
              }),
          })
        : undefined;
      const result =
        choice?.runtime === 'native' && deps.home
          ? await runNative(deps.home, skill, req, choice.reason!, granted)
          : await runSkillScript({
              host,
              pool: deps.pool(),
              files: skillScriptFiles(skill),
              inputs: req.inputs,
              script: req.script,
              argv: req.argv,
              stdin: req.stdin,
              env: req.env,
              timeoutMs: req.timeoutMs,
              signal: req.signal,
              packages: pkgs.wheels,
              queue: req.queue,
            });
      const runId = randomUUID();
      pruneOutputs(deps.outputDir);
      const files: ScriptOutputRef[] = [];
      for (const f of result.files) {
        // Paths come from the sandbox: checked again before they name a file on disk.
        const rel = scriptRelativePath(f.path, 'output file');
        const abs = join(runDir(runId), ...rel.split('/'));
        mkdirSync(dirname(abs), { recursive: true });
        writeFileSync(abs, f.bytes);
        files.push(ref(runId, rel, f.bytes.byteLength, f.media_type));
      }
      const { files: _bytes, ...rest } = result;
      return {
        ...rest,
        ...(requests.length ? { requests } : {}),
        skill: skill.name,
        script: scriptRelativePath(req.script, 'script'),
        run_id: runId,
        files,
        ...(pkgs.missing.length
          ? {
              hint: `this skill declares packages that are not installed: ${pkgs.missing.join(', ')}; install them with: skilldesk skills packages install ${JSON.stringify(skill.name)}`,
            }
          : programHint(result)),
      };
    },
    readOutput(runId, path) {
      const rel = scriptRelativePath(path, 'output file');
      const dir = runDir(runId);
      const abs = join(dir, ...rel.split('/'));
      try {
        // Only a regular file that really lies inside the run's folder: a link planted there (to a
        // key, to the store) is not followed, whatever the path says.
        if (!lstatSync(abs).isFile() || !realpathSync(abs).startsWith(realpathSync(dir) + sep))
          throw new Error('not a file of the run');
        return { bytes: readFileSync(abs), media_type: mediaTypeOf(rel) };
      } catch {
        throw new AppError(
          'NOT_FOUND',
          `no output "${rel}" of script run ${runId} (outputs are kept 7 days)`,
        );
      }
    },
    listOutputs,
    files: deps.files,
    async installPackages(skill, signal, opts = {}) {
      if (!deps.home) throw new AppError('HANDLER_NOT_AVAILABLE', 'no account folder for packages');
      const home = deps.home;
      let specs: string[] | null = null;
      let from: 'requirements' | 'imports' = 'requirements';
      if (opts.fromImports) {
        specs = await proposedPackages(skill);
        from = 'imports';
        if (opts.expected && !sameSet(opts.expected, specs))
          throw new AppError(
            'CONFLICT',
            `the scripts of "${skill.name}" now import ${specs.join(', ')}, not what was shown (${opts.expected.join(', ') || 'nothing'}): look at the proposal again before installing`,
            { skill: skill.name, proposed: specs },
          );
      } else {
        try {
          return await installSkillPackages(home, skill, { signal, indexUrl: deps.packageIndex?.() });
        } catch (e) {
          // A compiled package cannot go to Pyodide: when asked, the same requirements go to the OS
          // sandbox; otherwise the refusal names the package and the way to that runtime.
          if (!(e instanceof AppError) || typeof e.details?.package !== 'string') throw e;
          if (!opts.native && !opts.acceptNative)
            throw new AppError(
              e.code,
              `${e.message} To run its scripts with CPython in the OS sandbox instead: skilldesk skills packages install ${JSON.stringify(skill.name)}`,
              e.details,
            );
          specs = skillRequirements(skill).map((r) => r.spec);
        }
      }
      const env = await installNativeEnv(home, skill.name, specs, {
        signal,
        from,
        indexUrl: deps.packageIndex?.(),
      });
      const programs = await skillPrograms(skill);
      const missingPrograms = missingProgramsSentence(programs);
      const compiled = compiledPackages(env);
      const reason = compiled.length ? nativeReason(compiled) : undefined;
      const accepted = !!nativeConsent(home, skill.name);
      if (compiled.length && !accepted && opts.acceptNative) acceptNativeRuntime(home, skill.name, compiled);
      return {
        skill: skill.name,
        requirements: env.requirements,
        wheels: env.wheels.map(({ filename, name, version, sha256, size }) => ({
          filename,
          name,
          version,
          sha256,
          size,
        })),
        already_installed: false,
        runtime: 'native',
        ...(reason ? { runtime_reason: reason } : {}),
        native_accepted: accepted || (compiled.length > 0 && !!opts.acceptNative),
        ...(programs.length ? { programs } : {}),
        ...(missingPrograms ? { missing_programs: missingPrograms } : {}),
      };
    },
  };
}

/** A failed run's hint when it started a program not granted, or one missing on this computer. */
function programHint(result: { exit_code: number; stdout: string; stderr: string }): { hint?: string } {
  const output = `${result.stderr}\n${result.stdout.slice(-4000)}`;
  const hint =
    programRefusedHint(output) ?? (result.exit_code !== 0 ? missingProgramHint(output) : undefined);
  return hint ? { hint } : {};
}

/** The skill's Python sources by path (text resources ending in `.py`). */
function pythonSources(skill: Skill): Record<string, string> {
  const sources: Record<string, string> = {};
  for (const a of skill.artifacts) {
    const path = typeof a.metadata?.path === 'string' ? a.metadata.path : null;
    if (a.kind === BUNDLED_FILE_KIND && path?.endsWith('.py') && a.metadata?.encoding !== 'base64')
      sources[path] = a.content;
  }
  return sources;
}

/** What a skill's Python files import, read by Python's parser (stdlib and its own modules left out). */
export async function scanSkillImports(skill: Skill): Promise<ImportScan> {
  return scanImports(findNativePython().executable, pythonSources(skill));
}

/**
 * The programs a skill's scripts start outside Python, each found on this computer or not (read
 * with Python's parser, never run). Empty for a skill without Python scripts.
 */
export async function skillPrograms(skill: Skill): Promise<SkillProgram[]> {
  if (Object.keys(pythonSources(skill)).length === 0) return [];
  return locatePrograms((await scanSkillImports(skill)).programs);
}

/** The distributions a skill's scripts import (stdlib and its own modules left out). */
export async function proposedPackages(skill: Skill): Promise<string[]> {
  const scan = await scanSkillImports(skill);
  const specs = scan.packages.map((p) => p.distribution);
  if (specs.length === 0)
    throw new AppError(
      'INVALID_INPUT',
      `the scripts of "${skill.name}" import nothing beyond Python's standard library`,
    );
  return specs;
}

const sameSet = (a: string[], b: string[]) => {
  const x = new Set(a.map((n) => n.toLowerCase()));
  const y = new Set(b.map((n) => n.toLowerCase()));
  return x.size === y.size && [...x].every((n) => y.has(n));
};

/** How the skill page says a skill's scripts run when nothing makes them need the OS sandbox. */
export const PYODIDE_REASON =
  "its scripts run in Pyodide (Python compiled to WebAssembly) inside the app's sandbox";

/**
 * A skill's script runtime as the skill page shows it: the runtime in words, its compiled packages,
 * the user's acceptance, whether this machine has the OS sandbox and, for a skill that declares no
 * packages and has none installed, what its scripts import (a proposal; nothing is installed).
 * Problems reading the skill are data here, so the page still shows what is known.
 */
export async function scriptRuntimeStatus(home: string, skill: Skill): Promise<ScriptRuntimeStatus> {
  const facts = nativeRuntimeFacts(home, skill.name);
  const env = nativeEnv(home, skill.name);
  const sandbox = nativeSandboxSupport();
  const hasScripts = listSkillScripts(skill).length > 0;
  const hasRequirements = skill.artifacts.some((a) =>
    /(^|\/)requirements\.txt$/.test(typeof a.metadata?.path === 'string' ? a.metadata.path : ''),
  );
  let proposed: ScriptRuntimeStatus['proposed'] = null;
  let proposedError: string | null = null;
  let programs: SkillProgram[] = [];
  if (hasScripts) {
    // One parse gives both the programs its scripts start and, when nothing declares or holds its
    // packages, the proposal.
    try {
      const scan = await scanSkillImports(skill);
      const granted = new Set(programGrants(home, skill.name).map((g) => g.program));
      programs = locatePrograms(scan.programs).map((p) => ({ ...p, granted: granted.has(p.program) }));
      if (!hasRequirements && !env)
        proposed = scan.packages.map(({ module, distribution, files }) => ({ module, distribution, files }));
      if (scan.unreadable.length)
        proposedError = `Python could not read ${scan.unreadable.map((u) => `${u.path} (${u.error})`).join('; ')}`;
    } catch (e) {
      proposedError = e instanceof Error ? e.message : String(e);
    }
  }
  const compiledNames = new Set(facts.compiled);
  return {
    skill: skill.name,
    has_scripts: hasScripts,
    runtime: facts.runtime,
    reason: facts.reason ?? PYODIDE_REASON,
    compiled: facts.compiled,
    native_accepted: facts.native_accepted,
    accepted_at: facts.accepted_at,
    os_sandbox_available: sandbox.ok,
    os_sandbox_reason: sandbox.ok ? null : sandbox.reason,
    has_requirements: hasRequirements,
    installed: env
      ? {
          requirements: env.requirements,
          from: env.from,
          packages: env.wheels.map((w) => ({
            name: w.name,
            version: w.version,
            compiled: compiledNames.has(normalizeName(w.name)),
          })),
          installed_at: env.installed_at,
        }
      : null,
    proposed,
    proposed_error: proposedError,
    programs,
    missing_programs: missingProgramsSentence(programs) ?? null,
  };
}

/** A run in the OS sandbox, once the user accepted that runtime for the skill. */
async function runNative(
  home: string,
  skill: Skill,
  req: SkillScriptRequest,
  reason: string,
  granted: string[],
): Promise<RunSkillScriptResult> {
  if (!nativeConsent(home, skill.name)) {
    throw new AppError(
      'FORBIDDEN',
      `skill "${skill.name}": ${reason}, and that runtime has not been accepted for it, so it is refused (Pyodide cannot run it). Accept it with: skilldesk skills native-runtime accept ${JSON.stringify(skill.name)}`,
      { skill: skill.name, runtime: 'native' },
    );
  }
  // Host paths, bound read-only into the sandbox under inputs/ (never copied into a program).
  // A folder is walked only to hold it to its bounds; the bind shows it as it is.
  const named = (req.inputs ?? []).map((i) => {
    const name = scriptInputName(i.name);
    if (i.folder)
      scanInputFolder(i.path, { files: MAX_INPUT_FOLDER_FILES, bytes: MAX_NATIVE_INPUT_FOLDER_BYTES });
    return { name, path: i.path };
  });
  {
    const r = await runNativeSkillScript({
      home,
      skill: skill.name,
      files: skillScriptFiles(skill),
      script: scriptRelativePath(req.script, 'script'),
      argv: req.argv,
      stdin: req.stdin,
      env: req.env,
      inputs: named,
      timeoutMs: req.timeoutMs,
      signal: req.signal,
      // Only a skill the user granted hosts gets a way out, through the http_request gate's proxy.
      ...(granted.length
        ? { network: { skill: skill.name, granted, signal: req.signal, timeoutMs: 15_000 } }
        : {}),
      denied: deniedPrograms(home, skill.name),
      allowed: grantedExecutables(home, skill.name),
    });
    return {
      ...r,
      files: r.files.map((f) => ({ ...f, media_type: mediaTypeOf(f.path) })),
      ...(r.truncated ? { truncated: r.truncated } : {}),
    };
  }
}

function ref(runId: string, path: string, size: number, media_type = mediaTypeOf(path)): ScriptOutputRef {
  return {
    path,
    media_type,
    size,
    uri: `${SCRIPT_OUTPUT_URI}${runId}/${path.split('/').map(encodeURIComponent).join('/')}`,
  };
}

/** Drop run folders older than the TTL (best effort: a folder in use by a reader is skipped). */
function pruneOutputs(dir: string): void {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  const cutoff = Date.now() - SCRIPT_OUTPUT_TTL_MS;
  for (const name of entries) {
    if (!RUN_ID.test(name)) continue;
    try {
      if (statSync(join(dir, name)).mtimeMs < cutoff)
        rmSync(join(dir, name), { recursive: true, force: true });
    } catch {
      // gone already, or unreadable: left for the next prune
    }
  }
}
