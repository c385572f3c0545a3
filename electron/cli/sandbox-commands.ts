import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { InvalidArgumentError } from 'commander';
import { AppError } from '../contract/errors.js';
import { createSandboxHost, runCodeTemplate, SandboxPool, type SandboxRunResult } from '../sandbox/index.js';
import { resolveHome } from '../store/paths.js';
import { openStore } from '../store/stores.js';
import { indexWorkspacePages, WorkspacePages } from '../workspace/index.js';
import { addCommands, setExitCode } from './main.js';

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

/** The per-file line of `run-code`, as the contract prints it. */
function fileReport(file: string, r: SandboxRunResult) {
  return {
    file,
    ok: r.ok,
    result: r.result,
    stdout: r.stdout,
    stderr: r.stderr,
    error: r.error
      ? { type: r.error.type, message: r.error.message, ...(r.error.code ? { code: r.error.code } : {}) }
      : null,
    duration_ms: Math.round(r.duration_ms * 10) / 10,
    llm: r.llm,
  };
}

addCommands((program, ctx) => {
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

      const store = g.workspace ? openStore('workspace', resolve(g.workspace)) : null;
      const pool = new SandboxPool({
        cacheDir: join(resolveHome(g.home, ctx.env), 'cache'),
        log: (line) => {
          if (ctx.env.SKILLDESK_DEBUG) ctx.io.stderr(`${line}\n`);
        },
      });
      try {
        let workspace: WorkspacePages | undefined;
        if (store && g.workspace) {
          indexWorkspacePages(store.db, resolve(g.workspace));
          workspace = new WorkspacePages(store.db);
        }
        for (const p of programs) {
          const host = createSandboxHost({
            workspace,
            noModelMessage: 'no model configured: pass --provider … (run-code has no model)',
          });
          const r = await runCodeTemplate(
            pool,
            { content: p.code, metadata: { template: false } },
            {},
            { host, limits: opts.timeoutMs ? { timeout_ms: opts.timeoutMs } : undefined },
          );
          const line = fileReport(p.file, r);
          if (!r.ok) setExitCode(1);
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
      } finally {
        await pool.close();
        store?.close();
      }
    });
});
