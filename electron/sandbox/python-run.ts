import { z } from 'zod';
import { AppError } from '../contract/errors.js';
import { createSandboxHost } from './host-functions.js';
import { type HttpGateOptions, type HttpLogEntry, httpRequest, type Resolve } from './http-request.js';
import { MAX_LIMITS, type SandboxLimitsOverride } from './limits.js';
import type { SandboxPool } from './pool.js';
import { PYTHON_DISPLAY_SOURCE } from './python-display.js';
import { mediaTypeOf, type ScriptFile, type ScriptOutputFile, scriptRelativePath } from './scripts.js';
import type { SandboxHost, SandboxRunResult } from './types.js';

/** Largest total size of the files a `run_python` run is given. */
export const MAX_PYTHON_INPUT_BYTES = 32 * 1024 * 1024;
/** Files a run hands back at most, and their total size (base64 in the run's result must fit). */
export const MAX_PYTHON_OUTPUT_FILES = 32;
export const MAX_PYTHON_OUTPUT_BYTES = 5 * 1024 * 1024;
/** The name the code runs under in tracebacks. */
export const PYTHON_CODE_NAME = 'main.py';

/** Options of {@link runPythonCode}. */
export interface RunPythonCodeOptions {
  pool: SandboxPool;
  code: string;
  /** Files in the working folder, read-only at their relative paths. */
  files: ScriptFile[];
  timeoutMs?: number;
  /** Other limits (memory, output); `result_bytes` is the runner's own. */
  limits?: SandboxLimitsOverride;
  signal?: AbortSignal;
  /** Fair-queue key (the chat's session). */
  queue?: string;
  /**
   * The network the chat granted its code: `http_request` (and urllib, http.client) reach these
   * hosts over https through the app's gate, nothing else. Absent or empty: every request is
   * refused with the setting that grants it.
   */
  network?: PythonNetwork;
}

/** The hosts a run may reach and how the refusal tells the user to grant one. */
export interface PythonNetwork {
  hosts: readonly string[];
  /** The chat, named in the refusal's command. */
  session_id?: string;
  /** Name resolution (tests point names at loopback); the system's by default. */
  resolve?: Resolve;
}

/** The exception a run's code raised, as Python printed it. */
export interface PythonException {
  type: string;
  message: string;
  traceback: string;
}

/** The outcome of one run: always data (Python exceptions and broken limits included). */
export interface RunPythonCodeResult {
  stdout: string;
  stderr: string;
  exception: PythonException | null;
  /** Files the code created or changed in the working folder. */
  files: ScriptOutputFile[];
  duration_ms: number;
  truncated?: { stdout?: boolean; stderr?: boolean; files?: string[] };
  /** Set when the sandbox, not the code, ended the run (time or memory limit, cancel, a fault). */
  stopped?: { code: string; reason: string };
  /** Every request the code made (allowed or refused), for the result and the trace. */
  requests?: HttpLogEntry[];
}

const ReportSchema = z.strictObject({
  exception: z
    .strictObject({
      type: z.string().max(200),
      message: z.string().max(8000),
      traceback: z.string().max(32_000),
    })
    .nullable(),
  files: z
    .array(z.strictObject({ path: z.string().min(1).max(1024), data: z.string() }))
    .max(MAX_PYTHON_OUTPUT_FILES),
  dropped: z.array(z.string().max(1024)).max(10_000),
});

const b64 = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

/**
 * The program that sets the stage and runs the model's code. It stays in the interpreter's own
 * working folder (no chdir), and writes nothing when there are no files, so a run that touches
 * no file leaves its worker clean and the pool reuses it (a warm trivial run costs milliseconds).
 * With files, the writes mark the worker dirty and the pool ends it after the run: nothing of
 * one run reaches the next.
 */
/** `display()`'s source as a Python literal, made once. */
const DISPLAY_LITERAL = JSON.stringify(PYTHON_DISPLAY_SOURCE);

