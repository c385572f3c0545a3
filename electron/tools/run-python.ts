import { DEFAULT_RUN_PYTHON_TIMEOUT_MS, runPythonDescription } from '../contract/builtin-tools.js';
import { AppError } from '../contract/errors.js';
import { clip, type ToolModule } from './types.js';

/**
 * `run_python`: run Python code the model wrote in the sandbox, in the chat's folder (its
 * attachments and earlier runs' files, read-only), and keep the files it writes there. The first
 * run of a chat asks the user (the approval card shows the code); "this chat" or "always" lets
 * the later ones run unasked. Interpreter state never outlives a run; files do.
 */
export const runPython: ToolModule<'run_python'> = {
  name: 'run_python',
  descriptionFor({ scope, runners }) {
    const runtime = scope.python ?? 'pyodide';
    const base = runPythonDescription(
      runtime,
      runners.python?.packages(runtime) ?? [],
      scope.python_hosts ?? [],
      runners.python?.programs(runtime) ?? [],
    );
    const granted = scope.folders ?? [];
    return granted.length
      ? `${base} Folders the user granted are read-only at ${granted.map((f) => `inputs/${f.name}/`).join(', ')}.`
      : base;
  },
  async run(args, ctx) {
    const runner = ctx.runners.python;
    if (!runner)
      return { ok: false, result: { error: 'the Python sandbox is turned off; run_python cannot run' } };
    const runtime = ctx.scope.python ?? 'pyodide';
    const unavailable = runner.unavailable(runtime);
    if (unavailable) return { ok: false, result: { error: unavailable, runtime } };
    const folder = ctx.scope.files;
    if (!folder) return { ok: false, result: { error: 'this call has no chat folder to run in', runtime } };
    const hosts = ctx.scope.python_hosts ?? [];
    const approve = ctx.turn?.external?.approveTool;
    if (approve) {
      const verdict = await approve.call(
        ctx.turn!.external,
        {
          tool: 'run_python',
          title: 'Run Python',
          description: `The model wants to run Python code (${runtime === 'full' ? 'Full Python' : 'Pyodide'}) in this chat's folder: it reads the chat's files and may write new ones there. ${hosts.length ? `Network: only ${hosts.join(', ')} (allowed for this chat).` : 'No network.'}`,
          args: { code: args.code, ...(args.files ? { files: args.files } : {}) },
        },
        { call_id: ctx.call_id },
      );
      if (!verdict.allowed) return { ok: false, result: { error: verdict.error, denied: true } };
    }
    try {
      const r = await runner.run({
        runtime,
        code: args.code,
        folder,
        files: args.files,
        timeoutMs: args.timeout_ms ?? DEFAULT_RUN_PYTHON_TIMEOUT_MS,
        signal: ctx.scope.signal,
        queue: ctx.scope.session_id,
        hosts,
        folders: ctx.scope.folders,
        // Only a chat can grant hosts: a call from outside one (mcp serve) is told so, not given an id to grant.
        ...(ctx.turn ? { session_id: ctx.scope.session_id } : {}),
        onProgress: (message) => {
          if (ctx.call_id) ctx.turn?.external?.progress?.(ctx.call_id, 0, message);
        },
      });
      return {
        ok: !r.stopped,
        result: {
          runtime: r.runtime,
          stdout: clip(r.stdout),
          stderr: clip(r.stderr),
          exception: r.exception,
          files: r.files,
          duration_ms: r.duration_ms,
          ...(r.truncated ? { truncated: r.truncated } : {}),
          ...(r.stopped ? { stopped: r.stopped, error: `the run was stopped: ${r.stopped.reason}` } : {}),
          ...(r.not_kept ? { not_kept: r.not_kept } : {}),
          ...(r.requests ? { requests: r.requests } : {}),
        },
      };
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      return { ok: false, result: { error: e.message, error_code: e.code, runtime } };
    }
  },
};
