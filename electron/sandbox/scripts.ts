import { readFileSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import { z } from 'zod';
import { AppError } from '../contract/errors.js';
import { MAX_INPUT_FOLDER_FILES, scanInputFolder } from './input-folder.js';
import { MAX_LIMITS, type SandboxLimitsOverride } from './limits.js';
import type { SandboxPool } from './pool.js';
import type { SandboxHost, SandboxRunResult } from './types.js';

/** Where a script's skill files sit in the sandbox; also its working folder. */
export const SCRIPT_CWD = '/skill';
/** The folder (relative to {@link SCRIPT_CWD}) that exists, empty and writable, for outputs. */
export const SCRIPT_OUT_DIR = 'out';
/** Where package wheels are mounted (read-only, each on `sys.path`). */
export const SCRIPT_PACKAGES_DIR = '/packages';

/** Where a run's input files sit, relative to {@link SCRIPT_CWD}. */
export const SCRIPT_INPUTS_DIR = 'inputs';

/**
 * Largest total size of the files a script is given (skill files, inputs and wheels). They cross to
 * the sandbox as binary frames and sit in its memory file system, so the bound is the sandbox
 * process's memory, not a program's size.
 */
export const MAX_SCRIPT_INPUT_BYTES = 256 * 1024 * 1024;
/** Most input files one run takes. */
export const MAX_SCRIPT_INPUTS = 100;
/** Files a run hands back at most, and their total size: base64 in the run's result must fit. */
export const MAX_SCRIPT_OUTPUT_FILES = 64;
export const MAX_SCRIPT_OUTPUT_BYTES = 4 * 1024 * 1024;
/** Largest stdin. */
export const MAX_SCRIPT_STDIN = 1024 * 1024;

/**
 * A file of the user's given to a run: `name` is where the script finds it (`inputs/<name>`,
 * read-only), `path` the file on this machine. The native runtime binds the path; Pyodide's reads
 * it here and hands the bytes to the sandbox.
 */
export interface ScriptInput {
  name: string;
  path: string;
  /**
   * A folder the user granted, read-only at `inputs/<name>/` with its tree (see
   * {@link scanInputFolder}): the native runtime binds it, Pyodide's reads its files here.
   */
  folder?: boolean;
}

/**
 * `name` if it can be an input's name: one plain file name (no folder, not `.`/`..`, no NUL or
 * control character, at most 255 bytes). Throws INVALID_INPUT naming it otherwise.
 */
export function scriptInputName(name: string): string {
  const bad =
    !name ||
    name === '.' ||
    name === '..' ||
    /[/\\\u0000-\u001f]/.test(name) ||
    Buffer.byteLength(name) > 255;
  if (bad)
    throw new AppError(
      'INVALID_INPUT',
      `"${name}" cannot name an input file: it must be a plain file name (no folders, not . or ..), as the script sees it under ${SCRIPT_INPUTS_DIR}/`,
      { input: name },
    );
  return name;
}

/**
 * Check a run's inputs (names plain and distinct, files present and regular, folders present and
 * within {@link MAX_INPUT_FOLDER_FILES}, sizes within `budget`) and read them: AppError NOT_FOUND /
 * INVALID_INPUT / TOO_LARGE naming the file or folder. A folder's files land at
 * `inputs/<name>/<path in the folder>`.
 */
export function readScriptInputs(inputs: ScriptInput[], budget = MAX_SCRIPT_INPUT_BYTES): ScriptFile[] {
  if (inputs.length > MAX_SCRIPT_INPUTS)
    throw new AppError('TOO_LARGE', `at most ${MAX_SCRIPT_INPUTS} input files per run`, {
      limit: 'script_inputs',
      max: MAX_SCRIPT_INPUTS,
    });
  const seen = new Set<string>();
  let total = 0;
  const sized: Array<{ name: string; path: string }> = [];
  for (const i of inputs) {
    const name = scriptInputName(i.name);
    if (seen.has(name))
      throw new AppError(
        'INVALID_INPUT',
        `two inputs are named "${name}": the script sees them all under ${SCRIPT_INPUTS_DIR}/, so each needs its own name (rename or copy one)`,
        { input: name },
      );
    seen.add(name);
    if (i.folder) {
      const scan = scanInputFolder(i.path, { files: MAX_INPUT_FOLDER_FILES, bytes: budget - total });
      total += scan.bytes;
      for (const f of scan.files) sized.push({ name: `${name}/${f.rel}`, path: f.path });
      continue;
    }
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(i.path);
    } catch {
      throw new AppError('NOT_FOUND', `input file ${i.path} does not exist (or cannot be read)`, {
        input: name,
      });
    }
    if (!st.isFile())
      throw new AppError('INVALID_INPUT', `input ${i.path} is not a regular file`, { input: name });
    total += st.size;
    if (total > budget)
      throw new AppError(
        'TOO_LARGE',
        `the input files come to more than ${budget} bytes (${i.path} is ${st.size}), the most a run takes`,
        { limit: 'script_input_bytes', max: budget, input: name },
      );
    sized.push({ name, path: i.path });
  }
  return sized.map(({ name, path }) => {
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch (e) {
      throw new AppError('NOT_FOUND', `input file ${path} cannot be read (${(e as Error).message})`, {
        input: name,
      });
    }
    return {
      path: `${SCRIPT_INPUTS_DIR}/${name}`,
      bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    };
  });
}