function bootstrap(job: unknown, code: string): string {
  // JSON of strings, integers and lists is a Python literal: no json import on the hot path. Only
  // what a run needs is imported (base64 with files, traceback on an exception): a trivial run
  // pays for no module load.
  return `_job = ${JSON.stringify(job)}
_code = ${JSON.stringify(code)}
_display = ${DISPLAY_LITERAL}
def _skilldesk_python(job, source, display_source):
    import os, sys, skilldesk
    submit = skilldesk.submit
    # The report goes out through submit(); the code must not be able to make it first.
    def _refused(*_a, **_k):
        raise skilldesk.SkillDeskError("INVALID_INPUT", "submit() is not available to run_python code")
    skilldesk.submit = _refused
    sys.dont_write_bytecode = True
    cwd = os.getcwd()
    given = {}
    if job["files"]:
        import base64
        for rel, data in job["files"]:
            path = os.path.join(cwd, rel)
            parent = os.path.dirname(path)
            if parent != cwd:
                os.makedirs(parent, exist_ok=True)
            raw = base64.b64decode(data)
            with open(path, "wb") as f:
                f.write(raw)
            os.chmod(path, 0o444)
            given[rel] = raw
    # The tool's description points results at out/: it is there to write into (the worker's
    # pristine file system has it; made here only if a runtime does not).
    if not os.path.isdir(os.path.join(cwd, "out")):
        os.makedirs(os.path.join(cwd, "out"))
    name = job["name"]
    exception = None
    try:
        try:
            scope = {"__name__": "__main__", "__file__": name, "__builtins__": __builtins__}
            # display() is compiled on its first call: most runs never call it, and compiling it
            # for every run cost a trivial run about 2 ms.
            def display(*args, **kwargs):
                own = {"__builtins__": __builtins__}
                exec(compile(display_source, "<skilldesk display>", "exec"), own)
                if scope.get("display") is display:
                    scope["display"] = own["display"]
                return own["display"](*args, **kwargs)
            scope["display"] = display
            exec(compile(source, name, "exec"), scope)
        finally:
            for s in (sys.stdout, sys.stderr):
                try:
                    s.flush()
                except BaseException:
                    pass
    except KeyboardInterrupt:
        # The sandbox's interrupt (time limit, cancel): its outcome, not the code's.
        raise
    except SystemExit as e:
        if e.code not in (None, 0):
            exception = {"type": "SystemExit", "message": str(e.code), "traceback": ""}
    except BaseException as e:
        import linecache, traceback
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)
        tb = e.__traceback__
        # The code's frames only, as \`python main.py\` shows them.
        while tb is not None and tb.tb_frame.f_code.co_filename != name:
            tb = tb.tb_next
        text = "".join(traceback.format_exception(type(e), e, tb or e.__traceback__))
        sys.__stderr__.write(text)
        try:
            message = str(e)[:8000]
        except BaseException:
            message = "(the exception's message could not be read)"
        exception = {"type": type(e).__name__, "message": message, "traceback": text[-32000:]}
    try:
        sys.__stderr__.flush()
        sys.__stdout__.flush()
    except BaseException:
        pass
    files, dropped, total = [], [], 0
    for root, dirs, names in os.walk(cwd):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        for n in sorted(names):
            path = os.path.join(root, n)
            rel = os.path.relpath(path, cwd)
            try:
                if os.path.islink(path) or not os.path.isfile(path):
                    continue
                with open(path, "rb") as f:
                    raw = f.read(job["max_bytes"] + 1)
            except OSError:
                continue
            if given.get(rel) == raw:
                continue
            if n.startswith(".") or len(files) >= job["max_files"] or total + len(raw) > job["max_bytes"]:
                dropped.append(rel)
                continue
            import base64
            total += len(raw)
            files.append([rel, base64.b64encode(raw).decode("ascii")])
    submit({"exception": exception, "files": [{"path": p, "data": d} for p, d in files], "dropped": dropped})
_skilldesk_python(_job, _code, _display)
`;
}

