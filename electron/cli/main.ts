import { Command, CommanderError } from 'commander';
import { appVersion } from '../app-version.js';
import { AppError, type ErrorCode, isAppError } from '../contract/errors.js';
import { COMMAND_GROUPS } from './commands.js';
import { type CliContext, type CliIo, EXIT, type GlobalOptions } from './context.js';

/** Error codes that mean "the input or the invocation was wrong": exit 2, nothing written. */
const USAGE_CODES: ErrorCode[] = [
  'USAGE',
  'INVALID_INPUT',
  'VERSION_CONFLICT',
  'TOO_LARGE',
  'UNSAFE_PATH',
  'CONFLICT',
  'TEMPLATE_SYNTAX',
  'TEMPLATE_RENDER',
];

/** Build the `skilldesk` program. Commands register themselves from their own modules. */
export function buildProgram(ctx: CliContext): Command {
  const program = new Command('skilldesk')
    .description('SkillDesk: an LLM chat with reusable, shareable, sandboxed skills.')
    .version(appVersion(), '-V, --version')
    .option('--home <dir>', 'account data folder (default: $SKILLDESK_HOME or the OS app-data folder)')
    .option('--workspace <dir>', 'workspace folder; its skills live in <dir>/agents.db')
    .option('--json', 'machine-readable output (one JSON document, or JSON lines for streams)', false)
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => ctx.io.stdout(s),
      writeErr: (s) => ctx.io.stderr(s),
    })
    .exitOverride();
  for (const register of COMMAND_GROUPS) register(program, ctx);
  for (const cmd of program.commands) applyExitOverride(cmd, ctx);
  return program;
}

function applyExitOverride(cmd: Command, ctx: CliContext): void {
  cmd.exitOverride();
  cmd.configureOutput({ writeOut: (s) => ctx.io.stdout(s), writeErr: (s) => ctx.io.stderr(s) });
  cmd.showHelpAfterError('(run with --help for usage)');
  for (const sub of cmd.commands) applyExitOverride(sub, ctx);
}

/** Default IO: the process streams. */
export function processIo(): CliIo {
  return {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    stdin: process.stdin,
    isTty: Boolean(process.stdout.isTTY),
  };
}

/**
 * Run the CLI with `argv` (without node and script) and return the exit code:
 * 0 success, 2 bad input or usage (message on stderr, nothing written), 1 any other failure.
 */
export async function main(argv: string[], io: CliIo = processIo(), env = process.env): Promise<number> {
  let program: Command | undefined;
  let exitCode: number | undefined;
  const ctx: CliContext = {
    io,
    env,
    globals: () => {
      const o = program?.opts() ?? {};
      return {
        home: typeof o.home === 'string' ? o.home : undefined,
        workspace: typeof o.workspace === 'string' ? o.workspace : undefined,
        json: o.json === true,
      } satisfies GlobalOptions;
    },
    print: (value, human) => {
      if (ctx.globals().json) io.stdout(`${JSON.stringify(value)}\n`);
      else {
        const text = human();
        if (text) io.stdout(text.endsWith('\n') ? text : `${text}\n`);
      }
    },
    setExitCode: (code) => {
      exitCode = Math.max(exitCode ?? 0, code);
    },
  };
  program = buildProgram(ctx);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode ?? EXIT.OK;
  } catch (e) {
    return await reportError(e, ctx);
  }
}

async function reportError(e: unknown, ctx: CliContext): Promise<number> {
  if (e instanceof CommanderError) {
    // `--help` and `--version` succeed; a bare command group (help shown because no command was
    // given) is a usage error.
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.exitCode === 0)
      return EXIT.OK;
    // Commander already printed its message to stderr.
    return EXIT.USAGE;
  }
  // The store's error naming is loaded only when a command failed with a foreign error.
  const err = isAppError(e)
    ? e
    : ((await import('../store/index.js')).namedStorageError(e) ??
      new AppError('INTERNAL', e instanceof Error ? e.message : String(e)));
  if (ctx.globals().json) {
    ctx.io.stderr(`${JSON.stringify({ error: err.toData() })}\n`);
  } else {
    ctx.io.stderr(`error: ${err.message}\n`);
    if (err.code === 'INTERNAL' && e instanceof Error && ctx.env.SKILLDESK_DEBUG)
      ctx.io.stderr(`${e.stack}\n`);
  }
  return USAGE_CODES.includes(err.code) ? EXIT.USAGE : EXIT.FAILURE;
}
