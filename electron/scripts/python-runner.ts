import { readFileSync } from 'node:fs';
import type { RunPythonFileRef } from '../contract/builtin-tools.js';
import { chatFilePathProblem, type GrantedFolder, type PythonRuntimeName } from '../contract/chat-files.js';
import { AppError, assertNever } from '../contract/errors.js';
import {
  type HttpLogEntry,
  MAX_INPUT_FOLDER_FILES,
  MAX_PYTHON_INPUT_BYTES,
  type PythonException,
  runPythonCode,
  type SandboxPool,
  type ScriptFile,
  scanInputFolder,
} from '../sandbox/index.js';
import type { ChatFolder } from './chat-files.js';

/** One `run_python` run as its callers ask for it. */
export interface PythonRunRequest {
  runtime: PythonRuntimeName;
  code: string;
  /** The chat's folder: the run's working folder, read-only, where what it writes lands after. */
  folder: ChatFolder;
  /** Only these files of the folder are given (default: all). */
  files?: string[];
  timeoutMs: number;
  signal?: AbortSignal;
  /** Fair-queue key (the chat's session). */
  queue?: string;
  /** Hears what a runtime does before the run (Full Python's first install). */
  onProgress?: (message: string) => void;
  /** Hosts the chat granted its code (https through the app's gate); empty or absent: no network. */
  hosts?: readonly string[];
  /** The chat, named in a network refusal's advice. */
  session_id?: string;
  /** Folders the user granted: read-only at `inputs/<name>/`; nothing written there is kept. */
  folders?: readonly GrantedFolder[];
}

/** What a run gave back: its output, its exception, and the files it wrote (now in the folder). */
export interface PythonRunOutcome {
  runtime: PythonRuntimeName;
  stdout: string;
  stderr: string;
  exception: PythonException | null;
  files: RunPythonFileRef[];
  duration_ms: number;
  truncated?: { stdout?: boolean; stderr?: boolean; files?: string[] };
  /** The sandbox ended the run (a limit, a cancel): why, in words. */
  stopped?: { code: string; reason: string };
  /** Files the run wrote that the folder did not take, and why. */
  not_kept?: Array<{ name: string; reason: string }>;
  /** The HTTP requests the code made (allowed or refused). */
  requests?: HttpLogEntry[];
}

/**
 * A runtime `run_python` can run in. Each says whether it can run here (null) or why not, and runs
 * the code with the folder's files; the runner keeps what it wrote.
 */
export interface PythonRuntime {
  readonly name: PythonRuntimeName;
  unavailable(): string | null;
  /** What is installed (`name==version`), for the tool's description; empty for the standard library. */
  packages?(): string[];
  /** Host programs its code may start with subprocess (names), for the tool's description. */
  programs?(): string[];
  run(req: {
    code: string;
    files: ScriptFile[];
    timeoutMs: number;
    signal?: AbortSignal;
    queue?: string;
    onProgress?: (message: string) => void;
    hosts?: readonly string[];
    session_id?: string;
    /** Granted folders, read-only at `inputs/<name>/` (the OS sandbox binds them; Pyodide is given copies). */
    folders?: readonly GrantedFolder[];
  }): Promise<
    Omit<PythonRunOutcome, 'runtime' | 'files' | 'not_kept'> & {
      files: Array<{ path: string; bytes: Uint8Array; media_type: string }>;
    }
  >;
}

/** Runs `run_python` code in one of its runtimes. */
export interface PythonRunner {
  /** Null when `runtime` can run here, else why not (for the tool's error and the CLI). */
  unavailable(runtime: PythonRuntimeName): string | null;
  /** What `runtime` has installed (`name==version`), as the tool's description names it. */
  packages(runtime: PythonRuntimeName): string[];
  /** The host programs `runtime`'s code may start (none in Pyodide). */
  programs(runtime: PythonRuntimeName): string[];
  run(req: PythonRunRequest): Promise<PythonRunOutcome>;
}

/** Pyodide in the app's sandbox pool: the standard library, no install step, always there. */
export function pyodideRuntime(pool: () => SandboxPool): PythonRuntime {
  return {
    name: 'pyodide',
    unavailable: () => null,
    run: (req) =>
      runPythonCode({
        pool: pool(),
        code: req.code,
        files: [...req.files, ...folderCopies(req.folders ?? [], req.files)],
        timeoutMs: req.timeoutMs,
        signal: req.signal,
        queue: req.queue,
        limits: { memory_mb: 512, output_bytes: 1024 * 1024 },
        network: { hosts: req.hosts ?? [], session_id: req.session_id },
      }),
  };
}

/**
 * Full Python where the app was built without its environment (a runtime without a home folder):
 * it says so instead of falling back to anything less confined.
 */