/**
 * Run the model's Python code in the Pyodide sandbox, in a working folder holding `files`
 * read-only at their relative paths. Every file the code creates or changes there comes back (up
 * to {@link MAX_PYTHON_OUTPUT_FILES} files, {@link MAX_PYTHON_OUTPUT_BYTES} in all; the rest are
 * named in `truncated.files`). A raised exception is `exception` (type, message, traceback of the
 * code's frames); a limit the sandbox enforced, or a cancel, is `stopped` with its reason. Bad
 * options throw INVALID_INPUT / TOO_LARGE; a sandbox that cannot start rejects SANDBOX_FAILED.
 */
export async function runPythonCode(opts: RunPythonCodeOptions): Promise<RunPythonCodeResult> {
  const t0 = performance.now();
  if (typeof opts.code !== 'string' || opts.code.includes('\0'))
    throw new AppError('INVALID_INPUT', 'the code must be text without NUL characters');
  const seen = new Set<string>();
  let inputBytes = 0;
  const files = opts.files.map((f) => {
    const path = scriptRelativePath(f.path, 'file');
    if (seen.has(path)) throw new AppError('INVALID_INPUT', `the file "${path}" is given twice`);
    seen.add(path);
    inputBytes += f.bytes.byteLength;
    return [path, b64(f.bytes)] as const;
  });
  if (inputBytes > MAX_PYTHON_INPUT_BYTES) {
    throw new AppError(
      'TOO_LARGE',
      `the files given to the run come to ${inputBytes} bytes, more than the ${MAX_PYTHON_INPUT_BYTES} a run takes: pass files to give it only those it needs`,
      { limit: 'python_input_bytes', max: MAX_PYTHON_INPUT_BYTES },
    );
  }
  if (opts.signal?.aborted) return cancelled(t0);
  const program = bootstrap(
    {
      files,
      name: PYTHON_CODE_NAME,
      max_files: MAX_PYTHON_OUTPUT_FILES,
      max_bytes: MAX_PYTHON_OUTPUT_BYTES,
    },
    opts.code,
  );
  const limits: SandboxLimitsOverride = {
    ...opts.limits,
    ...(opts.timeoutMs !== undefined ? { timeout_ms: opts.timeoutMs } : {}),
    // Room for the output files in base64 and their paths.
    result_bytes: MAX_LIMITS.result_bytes,
  };
  const requests: HttpLogEntry[] = [];
  const run = await opts.pool.run(program, {
    limits,
    queue: opts.queue,
    signal: opts.signal,
    host: networkHost(opts.network, requests, opts.signal),
  });
  // A cancel that crossed the run's own end still discards what it wrote: the caller has gone.
  const r = opts.signal?.aborted ? cancelled(t0, run) : toResult(run, t0);
  return requests.length ? { ...r, requests } : r;
}

/** What the refusal names: the setting, and the command that grants `host` to this chat. */
function grantHint(network: PythonNetwork | undefined) {
  return (host: string) =>
    network?.session_id
      ? `The chat's Python network setting (Network, beside the Python picker over the chat's Files) allows hosts one by one, or: skilldesk python network allow ${host} --chat ${network.session_id}`
      : 'Runs from outside a chat have no network; in a chat, its Python network setting allows hosts one by one (skilldesk python network allow HOST --chat ID).';
}

/**
 * The gate's options for the model's code in a chat, whichever runtime runs it (Pyodide's
 * `http_request`, Full Python's proxy): the chat's granted hosts, https only (plain http only to a
 * loopback address granted as such), the refusal naming the chat's setting, and every request
 * logged into `requests` (the first 100).
 */
export function pythonGateOptions(
  network: PythonNetwork | undefined,
  requests: HttpLogEntry[],
  signal: AbortSignal | undefined,
): HttpGateOptions {
  return {
    skill: 'run_python code',
    granted: network?.hosts ?? [],
    httpsOnly: true,
    refusal: {
      who: 'run_python in this chat',
      grant: grantHint(network),
    },
    signal,
    resolve: network?.resolve,
    log: (e) => {
      if (requests.length < 100) requests.push(e);
    },
  };
}

