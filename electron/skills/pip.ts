import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { devNull, tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '../contract/errors.js';
import { DEFAULT_PACKAGE_INDEX, packageIndexProblem } from '../contract/settings.js';

export { DEFAULT_PACKAGE_INDEX };

/**
 * The one way SkillDesk runs pip. pip is a program of the user's machine that runs outside every
 * sandbox, so what it reads is decided here, never by a skill:
 * - an environment built from nothing (PATH, a temporary HOME, LANG): pip expands `${VAR}` in what
 *   it reads and honours `PIP_*` variables, so no variable of the app's (provider keys) reaches it;
 * - `--isolated` and `PIP_CONFIG_FILE` on the null device: no user or site configuration, no
 *   `pip.conf` index;
 * - `--no-input`, `--disable-pip-version-check`, `--no-cache-dir`: nothing asked, nothing shared
 *   with the user's own pip;
 * - `--only-binary=:all:` is the caller's to pass for downloads, and every caller does: no source
 *   distribution is built, so no `setup.py` runs anywhere;
 * - the index is PyPI unless the *user* set another in Settings.
 */

/** How pip runs: `SKILLDESK_PYTHON` (a Python with pip), else `python3`. */
export function pythonCommand(): string {
  return process.env.SKILLDESK_PYTHON || (process.platform === 'win32' ? 'python' : 'python3');
}

/**
 * The whole environment pip gets. Built from nothing: only what a Python needs to start and find
 * certificates.
 */
export function cleanPipEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    PYTHONNOUSERSITE: '1',
    PYTHONDONTWRITEBYTECODE: '1',
    PIP_CONFIG_FILE: devNull,
    PIP_NO_INPUT: '1',
    PIP_DISABLE_PIP_VERSION_CHECK: '1',
    PIP_NO_CACHE_DIR: '1',
    TMPDIR: home,
  };
  // Windows cannot start a process without these; they name folders, not secrets.
  if (process.platform === 'win32') {
    for (const k of ['SYSTEMROOT', 'SystemRoot', 'WINDIR', 'COMSPEC', 'PATHEXT']) {
      const v = process.env[k];
      if (v) env[k] = v;
    }
  }
  return env;
}

/** Options of one pip run. */
export interface PipRunOptions {
  signal?: AbortSignal;
  /** The user's own index (from Settings); PyPI when absent. A skill never sets this. */
  indexUrl?: string;
  /** The Python to run pip with; `pythonCommand()` when absent. */
  python?: string;
}

/**
 * Run `python -m pip <command> <args>` with the clean environment and fixed global options. The
 * caller passes requirements SkillDesk normalised itself (argv after `--`, or a file it wrote).
 */
export function runCleanPip(
  command: 'download' | 'install' | 'wheel',
  args: string[],
  opts: PipRunOptions = {},
): Promise<{ code: number; out: string }> {
  const python = opts.python ?? pythonCommand();
  const index = opts.indexUrl ?? DEFAULT_PACKAGE_INDEX;
  const problem = packageIndexProblem(index);
  if (problem) return Promise.reject(new AppError('INVALID_INPUT', `package index ${problem}`));
  const home = mkdtempSync(join(tmpdir(), 'skilldesk-pip-home-'));
  // The machine's CA bundle, when the user's environment names one (a company proxy that re-signs
  // TLS): a file of public certificates, not a secret, and pip would otherwise trust only its own.
  const caFile = process.env.SSL_CERT_FILE;
  const cert = caFile && existsSync(caFile) ? ['--cert', caFile] : [];
  const argv = [
    '-m',
    'pip',
    command,
    '--isolated',
    ...cert,
    '--no-input',
    '--disable-pip-version-check',
    '--no-cache-dir',
    '--index-url',
    index,
    ...args,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(python, argv, {
      stdio: ['ignore', 'pipe', 'pipe'],
      signal: opts.signal,
      env: cleanPipEnv(home),
      // pip reads a requirement that looks like a path relative to its working folder: an empty one.
      cwd: home,
    });
    let out = '';
    const take = (d: Buffer) => {
      // pip's output only feeds an error message; keep its tail bounded.
      out = (out + d.toString('utf8')).slice(-200_000);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const cleanup = () => rmSync(home, { recursive: true, force: true });
    child.on('error', (e) => {
      cleanup();
      reject(
        new AppError(
          'INVALID_INPUT',
          `could not start pip with "${python} -m pip" (${e.message}); install Python 3 with pip, or point SKILLDESK_PYTHON at one`,
        ),
      );
    });
    child.on('close', (code) => {
      cleanup();
      resolve({ code: code ?? 1, out });
    });
  });
}
