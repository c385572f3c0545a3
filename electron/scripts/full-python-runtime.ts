import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../contract/errors.js';
import {
  type HttpLogEntry,
  mediaTypeOf,
  PYTHON_DISPLAY_SOURCE,
  type PythonException,
  pythonGateOptions,
} from '../sandbox/index.js';
import { knownProgramExecutables, knownProgramNames } from './native/exec-allow.js';
import type { FullPython } from './native/full-python.js';
import { withNetProxy } from './native/net-proxy.js';
import { regularFiles } from './native/run.js';
import {
  NATIVE_CODE_DIR,
  NATIVE_REPORT_DIR,
  nativeSandboxSupport,
  runNativeSandboxed,
} from './native/sandbox.js';
import type { PythonRuntime } from './python-runner.js';

/** Largest download one connection of a Full Python run may make through the proxy. */
const FULL_PYTHON_DOWNLOAD_BYTES = 512 * 1024 * 1024;

/** Files a Full Python run hands back at most (the rest are named as dropped). */
export const MAX_FULL_PYTHON_OUTPUT_FILES = 100;

// Runs the model's code as `main.py` in the working folder (the chat's files), and leaves the
// exception it raised in the report folder. Its own frame is cut from the traceback, so the model
// reads only its code's lines.
const RUNNER = `import json, os, shutil, sys, traceback

def _skilldesk_main():
    cache = os.environ.pop("SKILLDESK_MPL_CACHE", "")
    if cache and os.path.isdir(cache):
        try:
            shutil.copytree(cache, os.environ.get("MPLCONFIGDIR", "/tmp/matplotlib"), dirs_exist_ok=True)
        except OSError:
            pass
    with open("${NATIVE_CODE_DIR}/main.py", encoding="utf-8") as f:
        source = f.read()
    sys.argv = ["main.py"]
    sys.path[0] = os.getcwd()
    exc = None
    glb = {"__name__": "__main__", "__file__": "main.py", "__builtins__": __builtins__}
    exec(compile(${JSON.stringify(PYTHON_DISPLAY_SOURCE)}, "<skilldesk display>", "exec"), glb)
    try:
        exec(compile(source, "main.py", "exec"), glb)
    except SystemExit as e:
        if e.code not in (None, 0):
            exc = {"type": "SystemExit", "message": str(e.code)[:8000], "traceback": ""}
    except BaseException as e:
        text = "".join(traceback.format_exception(type(e), e, e.__traceback__.tb_next))
        sys.stderr.write(text)
        exc = {"type": type(e).__name__, "message": str(e)[:8000], "traceback": text[-32000:]}
    for s in (sys.stdout, sys.stderr):
        try:
            s.flush()
        except Exception:
            pass
    with open("${NATIVE_REPORT_DIR}/report.json", "w") as f:
        json.dump({"exception": exc}, f)

_skilldesk_main()
`;

const ReportSchema = z.object({
  exception: z
    .object({ type: z.string().max(200), message: z.string().max(8000), traceback: z.string().max(32_000) })
    .nullable(),
});

/**
 * Full Python: CPython with the scientific stack in the OS sandbox of the native runtime (no network
 * but the chat's granted hosts through the gate's proxy, the chat's files as a throwaway writable
 * working folder, a private /tmp, no home, an environment built from nothing, limits, the process
 * group killed at the end). The environment is built on first use; `onProgress` hears its steps.
 * Where the OS sandbox is missing it refuses.
 */
