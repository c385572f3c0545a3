import { mkdirSync, readdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve, sep } from 'node:path';
import type { Command } from 'commander';
import type { RunScriptRes } from '../contract/builtin-tools.js';
import { AppError } from '../contract/errors.js';
import type { CliContext } from './context.js';
import { untilInterrupted, withClient } from './host.js';

const storeModule = () => import('../store/index.js');
const skillsModule = () => import('../skills/index.js');
const scriptsModule = () => import('../scripts/index.js');

/** Exit code when the sandbox stopped a script at its time limit (as `timeout(1)` does). */
export const EXIT_SCRIPT_TIMEOUT = 124;
/** Exit code when the sandbox stopped a script for another reason (memory, a violation). */
export const EXIT_SCRIPT_STOPPED = 125;

const MAX_STDIN = 1024 * 1024;

async function readAll(ctx: CliContext): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of ctx.io.stdin) {
    const b = Buffer.isBuffer(c) ? c : Buffer.from(String(c));
    size += b.length;
    if (size > MAX_STDIN)
      throw new AppError('USAGE', 'stdin is longer than 1 MiB, the most a script is given');
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The `--file` paths as a run's inputs, each named by its file name: a missing file, something
 * other than a file, or two files of the same name are refused before anything runs (USAGE). Size
 * is left to the runtime the skill runs in: Pyodide copies inputs into its process and holds them
 * to its budget, the OS sandbox binds them, so a file too large for one is fine for the other.
 */
export async function inputFilesOf(paths: string[]): Promise<Array<{ name: string; path: string }>> {
  const byName = new Map<string, string>();
  return paths.map((p) => {
    const path = resolve(p);
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(path);
    } catch {
      throw new AppError('USAGE', `--file ${p}: no such file`);
    }
    if (!st.isFile()) throw new AppError('USAGE', `--file ${p}: not a regular file`);
    const name = basename(path);
    const other = byName.get(name);
    if (other)
      throw new AppError(
        'USAGE',
        `--file ${other} and --file ${p} are both named ${name}: the script sees its files as inputs/NAME, so give each its own name (copy or link one under another name)`,
      );
    byName.set(name, p);
    return { name, path };
  });
}

/**
 * The `--folder` paths as a run's inputs, each named by its folder name (`inputs/<name>/`): a
 * missing or unreadable folder, a file instead of a folder, or a name another `--file`/`--folder`
 * already takes is refused before anything runs (USAGE). The folder's bounds (file count, size)
 * are checked by the runtime that takes it (TOO_LARGE).
 */
