/**
 * Git sources through the user's own `git` executable: it already speaks every transport the
 * user has set up (SSH keys, credential helpers, proxies), which a JavaScript git would have to
 * re-implement, and it is run with an argument array (never a shell string), `--` before the URL,
 * only the file, git, http(s) and ssh transports, no hooks, no submodules and no symlinks.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
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
    GIT_ATTR_NOSYSTEM: '1',
    GIT_LFS_SKIP_SMUDGE: '1',
    // A repository found by walking up from the temporary folder is never used instead.
    GIT_CEILING_DIRECTORIES: '/',
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
  // The user's own attributes file could name a filter; the repository's are overridden below.
  '-c',
  'core.attributesFile=/dev/null',
  // Malformed trees (a `..` or `.git` entry) are refused when the objects arrive.
  '-c',
  'transfer.fsckObjects=true',
  '-c',
  'core.protectNTFS=true',
  '-c',
  'core.protectHFS=true',
];

/**
 * Attributes that take precedence over every `.gitattributes` in the repository: no filter
 * (a smudge or process filter the user's config defines would run on checkout), no end-of-line or
 * encoding conversion (the files are the bytes that were committed), no `ident`.
 */
const NEUTRAL_ATTRIBUTES = '* -filter -text -eol -ident -working-tree-encoding\n';

/** How much of a repository a source may check out: more is refused before anything is written. */
export interface GitLimits {
  /** Most files (blobs) in the checked-out tree. */
  maxFiles: number;
  /** Largest single file, in bytes. */
  maxFileBytes: number;
  /** Largest sum of all files, in bytes. */
  maxTotalBytes: number;
}

/** Default limits of a git source: a few hundred skills of the import's own size. */
export const DEFAULT_GIT_LIMITS: GitLimits = {
  maxFiles: 20_000,
  maxFileBytes: 32 * 1024 * 1024,
  maxTotalBytes: 512 * 1024 * 1024,
};

/** Why a path of the tree may not be written, or null. */
export function treePathProblem(path: string): string | null {
  if (/[\u0000-\u001f\u007f\\]/.test(path)) return 'holds a control character or a backslash';
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.' || seg === '..') return 'has an empty, "." or ".." segment';
    if (/^\.git(?:[. ]*|~\d+)$/i.test(seg.normalize('NFC'))) return 'names a .git folder';
  }
  return null;
}

/**
 * Read the tree at HEAD entry by entry (`git ls-tree -r -l -z`, streamed) and refuse it, before any
 * file is written, when it is over the limits, holds a path that may not be written, or two paths
 * that differ only in case or Unicode form (on a case-insensitive disk one would overwrite the other,
 * so what was scanned would not be what is installed). Stops reading at the first problem.
 */
function checkTree(dir: string, env: NodeJS.ProcessEnv, limits: GitLimits, label: string, timeoutMs: number) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn('git', [...SAFE_CONFIG, 'ls-tree', '-r', '-l', '-z', '--full-tree', 'HEAD'], {
      cwd: dir,
      env: gitEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const timer = setTimeout(
      () => fail(new SourceUnreachable(`listing the tree timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
    let done = false;
    const fail = (e: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(e);
    };
    const seen = new Map<string, string>();
    let files = 0;
    let total = 0;
    let pending = '';
    let stderr = '';
    const entry = (line: string) => {
      // `<mode> <type> <hash> <size>\t<path>`; links (120000) and submodules (160000) are not
      // written at all, so only their names are checked.
      const tab = line.indexOf('\t');
      const [mode, , , sizeText] = line.slice(0, tab).split(/ +/);
      const path = line.slice(tab + 1);
      const problem = treePathProblem(path);
      if (problem)
        return new AppError('UNSAFE_PATH', `${label}: the path "${path}" ${problem}; the source is refused`);
      const key = path.normalize('NFC').toLowerCase();
      const other = seen.get(key);
      if (other !== undefined)
        return new AppError(
          'UNSAFE_PATH',
          `${label}: "${other}" and "${path}" differ only in case or Unicode form, so one would overwrite the other on a case-insensitive disk; the source is refused`,
        );
      seen.set(key, path);
      if (mode === '120000' || mode === '160000') return null;
      files++;
      const size = Number(sizeText);
      total += size;
      if (files > limits.maxFiles)
        return new AppError(
          'TOO_LARGE',
          `${label}: the repository holds more than ${limits.maxFiles} files; a source may hold at most that many (point --path at the folder of skills, or split the repository)`,
        );
      if (size > limits.maxFileBytes)
        return new AppError(
          'TOO_LARGE',
          `${label}: "${path}" is ${size} bytes, over the ${limits.maxFileBytes}-byte limit for a file of a source`,
        );
      if (total > limits.maxTotalBytes)
        return new AppError(
          'TOO_LARGE',
          `${label}: the repository's files add up to more than ${limits.maxTotalBytes} bytes, the limit for a source`,
        );
      return null;
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (done) return;
      pending += chunk;
      let nul = pending.indexOf('\0');
      while (nul >= 0) {
        const e = entry(pending.slice(0, nul));
        if (e) return fail(e);
        pending = pending.slice(nul + 1);
        nul = pending.indexOf('\0');
      }
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr = (stderr + c.toString('utf8')).slice(-2000);
    });
    child.on('error', (e) => fail(e));
    child.on('close', (code) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (code === 0) resolve();
      else
        reject(
          new SourceUnreachable(
            stderr.trim().split('\n').slice(-3).join(' ') || `git ls-tree exited ${code}`,
          ),
        );
    });
  });
}

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
  limits: GitLimits = DEFAULT_GIT_LIMITS,
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
    // Nothing is written to the work tree until the tree was checked and filters were switched off.
    '--no-checkout',
  ];
  if (local) args.push('--no-local');
  if (ref) args.push('--branch', ref);
  args.push('--', local && isAbsolute(url) ? `file://${url}` : url, tmp);
  try {
    await runGit(args, env, timeoutMs);
    await checkTree(tmp, env, limits, url, timeoutMs);
    mkdirSync(join(tmp, '.git', 'info'), { recursive: true });
    writeFileSync(join(tmp, '.git', 'info', 'attributes'), NEUTRAL_ATTRIBUTES);
    await runGit(['reset', '--quiet', '--hard', 'HEAD'], env, timeoutMs, tmp);
    const revision = (await runGit(['rev-parse', 'HEAD'], env, timeoutMs, tmp)).trim();
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
    return { dir, revision };
  } finally {
    if (existsSync(tmp)) rmSync(tmp, { recursive: true, force: true });
  }
}