/**
 * The run's only host function is `http_request`, to the chat's granted hosts through the app's
 * gate (each hop of a redirect checked again, names pinned to their checked address, https only).
 * The rest of the `skilldesk` module (workspace, model) is a skill's, never run_python's.
 */
function networkHost(
  network: PythonNetwork | undefined,
  requests: HttpLogEntry[],
  signal: AbortSignal | undefined,
): SandboxHost {
  const inner = createSandboxHost({
    http: (input) => httpRequest(input, pythonGateOptions(network, requests, signal)),
  });
  return {
    call(fn, args) {
      if (fn !== 'http_request')
        return Promise.reject(
          new AppError('HANDLER_NOT_AVAILABLE', `${fn.slice(0, 80)} is not available to run_python code`),
        );
      return inner.call(fn, args);
    },
  };
}

/**
 * A cancelled run: what it printed until the interrupt, nothing it wrote. The pool interrupted it
 * in its worker (or never started it); the interpreter is gone or restored either way.
 */
function cancelled(t0: number, run?: SandboxRunResult): RunPythonCodeResult {
  return {
    stdout: run?.stdout ?? '',
    stderr: run?.stderr ?? '',
    exception: null,
    files: [],
    duration_ms: Math.round(performance.now() - t0),
    stopped: { code: 'CANCELLED', reason: CANCELLED_REASON },
  };
}

const CANCELLED_REASON = 'cancelled: the run was interrupted; nothing it wrote was kept';

/** A limit's error, in the words the model and the user read. */
function stopReason(run: SandboxRunResult): { code: string; reason: string } {
  const e = run.error;
  if (!e) return { code: 'SANDBOX_FAILED', reason: 'the Python runner gave no report' };
  if (e.code === 'CANCELLED') return { code: 'CANCELLED', reason: CANCELLED_REASON };
  if (e.code === 'SANDBOX_TIMEOUT' || e.type === 'Timeout')
    return { code: 'SANDBOX_TIMEOUT', reason: `time limit: stopped after ${run.limits.timeout_ms} ms` };
  if (e.type === 'MemoryLimit' || e.type === 'MemoryError' || /memory/i.test(e.message))
    return { code: 'SANDBOX_LIMIT', reason: `memory limit (${run.limits.memory_mb} MB): ${e.message}` };
  if (e.code === 'SANDBOX_LIMIT') return { code: 'SANDBOX_LIMIT', reason: `limit: ${e.message}` };
  return { code: e.code ?? 'SANDBOX_FAILED', reason: `${e.type}: ${e.message}` };
}

function toResult(run: SandboxRunResult, t0: number): RunPythonCodeResult {
  const truncated: NonNullable<RunPythonCodeResult['truncated']> = {};
  if (run.stdout_truncated) truncated.stdout = true;
  if (run.stderr_truncated) truncated.stderr = true;
  const report = run.submitted ? ReportSchema.safeParse(run.result) : null;
  const base = {
    stdout: run.stdout,
    stderr: run.stderr,
    duration_ms: Math.round(performance.now() - t0),
  };
  if (!report?.success) {
    // No report: the sandbox ended the run (a limit) or the runner itself broke.
    return {
      ...base,
      exception: null,
      files: [],
      ...(Object.keys(truncated).length ? { truncated } : {}),
      stopped: stopReason(run),
    };
  }
  const r = report.data;
  if (r.dropped.length) truncated.files = r.dropped;
  return {
    ...base,
    exception: r.exception,
    files: r.files.map((f) => ({
      path: f.path,
      bytes: new Uint8Array(Buffer.from(f.data, 'base64')),
      media_type: mediaTypeOf(f.path),
    })),
    ...(Object.keys(truncated).length ? { truncated } : {}),
  };
}