/** One file a script sees, at a path relative to its working folder. */
export interface ScriptFile {
  path: string;
  bytes: Uint8Array;
  /** Kept for the record (Agent Skills scripts may carry the bit); the sandbox runs Python only. */
  executable?: boolean;
}

/** A pure-Python wheel mounted for the run (see `electron/skills/packages.ts`). */
export interface ScriptPackage {
  /** The wheel's file name (`pypdf-6.0.0-py3-none-any.whl`). */
  filename: string;
  bytes: Uint8Array;
}

/** Options of {@link runSkillScript}. */
export interface RunSkillScriptOptions {
  pool: SandboxPool;
  /** The skill's files, read-only at their relative paths under the working folder. */
  files: ScriptFile[];
  /** The user's files, read-only under `inputs/` (see {@link ScriptInput}). */
  inputs?: ScriptInput[];
  /** The script to run, relative to the working folder (`scripts/extract.py`). */
  script: string;
  /** `sys.argv[1:]`. */
  argv?: string[];
  stdin?: string;
  /** The script's whole environment (`os.environ`); nothing else is in it. */
  env?: Record<string, string>;
  /** Wall-clock budget (clamped to the sandbox's maximum). */
  timeoutMs?: number;
  /** Other limits (memory, output); `result_bytes` is the runner's own. */
  limits?: SandboxLimitsOverride;
  signal?: AbortSignal;
  /** Wheels to put on `sys.path`, read-only. */
  packages?: ScriptPackage[];
  /** Host functions the script may call through `import skilldesk` (none without one). */
  host?: SandboxHost;
  /** Fair-queue key (see SandboxRunOptions.queue). */
  queue?: string;
}

/** A file the script created or changed under its working folder. */
export interface ScriptOutputFile {
  path: string;
  bytes: Uint8Array;
  media_type: string;
}

/** The outcome of a script run: what a terminal would show, plus the files it wrote. */
export interface RunSkillScriptResult {
  /** The script's exit status: `sys.exit(n)` gives n, an uncaught exception 1; -1 when the sandbox stopped it. */
  exit_code: number;
  stdout: string;
  stderr: string;
  files: ScriptOutputFile[];
  duration_ms: number;
  /** What was cut: output past the limit, files past the count or size limit (their paths). */
  truncated?: { stdout?: boolean; stderr?: boolean; files?: string[] };
  /**
   * Set when the sandbox, not the script, ended the run (time or memory limit, a violation): the
   * script's exit code is then -1 and this says why.
   */
  sandbox_error?: { code: string; message: string };
}

const ReportSchema = z.strictObject({
  exit_code: z.number().int(),
  files: z
    .array(z.strictObject({ path: z.string().min(1).max(1024), data: z.string() }))
    .max(MAX_SCRIPT_OUTPUT_FILES),
  dropped: z.array(z.string().max(1024)).max(10_000),
});