export function fullPythonRuntime(
  env: FullPython,
  hooks: { onInstall?: (message: string) => void } = {},
): PythonRuntime {
  return {
    name: 'full',
    packages: () => env.selection().wheels.map((w) => `${w.name}==${w.version}`),
    programs: () => knownProgramNames(),
    unavailable() {
      const sup = nativeSandboxSupport();
      return sup.ok
        ? null
        : `Full Python runs only inside the OS sandbox, which is not available here: ${sup.reason}. Use the Pyodide runtime (the standard library) instead: skilldesk chat --python pyodide.`;
    },
    async run(req) {
      const t0 = performance.now();
      if (req.code.includes('\0'))
        throw new AppError('INVALID_INPUT', 'the code must be text without NUL characters');
      const built = await env.ensure({
        signal: req.signal,
        onProgress: (p) => {
          hooks.onInstall?.(p.message);
          req.onProgress?.(p.message);
        },
      });
      const work = mkdtempSync(join(tmpdir(), 'skilldesk-full-python-run-'));
      try {
        const cwd = join(work, 'work');
        const code = join(work, 'code');
        const report = join(work, 'report');
        // out/ is where the tool's description points results.
        for (const d of [cwd, join(cwd, 'out'), code, report]) mkdirSync(d);
        const given = new Map<string, Uint8Array>();
        for (const f of req.files) {
          const abs = join(cwd, ...f.path.split('/'));
          mkdirSync(dirname(abs), { recursive: true });
          // Read-only like Pyodide's: results go to new files.
          writeFileSync(abs, f.bytes, { mode: 0o444 });
          given.set(f.path, f.bytes);
        }
        writeFileSync(join(code, 'main.py'), req.code, { mode: 0o444 });
        writeFileSync(join(code, 'runner.py'), RUNNER, { mode: 0o444 });
        // The chat's network grant through the proxy, with Pyodide's gate options: the same hosts,
        // https only, the same refusal words, every request logged (so a refused host can be
        // allowed from the chat). Always there, so a refusal says how to grant, not "unreachable".
        const requests: HttpLogEntry[] = [];
        const gate = {
          ...pythonGateOptions({ hosts: req.hosts ?? [], session_id: req.session_id }, requests, req.signal),
          // The proxy streams a tunnel's bytes into the sandbox (nothing is held in the app), so a
          // download is bounded by the run, not by the 5 MiB / 15 s that suit a host-call reply:
          // a data analysis fetching a 50 MB CSV from a granted host is the common case.
          maxResponseBytes: FULL_PYTHON_DOWNLOAD_BYTES,
          timeoutMs: req.timeoutMs,
        };
        const r = await withNetProxy(gate, (proxySocket) =>
          runNativeSandboxed({
            proxySocket,
            python: built.python,
            pythonPaths: built.paths,
            skillDir: code,
            script: 'runner.py',
            outDir: report,
            workDir: cwd,
            // Granted folders are bound read-only at inputs/<name>/ inside the working folder.
            inputs: (req.folders ?? []).map((f) => ({ name: f.name, path: f.path })),
            env: {
              MPLBACKEND: 'Agg',
              MPLCONFIGDIR: '/tmp/matplotlib',
              ...(built.mpl_cache ? { SKILLDESK_MPL_CACHE: built.mpl_cache } : {}),
            },
            limits: { timeout_ms: req.timeoutMs, cpu_seconds: Math.ceil(req.timeoutMs / 1000) + 1 },
            // Only Python, the base tools and the document programs SkillDesk knows start.
            execs: knownProgramExecutables(),
            signal: req.signal,
          }),
        );
        const duration_ms = Math.round(performance.now() - t0);
        if (r.sandbox_error) {
          const e = r.sandbox_error;
          const stopped =
            e.code === 'SANDBOX_TIMEOUT'
              ? { code: e.code, reason: `time limit: stopped after ${req.timeoutMs} ms` }
              : e.code === 'CANCELLED'
                ? { code: e.code, reason: 'the run was cancelled from the chat; nothing it wrote was kept' }
                : { code: e.code, reason: e.message };
          return {
            stdout: r.stdout,
            stderr: r.stderr,
            exception: null,
            files: [],
            duration_ms,
            ...(r.truncated ? { truncated: r.truncated } : {}),
            stopped,
            ...(requests.length ? { requests } : {}),
          };
        }
        let exception: PythonException | null = null;
        try {
          exception = ReportSchema.parse(
            JSON.parse(readFileSync(join(report, 'report.json'), 'utf8')),
          ).exception;
        } catch {
          // No report: the process ended before the runner could write one (os._exit, a signal).
          exception = {
            type: 'ProcessExit',
            message: `the Python process ended with status ${r.exit_code} before the code finished`,
            traceback: r.stderr.slice(-4000),
          };
        }
        const { files, dropped } = collect(cwd, given);
        const truncated = {
          ...(r.truncated ?? {}),
          ...(dropped.length ? { files: dropped } : {}),
        };
        return {
          stdout: r.stdout,
          stderr: r.stderr,
          exception,
          files,
          duration_ms,
          ...(Object.keys(truncated).length ? { truncated } : {}),
          ...(requests.length ? { requests } : {}),
        };
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    },
  };
}

/** Files under the working folder that are new or changed (symlinks and hidden names skipped). */
function collect(
  dir: string,
  given: Map<string, Uint8Array>,
): { files: Array<{ path: string; bytes: Uint8Array; media_type: string }>; dropped: string[] } {
  const found = regularFiles(dir, '', (name) => name === '__pycache__');
  const changed = found.filter((path) => {
    const before = given.get(path);
    if (!before) return true;
    const now = readFileSync(join(dir, ...path.split('/')));
    return !Buffer.from(before.buffer, before.byteOffset, before.byteLength).equals(now);
  });
  return {
    files: changed.slice(0, MAX_FULL_PYTHON_OUTPUT_FILES).map((path) => ({
      path,
      bytes: new Uint8Array(readFileSync(join(dir, ...path.split('/')))),
      media_type: mediaTypeOf(path),
    })),
    dropped: changed.slice(MAX_FULL_PYTHON_OUTPUT_FILES),
  };
}