export function inputFoldersOf(
  paths: string[],
  files: Array<{ name: string; path: string }> = [],
): Array<{ name: string; path: string }> {
  const byName = new Map<string, string>(files.map((f) => [f.name, `--file ${f.path}`]));
  return paths.map((p) => {
    let path: string;
    try {
      // The folder itself, not a link to it: the sandbox binds what the walk counted.
      path = realpathSync(resolve(p));
    } catch {
      throw new AppError('USAGE', `--folder ${p}: no such folder`);
    }
    if (!statSync(path).isDirectory())
      throw new AppError('USAGE', `--folder ${p}: not a folder (give a file with --file)`);
    try {
      readdirSync(path);
    } catch (e) {
      throw new AppError(
        'USAGE',
        `--folder ${p}: cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    const name = basename(path);
    if (!name)
      throw new AppError(
        'USAGE',
        `--folder ${p}: the root folder cannot be given; give the folder that holds the files the script needs`,
      );
    const other = byName.get(name);
    if (other)
      throw new AppError(
        'USAGE',
        `${other} and --folder ${p} are both named ${name}: the script sees its inputs as inputs/NAME, so give each its own name (copy or link one under another name)`,
      );
    byName.set(name, `--folder ${p}`);
    return { name, path };
  });
}

/** The process exit code for a script run: the script's own, or 124/125 when the sandbox stopped it. */
export function scriptExitCode(r: Pick<RunScriptRes, 'exit_code' | 'sandbox_error'>): number {
  if (r.sandbox_error)
    return r.sandbox_error.code === 'SANDBOX_TIMEOUT' ? EXIT_SCRIPT_TIMEOUT : EXIT_SCRIPT_STOPPED;
  return ((r.exit_code % 256) + 256) % 256;
}

/**
 * `skills run-script NAME SCRIPT [args...]` (a skill's bundled Python script in the sandbox, exiting
 * with its exit code) and `skills packages install|list` (the pure-Python packages its scripts use).
 */
export function registerScriptCommands(program: Command, ctx: CliContext): void {
  const skills = program.commands.find((c) => c.name() === 'skills');
  if (!skills) return;
  const runScript = skills
    .command('run-script')
    // Options the command does not know are the script's (`run-script NAME SCRIPT --help` asks the
    // script for its usage, as `python SCRIPT --help` would); -h/--help before NAME is this
    // command's own help.
    .helpOption(false)
    .allowUnknownOption()
    .description(
      "run a skill's bundled Python script in the sandbox with arguments (put -- before arguments that start with -); exits with the script's exit code",
    )
    // Checked in the action: -h/--help alone must reach it (commander checks required ones first).
    .argument('[name]', 'skill name')
    .argument('[script]', 'the script, by its path in the skill folder (scripts/extract.py)')
    .argument('[args...]', 'arguments for the script (sys.argv[1:])')
    .option('--stdin <text>', "text for the script's standard input; - reads this command's stdin")
    .option(
      '--file <path>',
      'give the script this file, read-only as inputs/<its file name> (repeat for more; arguments may name it inputs/NAME)',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option(
      '--folder <dir>',
      'give the script this folder, read-only as inputs/<its folder name>/ with everything in it, hidden files included (repeat for more)',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option('--out <dir>', 'write the files the script created into this folder (relative paths kept)')
    .option('--timeout-ms <n>', 'time limit of the run (default 10000, at most 300000)', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n <= 0)
        throw new AppError('USAGE', '--timeout-ms must be a positive integer');
      return n;
    })
    .action(
      async (
        name: string | undefined,
        script: string | undefined,
        args: string[],
        o: { stdin?: string; out?: string; timeoutMs?: number; file?: string[]; folder?: string[] },
      ) => {
        if (name === undefined || name === '--help' || name === '-h') {
          ctx.io.stdout(runScript.helpInformation());
          return;
        }
        if (script === undefined)
          throw new AppError(
            'USAGE',
            'skills run-script NAME SCRIPT: which script? (skilldesk skills show NAME lists them)',
          );
        const g = ctx.globals();
        const files = await inputFilesOf(o.file ?? []);
        const folders = inputFoldersOf(o.folder ?? [], files);
        const stdin = o.stdin === '-' ? await readAll(ctx) : o.stdin;
        const { r, saved } = await withClient(ctx, async (c) => {
          const r = await untilInterrupted((signal) =>
            c.invoke(
              'scripts/run',
              {
                name,
                script,
                args,
                ...(stdin !== undefined ? { stdin } : {}),
                ...(o.timeoutMs ? { timeout_ms: o.timeoutMs } : {}),
                ...(files.length ? { files } : {}),
                ...(folders.length ? { folders } : {}),
              },
              { signal },
            ),
          );
          const saved: string[] = [];
          if (o.out) {
            const root = resolve(o.out);
            for (const f of r.files) {
              const file = await c.invoke('scripts/read-output', { run_id: r.run_id, path: f.path });
              const dest = resolve(root, ...f.path.split('/'));
              // The path was checked in the core; checked again where it names a file here.
              if (!dest.startsWith(root + sep))
                throw new AppError('UNSAFE_PATH', `refusing to write ${f.path} outside ${root}`);
              mkdirSync(join(dest, '..'), { recursive: true });
              writeFileSync(dest, Buffer.from(file.data_base64, 'base64'));
              saved.push(dest);
            }
          }
          return { r, saved };
        });
        if (g.json) {
          ctx.io.stdout(`${JSON.stringify({ ...r, ...(o.out ? { saved } : {}) })}\n`);
        } else {
          if (r.stdout) ctx.io.stdout(r.stdout);
          if (r.stderr) ctx.io.stderr(r.stderr);
          if (r.sandbox_error)
            ctx.io.stderr(`skilldesk: the sandbox stopped the script: ${r.sandbox_error.message}\n`);
          for (const [i, f] of r.files.entries()) {
            ctx.io.stderr(
              o.out
                ? `skilldesk: wrote ${saved[i]} (${f.size} bytes)\n`
                : `skilldesk: the script wrote ${f.path} (${f.size} bytes; --out DIR saves it)\n`,
            );
          }
          if (r.truncated?.files?.length) {
            ctx.io.stderr(
              `skilldesk: ${r.truncated.files.length} more file(s) over the output limit were dropped\n`,
            );
          }
          if (r.hint) ctx.io.stderr(`skilldesk: ${r.hint}\n`);
        }
        ctx.setExitCode(scriptExitCode(r));
      },
    );

  const packages = skills.command('packages').description("the pure-Python packages skills' scripts use");
  packages
    .command('install')
    .description(
      "fetch the packages a skill declares in requirements.txt (pip, wheels only, pinned by SHA-256): pure-Python ones into the account's wheelhouse for Pyodide; with compiled code, into the skill's own environment for the OS sandbox",
    )
    .argument('<name>', 'skill name')
    .option(
      '--from-imports',
      "install what the skill's scripts import (for a skill without requirements.txt)",
    )
    .option(
      '--yes',
      'also accept the OS-sandbox runtime when the packages have compiled code, and grant the installed programs its scripts start',
    )
    .action(async (name: string, o: { fromImports?: boolean; yes?: boolean }) => {
      const { r, accepted } = await withClient(ctx, async (c) => {
        const r = await untilInterrupted((signal) =>
          c.invoke(
            'scripts/install-packages',
            {
              name,
              native: true,
              ...(o.fromImports ? { from_imports: true } : {}),
              ...(o.yes ? { accept_native: true } : {}),
            },
            { signal },
          ),
        );
        let accepted = r.native_accepted ?? false;
        if (r.runtime === 'native' && r.runtime_reason && !accepted) {
          accepted = await askNative(ctx, r.skill, r.runtime_reason);
          if (accepted) await c.invoke('scripts/set-native-runtime', { name: r.skill, accepted: true });
        }
        // --yes also grants the programs its scripts start that are installed here, as it accepts
        // the runtime; without it they stay covered until granted by name.
        const found = (r.programs ?? []).filter((p) => p.path !== null).map((p) => p.program);
        if (o.yes && found.length)
          await c.invoke('scripts/set-programs', { name: r.skill, programs: found, granted: true });
        return { r, accepted };
      });
      const res = { ...r, ...(r.runtime === 'native' ? { native_accepted: accepted } : {}) };
      ctx.print(res, () =>
        [
          `${r.skill}: ${r.already_installed ? 'already installed' : 'installed'} ${r.requirements.join(', ')}`,
          ...r.wheels.map((w) => `  ${w.filename}  sha256:${w.sha256}`),
          ...(r.runtime_reason ? [`${r.skill}: ${r.runtime_reason}${accepted ? ' (accepted)' : ''}`] : []),
          ...(r.programs?.length
            ? [
                `${r.skill}: its scripts start ${r.programs.map((p) => `${p.program}${p.path ? ` (${p.path})` : ' (not installed)'}`).join(', ')}; ${o.yes ? 'granted (--yes): they run inside the sandbox too' : `they run inside the sandbox once granted: skilldesk skills programs grant ${JSON.stringify(r.skill)} PROGRAM…`}`,
              ]
            : []),
          ...(r.missing_programs ? [`${r.skill}: ${r.missing_programs}`] : []),
        ].join('\n'),
      );
      if (r.runtime === 'native' && r.runtime_reason && !accepted) {
        ctx.io.stderr(
          `skilldesk: the OS-sandbox runtime was not accepted for ${r.skill}; its scripts are refused until you run: skilldesk skills native-runtime accept ${JSON.stringify(r.skill)} (or install again with --yes)\n`,
        );
        ctx.setExitCode(1);
      }
    });
  packages
    .command('list')
    .description('the packages installed for each skill')
    .action(async () => {
      const home = (await storeModule()).resolveHome(ctx.globals().home, ctx.env);
      const skills = (await skillsModule()).listInstalledPackages(home);
      ctx.print({ skills }, () =>
        skills.length === 0
          ? 'no packages installed (skilldesk skills packages install NAME fetches what a skill declares)'
          : skills
              .map((s) =>
                [`${s.skill}: ${s.requirements.join(', ')}`, ...s.wheels.map((w) => `  ${w.filename}`)].join(
                  '\n',
                ),
              )
              .join('\n'),
      );
    });
}

/** Ask on a terminal whether the skill's scripts may run in the OS sandbox; no terminal is a no. */
async function askNative(ctx: CliContext, skill: string, reason: string): Promise<boolean> {
  const stdin = ctx.io.stdin as NodeJS.ReadableStream & { isTTY?: boolean };
  if (!(ctx.io.isTty && stdin.isTTY === true)) return false;
  const { createInterface } = await import('node:readline');
  const rl = createInterface({ input: stdin, terminal: false });
  ctx.io.stderr(
    `? ${skill}: ${reason} (CPython with no network, only its own files, inputs and out/). Accept for this skill? [y/N] `,
  );
  const line = await new Promise<string>((r) => rl.once('line', r));
  rl.close();
  return /^y(es)?$/i.test(line.trim());
}

/**
 * `skills native-runtime accept|revoke|list`: the once-per-skill acceptance of the OS-sandbox
 * runtime, kept beside the network grants in the account folder.
 */
export function registerNativeRuntimeCommands(program: Command, ctx: CliContext): void {
  const skills = program.commands.find((c) => c.name() === 'skills');
  if (!skills) return;
  const nr = skills
    .command('native-runtime')
    .description(
      "whether a skill's scripts may run with CPython in the OS sandbox (packages with compiled code)",
    );
  nr.command('accept')
    .description('let the skill’s scripts run in the OS sandbox')
    .argument('<name>', 'skill name')
    .action(async (name: string) => {
      const r = await withClient(ctx, (c) =>
        c.invoke('scripts/set-native-runtime', { name, accepted: true }),
      );
      ctx.print(
        { skill: r.skill, native_accepted: true, accepted_at: r.accepted_at },
        () => `${r.skill}: its scripts may run in the OS sandbox`,
      );
    });
  nr.command('revoke')
    .description('take that back: the skill’s scripts are refused until accepted again')
    .argument('<name>', 'skill name')
    .action(async (name: string) => {
      const r = await withClient(ctx, (c) =>
        c.invoke('scripts/set-native-runtime', { name, accepted: false }),
      );
      ctx.print({ skill: r.skill, native_accepted: false, revoked: r.changed }, () =>
        r.changed
          ? `${r.skill}: its scripts no longer run in the OS sandbox`
          : `${r.skill} had not been accepted`,
      );
    });
  nr.command('list')
    .description('skills with an OS-sandbox environment, their compiled packages and whether accepted')
    .action(async () => {
      const { listNativeEnvs, nativeRuntimeFacts } = await scriptsModule();
      const dir = (await storeModule()).resolveHome(ctx.globals().home, ctx.env);
      const envs = listNativeEnvs(dir).map((e) => {
        const facts = nativeRuntimeFacts(dir, e.skill);
        return {
          skill: e.skill,
          requirements: e.requirements,
          from: e.from,
          compiled: facts.compiled,
          native_accepted: facts.native_accepted,
        };
      });
      ctx.print({ skills: envs }, () =>
        envs.length === 0
          ? 'no skill has an OS-sandbox environment'
          : envs
              .map(
                (e) =>
                  `${e.skill}: ${e.requirements.join(', ')} — compiled: ${e.compiled.join(', ') || 'none'}; ${e.native_accepted ? 'accepted' : 'not accepted'}`,
              )
              .join('\n'),
      );
    });
}

/**
 * `skills programs grant|revoke|list`: which external programs (soffice, pdftoppm, qpdf…) a skill's
 * scripts may start inside the OS sandbox, granted per skill and program; a program not granted is
 * covered there by a stand-in that fails naming it and this command.
 */
export function registerProgramCommands(program: Command, ctx: CliContext): void {
  const skills = program.commands.find((c) => c.name() === 'skills');
  if (!skills) return;
  const pr = skills
    .command('programs')
    .description(
      "external programs a skill's scripts may start in the OS sandbox (soffice, pdftoppm, qpdf…)",
    );
  const set = (granted: boolean) => async (name: string, programs: string[]) => {
    const r = await withClient(ctx, (c) => c.invoke('scripts/set-programs', { name, programs, granted }));
    ctx.print(r, () =>
      granted
        ? `${r.skill}: may start ${programs.join(', ')} in the OS sandbox`
        : r.changed
          ? `${r.skill}: may no longer start ${programs.join(', ')}`
          : `${r.skill} had not been granted ${programs.join(', ')}`,
    );
  };
  pr.command('grant')
    .description("let the skill's scripts start these programs in the OS sandbox")
    .argument('<name>', 'skill name')
    .argument('<program...>', 'command names (soffice pdftoppm)')
    .action(set(true));
  pr.command('revoke')
    .description('take the grant back: the programs are covered in the sandbox again')
    .argument('<name>', 'skill name')
    .argument('<program...>', 'command names')
    .action(set(false));
  pr.command('list')
    .description("the programs the skill's scripts start: found on this computer or missing, granted or not")
    .argument('<name>', 'skill name')
    .action(async (name: string) => {
      const st = await withClient(ctx, (c) => c.invoke('scripts/runtime-status', { name }));
      const programs = st.programs.map((p) => ({
        program: p.program,
        product: p.product ?? null,
        path: p.path,
        granted: p.granted === true,
        files: p.files,
      }));
      ctx.print({ skill: st.skill, programs, missing_programs: st.missing_programs }, () =>
        programs.length === 0
          ? `${st.skill}: its scripts start no external program`
          : [
              ...programs.map(
                (p) =>
                  `${p.program}${p.product ? ` (${p.product})` : ''}: ${p.path ?? 'not installed'} — ${p.granted ? 'granted' : `not granted (skilldesk skills programs grant ${JSON.stringify(st.skill)} ${p.program})`}; started by ${p.files.join(', ')}`,
              ),
              ...(st.missing_programs ? [`${st.skill}: ${st.missing_programs}`] : []),
            ].join('\n'),
      );
    });
}