/**
 * A script's path as the sandbox will hold it: relative, `/`-separated, no `..`, no empty or dot
 * segment. Throws INVALID_INPUT naming the path.
 */
export function scriptRelativePath(path: string, what = 'path'): string {
  const p = path.replace(/\\/g, '/').replace(/^\.\//, '');
  const bad =
    !p ||
    p.startsWith('/') ||
    p.includes('\0') ||
    p.split('/').some((s) => s === '' || s === '.' || s === '..') ||
    posix.normalize(p) !== p;
  if (bad) throw new AppError('INVALID_INPUT', `${what} "${path}" must be a relative path inside the skill`);
  return p;
}

/** The modification time (seconds) the sandbox gives every file a run is given (worker.mjs). */
const GIVEN_MTIME_S = 1;

/**
 * The Python program that sets a script's stage and runs it. The files are not in it: the pool
 * hands them to the sandbox as binary frames and the worker writes them into the run's own folders
 * (fresh for each run and dropped after it, see worker.mjs), read-only, with the modification time
 * {@link GIVEN_MTIME_S}; what the script changed is what is newer.
 */
function bootstrap(job: unknown): string {
  return `import json as _json
_job = _json.loads(${JSON.stringify(JSON.stringify(job))})
def _skilldesk_script(job):
    import io, os, stat, sys, traceback, skilldesk
    submit = skilldesk.submit
    # The report goes out through submit(); the script must not be able to make it first.
    def _refused(*_a, **_k):
        raise skilldesk.SkillDeskError("INVALID_INPUT", "submit() is not available to skill scripts")
    skilldesk.submit = _refused
    cwd, pkgs = job["cwd"], job["packages_dir"]
    sys.dont_write_bytecode = True
    given = set(job["given"])
    os.makedirs(os.path.join(cwd, job["out_dir"]), exist_ok=True)
    os.chdir(cwd)
    script = os.path.join(cwd, job["script"])
    sys.argv = [job["script"], *job["argv"]]
    sys.stdin = io.TextIOWrapper(io.BytesIO(job["stdin"].encode("utf-8")), encoding="utf-8")
    os.environ.clear()
    os.environ.update(job["env"])
    # As \`python scripts/x.py\` would: the script's folder first, then the packages.
    sys.path[:0] = [os.path.dirname(script)] + [os.path.join(pkgs, n) for n in job["packages"]]
    code = 0
    try:
        try:
            with open(script, "rb") as f:
                source = f.read()
            scope = {"__name__": "__main__", "__file__": script, "__builtins__": __builtins__}
            exec(compile(source, script, "exec"), scope)
        finally:
            for s in (sys.stdout, sys.stderr):
                try:
                    s.flush()
                except BaseException:
                    pass
    except SystemExit as e:
        if e.code is None:
            code = 0
        elif isinstance(e.code, int) and not isinstance(e.code, bool):
            code = e.code
        else:
            print(e.code, file=sys.__stderr__)
            code = 1
    except KeyboardInterrupt:
        # The sandbox's interrupt (time limit, cancel): its outcome, not the script's.
        raise
    except BaseException as e:
        tb = e.__traceback__
        # The script's frames only, as \`python script.py\` shows them.
        while tb is not None and tb.tb_frame.f_code.co_filename != script:
            tb = tb.tb_next
        sys.__stderr__.write("".join(traceback.format_exception(type(e), e, tb or e.__traceback__)))
        code = 1
    try:
        sys.__stderr__.flush()
        sys.__stdout__.flush()
    except BaseException:
        pass
    files, dropped, total = [], [], 0
    import base64
    for root, dirs, names in os.walk(cwd):
        dirs.sort()
        for n in sorted(names):
            path = os.path.join(root, n)
            rel = os.path.relpath(path, cwd)
            try:
                st = os.lstat(path)
                if not stat.S_ISREG(st.st_mode):
                    continue
                # A given file the run left alone keeps the time it was given with: not read again.
                if rel in given and st.st_mtime == job["given_mtime"]:
                    continue
                if len(files) >= job["max_files"] or total + st.st_size > job["max_bytes"]:
                    dropped.append(rel)
                    continue
                with open(path, "rb") as f:
                    raw = f.read(job["max_bytes"] + 1)
            except OSError:
                continue
            if total + len(raw) > job["max_bytes"]:
                dropped.append(rel)
                continue
            total += len(raw)
            files.append([rel, base64.b64encode(raw).decode("ascii")])
    files.sort()
    submit({"exit_code": code, "files": [{"path": p, "data": d} for p, d in files], "dropped": dropped})
_skilldesk_script(_job)
`;
}

const MEDIA_TYPES: Record<string, string> = {
  csv: 'text/csv',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  gif: 'image/gif',
  htm: 'text/html',
  html: 'text/html',
  jpeg: 'image/jpeg',
  jpg: 'image/jpeg',
  json: 'application/json',
  md: 'text/markdown',
  pdf: 'application/pdf',
  png: 'image/png',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  py: 'text/x-python',
  svg: 'image/svg+xml',
  tsv: 'text/tab-separated-values',
  txt: 'text/plain',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xml: 'application/xml',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  zip: 'application/zip',
};

/** A file's media type by its extension (`application/octet-stream` when unknown). */
export function mediaTypeOf(path: string): string {
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase() ?? '';
  return MEDIA_TYPES[ext] ?? 'application/octet-stream';
}

/**
 * Run a skill's Python script in the sandbox as `python SCRIPT ARGV…` would run it: `sys.argv`,
 * stdin, `__name__ == "__main__"`, `os.environ` exactly `env`, the working folder
 * ({@link SCRIPT_CWD}) holding `files` read-only at their relative paths with an empty `out/`,
 * and `packages` (wheels) read-only on `sys.path`. Every file the script creates or changes under
 * the working folder comes back (up to {@link MAX_SCRIPT_OUTPUT_FILES} files,
 * {@link MAX_SCRIPT_OUTPUT_BYTES} in all). `sys.exit(n)` is exit code n and an uncaught exception
 * exit code 1 with its traceback on stderr — results, not failures. A limit the sandbox enforced
 * (time, memory) gives exit code -1 and `sandbox_error`. Bad options throw INVALID_INPUT /
 * TOO_LARGE; a sandbox that cannot start rejects with SANDBOX_FAILED.
 */
export async function runSkillScript(opts: RunSkillScriptOptions): Promise<RunSkillScriptResult> {
  const t0 = performance.now();
  const script = scriptRelativePath(opts.script, 'script');
  const seen = new Set<string>();
  let inputBytes = 0;
  const files = opts.files.map((f) => {
    const path = scriptRelativePath(f.path);
    if (seen.has(path)) throw new AppError('INVALID_INPUT', `the file "${path}" is given twice`);
    seen.add(path);
    inputBytes += f.bytes.byteLength;
    return { path, bytes: f.bytes };
  });
  if (!seen.has(script)) {
    const scripts = [...seen].filter((p) => p.endsWith('.py'));
    throw new AppError(
      'NOT_FOUND',
      `the skill has no script "${script}"${scripts.length ? `; its scripts: ${scripts.join(', ')}` : ' (it has no Python scripts)'}`,
      { script },
    );
  }
  if (!script.endsWith('.py')) {
    throw new AppError(
      'INVALID_INPUT',
      `"${script}" is not a Python script: only .py files run in the sandbox`,
    );
  }
  const packages = (opts.packages ?? []).map((p) => {
    if (!/^[A-Za-z0-9_.+-]+\.whl$/.test(p.filename)) {
      throw new AppError('INVALID_INPUT', `"${p.filename}" is not a wheel file name`);
    }
    inputBytes += p.bytes.byteLength;
    return p;
  });
  if (inputBytes > MAX_SCRIPT_INPUT_BYTES) {
    throw new AppError(
      'TOO_LARGE',
      `the script's files and packages come to ${inputBytes} bytes, more than the ${MAX_SCRIPT_INPUT_BYTES} a run takes`,
      { limit: 'script_input_bytes', max: MAX_SCRIPT_INPUT_BYTES },
    );
  }
  // The user's inputs take the place of any `inputs/` the skill itself bundles.
  const inputs = readScriptInputs(opts.inputs ?? [], MAX_SCRIPT_INPUT_BYTES - inputBytes);
  const staged = [
    ...(inputs.length ? files.filter((f) => !f.path.startsWith(`${SCRIPT_INPUTS_DIR}/`)) : files),
    ...inputs,
  ];
  const stdin = opts.stdin ?? '';
  if (stdin.length > MAX_SCRIPT_STDIN) {
    throw new AppError('TOO_LARGE', `stdin is longer than ${MAX_SCRIPT_STDIN} characters`, {
      limit: 'stdin',
      max: MAX_SCRIPT_STDIN,
    });
  }
  const argv = opts.argv ?? [];
  const env = opts.env ?? {};
  for (const [k, v] of Object.entries(env)) {
    if (!k || k.includes('=') || k.includes('\0') || typeof v !== 'string' || v.includes('\0')) {
      throw new AppError('INVALID_INPUT', `environment variable "${k}" is not a valid name=value pair`);
    }
  }
  if (argv.some((a) => typeof a !== 'string' || a.includes('\0'))) {
    throw new AppError('INVALID_INPUT', 'every argument must be a string without NUL characters');
  }
  if (opts.signal?.aborted) throw new AppError('CANCELLED', 'the script run was cancelled');
  const code = bootstrap({
    cwd: SCRIPT_CWD,
    out_dir: SCRIPT_OUT_DIR,
    packages_dir: SCRIPT_PACKAGES_DIR,
    given: staged.map((f) => f.path),
    given_mtime: GIVEN_MTIME_S,
    packages: packages.map((p) => p.filename),
    script,
    argv,
    stdin,
    env,
    max_files: MAX_SCRIPT_OUTPUT_FILES,
    max_bytes: MAX_SCRIPT_OUTPUT_BYTES,
  });
  const limits: SandboxLimitsOverride = {
    ...opts.limits,
    ...(opts.timeoutMs !== undefined ? { timeout_ms: opts.timeoutMs } : {}),
    // Room for the output files in base64 and their paths.
    result_bytes: MAX_LIMITS.result_bytes,
  };
  const run = await raceSignal(
    opts.pool.run(code, {
      limits,
      host: opts.host,
      queue: opts.queue,
      files: [
        ...staged.map((f) => ({ path: `${SCRIPT_CWD}/${f.path}`, bytes: f.bytes })),
        ...packages.map((p) => ({ path: `${SCRIPT_PACKAGES_DIR}/${p.filename}`, bytes: p.bytes })),
      ],
    }),
    opts.signal,
  );
  return toResult(run, performance.now() - t0);
}

/** The pool has no per-run abort: an aborted caller stops waiting and the run's limits end it. */
function raceSignal<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AppError('CANCELLED', 'the script run was cancelled'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

function toResult(run: SandboxRunResult, durationMs: number): RunSkillScriptResult {
  const truncated: NonNullable<RunSkillScriptResult['truncated']> = {};
  if (run.stdout_truncated) truncated.stdout = true;
  if (run.stderr_truncated) truncated.stderr = true;
  const report = run.submitted ? ReportSchema.safeParse(run.result) : null;
  const base = { stdout: run.stdout, stderr: run.stderr, duration_ms: Math.round(durationMs) };
  if (!report?.success) {
    // The runner did not report: the sandbox ended the run (a limit) or the runner itself broke.
    const e = run.error;
    return {
      exit_code: -1,
      ...base,
      stderr: [run.stderr, e?.traceback].filter(Boolean).join('\n'),
      files: [],
      ...(Object.keys(truncated).length ? { truncated } : {}),
      sandbox_error: {
        code: e?.code ?? 'SANDBOX_FAILED',
        message: e ? `${e.type}: ${e.message}` : 'the script runner gave no report',
      },
    };
  }
  const r = report.data;
  if (r.dropped.length) truncated.files = r.dropped;
  return {
    exit_code: r.exit_code,
    ...base,
    files: r.files.map((f) => ({
      path: f.path,
      bytes: new Uint8Array(Buffer.from(f.data, 'base64')),
      media_type: mediaTypeOf(f.path),
    })),
    ...(Object.keys(truncated).length ? { truncated } : {}),
  };
}
