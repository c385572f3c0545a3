/**
 * Git sources through the user's own `git` executable: it already speaks every transport the
 * user has set up (SSH keys, credential helpers, proxies), which a JavaScript git would have to
 * re-implement, and it is run with an argument array (never a shell string), `--` before the URL,
 * only the file, git, http(s) and ssh transports, no hooks, no submodules and no symlinks.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import { AppError } from '../contract/errors.js';

/** Why a git URL is refused, or null when it may be fetched. */
export function gitUrlProblem(url: string): string | null {
  if (!url) return 'the URL is empty';
  if (url.startsWith('-')) return 'a URL may not start with "-" (git would read it as an option)';
  if (/[\u0000-\u001f\u007f]/.test(url)) return 'the URL holds control characters';
  // `ext::cmd`, `fd::…` and other remote helpers run programs: refused whatever the helper.
  if (/^[A-Za-z][A-Za-z0-9+.-]*::/.test(url)) return 'remote-helper URLs (such as ext::) are refused';
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(url)?.[1]?.toLowerCase();
  if (scheme && !['file', 'git', 'http', 'https', 'ssh'].includes(scheme))
    return `the ${scheme}:// transport is not allowed (use file, git, http, https or ssh)`;
  if (!scheme && !isAbsolute(url) && !/^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:/.test(url))
    return 'a local repository must be given as an absolute path';
  return null;
}

/** Why a branch or tag name is refused, or null. */
export function gitRefProblem(ref: string): string | null {
  if (ref.startsWith('-')) return 'a branch or tag may not start with "-"';
  if (!/^[A-Za-z0-9._/+-]{1,200}$/.test(ref) || ref.includes('..') || ref.endsWith('.lock'))
    return 'not a valid branch or tag name';
  return null;
}

// Model API keys and other secrets in the environment are the app's, not git's: git and what it
// starts (ssh, credential helpers) get everything else, which they may need, but not these.
const SECRET_NAME = /(?:_API_KEY|_KEY_ENV|_TOKEN|_SECRET|_PASSWORD)$|^SKILLDESK_/i;
const KEEP = new Set(['GIT_ASKPASS', 'SSH_AUTH_SOCK']);

/** The environment git runs with: no secrets, no prompts, no system config, only safe transports. */
export function gitEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const kept = Object.fromEntries(Object.entries(env).filter(([k]) => KEEP.has(k) || !SECRET_NAME.test(k)));
  return {
    ...kept,
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    GIT_ALLOW_PROTOCOL: 'file:git:http:https:ssh',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_LFS_SKIP_SMUDGE: '1',
  };
}

// Set on every git call: configuration a cloned repository cannot change.
const SAFE_CONFIG = [
  '-c',
  'protocol.ext.allow=never',
  '-c',
  'core.symlinks=false',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'submodule.recurse=false',
  '-c',
  'core.fsmonitor=false',
];

function runGit(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number, cwd?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [...SAFE_CONFIG, ...args],
      { env: gitEnv(env), timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024, cwd, windowsHide: true },
      (err, stdout, stderr) => {
        if (err) {
          const e = err as NodeJS.ErrnoException & { killed?: boolean };
          if (e.code === 'ENOENT') {
            reject(
              new AppError(
                'HANDLER_NOT_AVAILABLE',
                'git is not installed or not on PATH; install git to use git sources',
              ),
            );
            return;
          }
          const why = e.killed
            ? `timed out after ${timeoutMs} ms`
            : String(stderr).trim().split('\n').slice(-3).join(' ');
          reject(new SourceUnreachable(why || e.message));
          return;
        }
        resolve(String(stdout));
      },
    );
  });
}

/** A source that could not be fetched: what is installed stays. */
export class SourceUnreachable extends Error {}

/** What a git fetch produced: a checkout and the commit it is at. */
export interface GitCheckout {
  dir: string;
  revision: string;
}

/**
 * Fetch `url` at `ref` (the default branch when null) as a shallow clone into `dir`, replacing
 * what was there only once the new clone is complete. Throws {@link SourceUnreachable} when git
 * cannot reach it.
 */
export async function fetchGit(
  url: string,
  ref: string | null,
  dir: string,
  env: NodeJS.ProcessEnv,
  timeoutMs = 120_000,
): Promise<GitCheckout> {
  const problem = gitUrlProblem(url) ?? (ref ? gitRefProblem(ref) : null);
  if (problem) throw new AppError('INVALID_INPUT', `${url}: ${problem}`);
  mkdirSync(dirname(dir), { recursive: true });
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  // A local path clones through git's ordinary transport (--no-local), so --depth holds and
  // nothing is hard-linked from the user's repository.
  const local = isAbsolute(url) || url.startsWith('file://');
  const args = [
    'clone',
    '--quiet',
    '--depth',
    '1',
    '--single-branch',
    '--no-tags',
    '--no-recurse-submodules',
  ];
  if (local) args.push('--no-local');
  if (ref) args.push('--branch', ref);
  args.push('--', local && isAbsolute(url) ? `file://${url}` : url, tmp);
  try {
    await runGit(args, env, timeoutMs);
    const revision = (await runGit(['rev-parse', 'HEAD'], env, timeoutMs, tmp)).trim();
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
    return { dir, revision };
  } finally {
    if (existsSync(tmp)) rmSync(tmp, { recursive: true, force: true });
  }
}
