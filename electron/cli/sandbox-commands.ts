import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { type Command, InvalidArgumentError } from 'commander';
import type { RunCodeRes } from '../contract/code.js';
import { AppError, isAppError } from '../contract/errors.js';
import type { CliContext } from './context.js';
import { withClient } from './host.js';

const MAX_PROGRAM_BYTES = 4 * 1024 * 1024;

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0)
    throw new InvalidArgumentError('--timeout-ms must be a positive whole number');
  return n;
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of stream) {
    const b = Buffer.isBuffer(c) ? c : Buffer.from(String(c));
    size += b.length;
    if (size > MAX_PROGRAM_BYTES) throw new AppError('TOO_LARGE', 'the program on stdin is larger than 4 MB');
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The per-file line of `run-code --json`. */
function fileReport(file: string, r: RunCodeRes) {
  return {
    file,
    ok: r.ok,
    result: r.result,
    stdout: r.stdout,
    stderr: r.stderr,
    error: r.error
      ? { type: r.error.type, message: r.error.message, ...(r.error.code ? { code: r.error.code } : {}) }
      : null,
    duration_ms: r.duration_ms,
    llm: r.llm,
  };
}

/**
 * Run one program; a sandbox that could not run it at all (it died while starting, its process
 * could not be spawned) is that file's failure, reported like one, so later files still run.
 */
export async function runOne(
  run: () => Promise<RunCodeRes>,
  now: () => number = Date.now,
): Promise<RunCodeRes> {
  const started = now();
  try {
    return await run();
  } catch (e) {
    const err = isAppError(e) ? e : null;
    return {
      ok: false,
      result: null,
      submitted: false,
      stdout: '',
      stderr: '',
      error: {
        type: 'SandboxFault',
        message: err ? err.message : `the sandbox failed: ${e instanceof Error ? e.message : String(e)}`,
        code: err?.code ?? 'SANDBOX_FAILED',
      },
      duration_ms: now() - started,
      llm: { calls: 0, input_tokens: 0, output_tokens: 0, models: [] },
    };
  }
}

/** `run-code` and `sandbox prepare`. */
export function registerSandboxCommands(program: Command, ctx: CliContext): void {
  program
    .command('sandbox')
    .description('the Python sandbox')
    .command('prepare')
    .description(
      'start the sandbox once, so the interpreter snapshot is built and cached for later starts (npm install runs this)',
    )
    .action(async () => {
      const g = ctx.globals();
      const started = Date.now();
      await withClient(ctx, async (c) => {
        const r = await runOne(() => c.invoke('code/run', { code: 'pass' }));
        const ms = Date.now() - started;
        if (!r.ok) {
          ctx.setExitCode(1);
          if (g.json) ctx.io.stdout(`${JSON.stringify({ ready: false, ms, error: r.error })}\n`);
          else ctx.io.stderr(`error: the sandbox could not start: ${r.error?.message ?? 'unknown'}\n`);
          return;
        }
        if (g.json) ctx.io.stdout(`${JSON.stringify({ ready: true, ms })}\n`);
        else
          ctx.io.stdout(
            `The Python sandbox is ready (${(ms / 1000).toFixed(1)} s); later starts use its cached snapshot.\n`,
          );
      });
    });

  program
    .command('run-code')
    .description('run Python files in the sandbox, one after another in one pool (`-` reads stdin)')
    .argument('<files...>', 'Python files to run in order; `-` for one program from stdin')
    .option('--timeout-ms <n>', 'wall-clock limit per file', positiveInt)
    .action(async (files: string[], opts: { timeoutMs?: number }) => {
      const g = ctx.globals();
      if (files.filter((f) => f === '-').length > 1)
        throw new AppError('USAGE', '`-` (stdin) may be given once');
      // Read everything first: a missing file is a usage error and nothing runs.
      const programs: Array<{ file: string; code: string }> = [];
      for (const f of files) {
        if (f === '-') {
          programs.push({ file: '-', code: await readAll(ctx.io.stdin) });
          continue;
        }
        const abs = resolve(f);
        let st: ReturnType<typeof statSync>;
        try {
          st = statSync(abs);
        } catch {
          throw new AppError('USAGE', `${f}: no such file`);
        }
        if (!st.isFile()) throw new AppError('USAGE', `${f}: not a file`);
        if (st.size > MAX_PROGRAM_BYTES) throw new AppError('TOO_LARGE', `${f}: larger than 4 MB`);
        programs.push({ file: f, code: readFileSync(abs, 'utf8') });
      }

      await withClient(ctx, async (c) => {
        for (const p of programs) {
          const r = await runOne(() => c.invoke('code/run', { code: p.code, timeout_ms: opts.timeoutMs }));
          const line = fileReport(p.file, r);
          if (!r.ok) ctx.setExitCode(1);
          if (g.json) {
            ctx.io.stdout(`${JSON.stringify(line)}\n`);
            continue;
          }
          const head = r.ok
            ? `== ${p.file}: ok (${line.duration_ms} ms)`
            : `== ${p.file}: ${r.error?.type}: ${r.error?.message} (${line.duration_ms} ms)`;
          ctx.io.stdout(`${head}\n`);
          if (r.stdout) ctx.io.stdout(r.stdout.endsWith('\n') ? r.stdout : `${r.stdout}\n`);
          if (r.stderr) ctx.io.stderr(r.stderr.endsWith('\n') ? r.stderr : `${r.stderr}\n`);
          if (r.submitted) ctx.io.stdout(`result: ${JSON.stringify(r.result)}\n`);
          if (r.error?.traceback) ctx.io.stderr(r.error.traceback);
        }
      });
    });
}