export function fullPythonUnavailable(): PythonRuntime {
  const why =
    'Full Python is not available in this runtime (it has no managed environment for CPython with numpy, pandas, matplotlib). Use the Pyodide runtime (the standard library) instead: skilldesk chat --python pyodide.';
  return {
    name: 'full',
    unavailable: () => why,
    run: () => Promise.reject(new AppError('HANDLER_NOT_AVAILABLE', why)),
  };
}

/** The runner over the given runtimes (one per name). */
export function createPythonRunner(runtimes: { [N in PythonRuntimeName]: PythonRuntime }): PythonRunner {
  const pick = (name: PythonRuntimeName): PythonRuntime => {
    switch (name) {
      case 'pyodide':
      case 'full':
        return runtimes[name];
      default:
        return assertNever(name);
    }
  };
  return {
    unavailable: (name) => pick(name).unavailable(),
    packages: (name) => pick(name).packages?.() ?? [],
    programs: (name) => pick(name).programs?.() ?? [],
    async run(req) {
      const runtime = pick(req.runtime);
      const why = runtime.unavailable();
      if (why) throw new AppError('HANDLER_NOT_AVAILABLE', why);
      const files = inputsOf(req.folder, req.files);
      const r = await runtime.run({
        code: req.code,
        files,
        timeoutMs: req.timeoutMs,
        signal: req.signal,
        queue: req.queue,
        onProgress: req.onProgress,
        hosts: req.hosts,
        session_id: req.session_id,
        folders: req.folders,
      });
      const granted = (req.folders ?? []).map((f) => `inputs/${f.name}/`);
      const kept: RunPythonFileRef[] = [];
      const notKept: Array<{ name: string; reason: string }> = [];
      for (const f of r.files) {
        // Paths come from the sandbox: checked again before they name a file on disk.
        const why = chatFilePathProblem(f.path);
        if (granted.some((g) => f.path.startsWith(g))) {
          notKept.push({ name: f.path, reason: 'a granted folder is read-only: write results under out/' });
          continue;
        }
        if (why) {
          notKept.push({ name: f.path, reason: `the name ${why}` });
          continue;
        }
        try {
          const v = req.folder.write(f.path, f.bytes);
          kept.push({ name: v.name, size: v.size, mime: v.media_type });
        } catch (e) {
          if (!(e instanceof AppError)) throw e;
          notKept.push({ name: f.path, reason: e.message });
        }
      }
      return {
        runtime: runtime.name,
        stdout: r.stdout,
        stderr: r.stderr,
        exception: r.exception,
        files: kept,
        duration_ms: r.duration_ms,
        ...(r.truncated ? { truncated: r.truncated } : {}),
        ...(r.stopped ? { stopped: r.stopped } : {}),
        ...(notKept.length ? { not_kept: notKept } : {}),
        ...(r.requests?.length ? { requests: r.requests } : {}),
      };
    },
  };
}

/** The folder's files a run is given: all of them, or those named (each must exist). */
function inputsOf(folder: ChatFolder, names: string[] | undefined): ScriptFile[] {
  const all = folder.list();
  const chosen = names
    ? names.map((n) => {
        const f = all.find((x) => x.name === n.replace(/^\.\//, ''));
        if (!f)
          throw new AppError(
            'NOT_FOUND',
            `no file "${n}" in this chat's folder${all.length ? `; its files: ${all.map((x) => x.name).join(', ')}` : ' (it is empty)'}`,
          );
        return f;
      })
    : all;
  const total = chosen.reduce((n, f) => n + f.size, 0);
  if (total > MAX_PYTHON_INPUT_BYTES)
    throw new AppError(
      'TOO_LARGE',
      `the chat's files come to ${total} bytes, more than the ${MAX_PYTHON_INPUT_BYTES} a run takes: pass files to give the run only those it needs`,
    );
  return chosen.map((f) => ({ path: f.name, bytes: new Uint8Array(folder.read(f.name).bytes) }));
}

/**
 * Pyodide's copies of the granted folders' files, at `inputs/<name>/<path>`, held with the chat's
 * files to the bytes a run takes (TOO_LARGE names the folder and what to do).
 */
function folderCopies(folders: readonly GrantedFolder[], given: ScriptFile[]): ScriptFile[] {
  let room = MAX_PYTHON_INPUT_BYTES - given.reduce((n, f) => n + f.bytes.byteLength, 0);
  const out: ScriptFile[] = [];
  for (const g of folders) {
    const { files, bytes } = scanInputFolder(g.path, {
      files: MAX_INPUT_FOLDER_FILES,
      bytes: Math.max(0, room),
    });
    room -= bytes;
    for (const f of files)
      out.push({ path: `inputs/${g.name}/${f.rel}`, bytes: new Uint8Array(readFileSync(f.path)) });
  }
  return out;
}
