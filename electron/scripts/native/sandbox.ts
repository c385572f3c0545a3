import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, posix } from 'node:path';
import { AppError } from '../../contract/errors.js';
import { baseExecutables, landlockPrelude } from './exec-allow.js';
import { NATIVE_PROXY_SOCKET, proxyForwarderPrelude } from './net-proxy.js';
import { seccompFilter } from './seccomp.js';

/**
 * The OS sandbox of the native runtime: CPython run by bubblewrap in its own user, network, PID,
 * IPC, UTS and cgroup namespaces, with a file system made only of what the run needs — the system's
 * `/usr` (and `/lib*`), the Python prefix and the skill's virtual environment read-only, the skill's
 * files read-only as the working folder, the inputs read-only under `inputs/`, `out/` the one
 * writable folder, a small private `/tmp`. No home, no other skill, no network (an empty network
 * namespace: not even loopback reaches the host), an environment built from nothing, limits on CPU
 * time, wall time, memory, processes, file size and output, a seccomp filter, and the whole
 * namespace killed at the end. Where this cannot be had the run is refused, never run unconfined.
 */

/** Where the skill's files sit in the sandbox; the script's working folder. */
export const NATIVE_CWD = '/skill';
/** The one writable folder, relative to the working folder. */
export const NATIVE_OUT_DIR = 'out';
/** Where input files sit, relative to the working folder. */
export const NATIVE_INPUTS_DIR = 'inputs';

/** The limits of one native run. */
export interface NativeLimits {
  /** Wall-clock time; the whole sandbox is killed when it passes. */
  timeout_ms: number;
  /** CPU seconds per process (RLIMIT_CPU). */
  cpu_seconds: number;
  /** Address space per process (RLIMIT_AS). */
  memory_bytes: number;
  /** Processes and threads of the run at once (a cgroup's pids.max, else RLIMIT_NPROC in its user namespace). */
  processes: number;
  /** Largest file a process may write (RLIMIT_FSIZE). */
  file_bytes: number;
  /** Bytes of stdout and of stderr kept (the rest is dropped and said). */
  output_bytes: number;
  /** Total bytes under `out/`; the run is stopped past it. */
  out_dir_bytes: number;
  /** Size of the private `/tmp` (memory-backed). */
  tmp_bytes: number;
  /** Open files per process (RLIMIT_NOFILE). */
  open_files: number;
}

/** The limits a native run gets unless the caller lowers them. */
export const DEFAULT_NATIVE_LIMITS: NativeLimits = {
  timeout_ms: 120_000,
  cpu_seconds: 120,
  memory_bytes: 4 * 1024 ** 3,
  processes: 128,
  file_bytes: 512 * 1024 ** 2,
  output_bytes: 1024 * 1024,
  out_dir_bytes: 1024 ** 3,
  tmp_bytes: 256 * 1024 ** 2,
  open_files: 1024,
};

/** How processes are counted and capped on this machine. */
export type ProcessLimitMethod = 'cgroup' | 'rlimit';

/** Whether the native runtime can run here, and how. */
export type NativeSandboxSupport =
  | {
      ok: true;
      bwrap: string;
      process_limit: ProcessLimitMethod;
      /** The cgroup folder under which each run gets its own (when `process_limit` is `cgroup`). */
      cgroup_parent?: string;
      /** False on an architecture without a syscall table: the run goes without the filter. */
      seccomp: boolean;
      detail: string;
    }
  | { ok: false; reason: string };

/** One file given to a run: a host path, mounted read-only at `inputs/<name>`. */
export interface NativeInput {
  name: string;
  path: string;
}

/** What one native run needs. */
export interface NativeRunSpec {
  /** The interpreter (a venv's `bin/python`), by its host path. */
  python: string;
  /** Host folders the interpreter needs (the venv, the base prefix), mounted read-only at the same path. */
  pythonPaths: string[];
  /** The skill's folder on the host; its entries are mounted read-only in the working folder. */
  skillDir: string;
  /** The script, relative to the skill's folder (`scripts/fill.py`). */
  script: string;
  argv?: string[];
  stdin?: string | Uint8Array;
  inputs?: NativeInput[];
  /** The host folder that is `out/` in the sandbox (created when missing; the run's only writable place). */
  outDir: string;
  /** Variables added to the sandbox's built-from-nothing environment. */
  env?: Record<string, string>;
  /** More host paths mounted read-only at the same path (external programs outside `/usr`). */
  readPaths?: string[];
  /** Host files bound read-only over system paths (`with` over `path`): stand-ins for programs not granted. */
  covers?: Array<{ path: string; with: string }>;
  /**
   * Host paths the run may execute besides the interpreter, the dynamic linker, the base shell
   * tools and the stand-ins (see `exec-allow.ts`): the programs granted to the skill. A folder
   * allows what is beneath it.
   */
  execs?: string[];
  limits?: Partial<NativeLimits>;
  signal?: AbortSignal;
  /**
   * A host folder that is the working folder itself, writable (the chat's copy for `run_python`),
   * instead of the skill's entries, `inputs/` and `out/`. `skillDir` then holds the script (mounted
   * read-only at {@link NATIVE_CODE_DIR}) and `outDir` is where the run leaves its report.
   */
  workDir?: string;
  /**
   * The host path of the network proxy's Unix socket for this run (see `net-proxy.ts`), bound into
   * the sandbox with a forwarder and the proxy variables; absent, the run has no way out at all.
   */
  proxySocket?: string;
}

/** Where a working-folder run's script folder sits (read-only), outside the working folder. */
export const NATIVE_CODE_DIR = '/run/skilldesk/code';
/** Where a working-folder run's report folder sits (writable, outside the working folder). */
export const NATIVE_REPORT_DIR = '/run/skilldesk/report';
/** The working folder of a working-folder run. */
export const NATIVE_WORK_CWD = '/work';

/** The outcome of a native run, as a terminal would show it. */
export interface NativeRunResult {
  /** The script's exit status; -1 when the sandbox stopped it (then `sandbox_error` says why). */
  exit_code: number;
  stdout: string;
  stderr: string;
  duration_ms: number;
  truncated?: { stdout?: boolean; stderr?: boolean };
  sandbox_error?: {
    code: 'SANDBOX_TIMEOUT' | 'SANDBOX_LIMIT' | 'CANCELLED' | 'SANDBOX_FAILED';
    message: string;
  };
}

function findOnPath(cmd: string): string | null {
  for (const dir of [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/bin', '/usr/sbin']) {
    if (!dir) continue;
    const p = join(dir, cmd);
    if (existsSync(p)) return p;
  }
  return null;
}

/**
 * A writable cgroup under which runs get their own `pids.max`: cgroup v1's `pids` hierarchy, or a
 * v2 cgroup whose children have the `pids` controller. Proven by making and removing a child.
 */
function findPidsCgroup(): string | null {
  let own: string[];
  let mounts: string[];
  try {
    own = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
    mounts = readFileSync('/proc/self/mountinfo', 'utf8').split('\n');
  } catch {
    return null;
  }
  const candidates: string[] = [];
  for (const m of mounts) {
    const [pre, post] = m.split(' - ');
    if (!pre || !post) continue;
    const mountPoint = pre.split(' ')[4];
    const root = pre.split(' ')[3];
    const [fstype, , opts] = post.split(' ');
    if (!mountPoint || !root) continue;
    const rel = (path: string) =>
      root === '/' ? path : path.startsWith(root) ? path.slice(root.length) : null;
    if (fstype === 'cgroup' && opts?.split(',').includes('pids')) {
      const line = own.find((l) => l.split(':')[1]?.split(',').includes('pids'));
      const p = line ? rel(line.split(':').slice(2).join(':')) : null;
      if (p !== null) candidates.push(posix.join(mountPoint, p));
    } else if (fstype === 'cgroup2') {
      const line = own.find((l) => l.startsWith('0::'));
      const p = line ? rel(line.slice(3)) : null;
      if (p === null) continue;
      const dir = posix.join(mountPoint, p);
      try {
        if (readFileSync(join(dir, 'cgroup.subtree_control'), 'utf8').split(/\s+/).includes('pids'))
          candidates.push(dir);
      } catch {
        // not readable: not ours to use
      }
    }
  }
  for (const dir of candidates) {
    const probe = join(dir, `skilldesk-probe-${process.pid}-${randomBytes(4).toString('hex')}`);
    try {
      mkdirSync(probe);
      try {
        writeFileSync(join(probe, 'pids.max'), '8');
        return dir;
      } finally {
        rmdirSync(probe);
      }
    } catch {
      // not writable by this user
    }
  }
  return null;
}

/** RLIMIT_NPROC counts per user namespace from Linux 5.14; before that it counts every process of the user. */
function rlimitPerNamespace(): boolean {
  const m = /^(\d+)\.(\d+)/.exec(
    (() => {
      try {
        return readFileSync('/proc/sys/kernel/osrelease', 'utf8');
      } catch {
        return '';
      }
    })(),
  );
  if (!m) return false;
  const [maj, min] = [Number(m[1]), Number(m[2])];
  return maj > 5 || (maj === 5 && min >= 14);
}

let support: NativeSandboxSupport | null = null;

/**
 * Whether CPython can be confined here (checked once): Linux with a bubblewrap that can make its
 * namespaces, and a way to cap the run's processes — a writable `pids` cgroup, or (not as root, whom
 * RLIMIT_NPROC does not bind) the per-namespace process rlimit. Anything else is a refusal with the
 * reason, and the native runtime then does not run at all.
 */
export function nativeSandboxSupport(): NativeSandboxSupport {
  if (support) return support;
  support = detectSupport();
  return support;
}

/** Forget the cached answer of {@link nativeSandboxSupport} (tests; a just-installed bubblewrap). */
export function resetNativeSandboxSupport(): void {
  support = null;
}

function detectSupport(): NativeSandboxSupport {
  if (process.platform !== 'linux') {
    return {
      ok: false,
      reason: `the native runtime needs Linux's bubblewrap; on ${process.platform} SkillDesk has no OS sandbox for CPython yet, so skills whose packages have compiled code cannot run here`,
    };
  }
  const bwrap = findOnPath('bwrap');
  if (!bwrap) {
    return {
      ok: false,
      reason:
        'bubblewrap is not installed (Debian/Ubuntu: sudo apt install bubblewrap; Fedora: sudo dnf install bubblewrap)',
    };
  }
  const probe = spawnSync(
    bwrap,
    [
      ...namespaceArgs(),
      '--ro-bind',
      '/usr',
      '/usr',
      ...systemLinks(),
      '--proc',
      '/proc',
      '--',
      '/usr/bin/true',
    ],
    { env: {}, timeout: 10_000, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  if (probe.status !== 0) {
    const why = (probe.stderr?.toString('utf8') ?? '').trim().split('\n').at(-1) || `exit ${probe.status}`;
    return {
      ok: false,
      reason: `bubblewrap cannot create its namespaces here (${why}); allow unprivileged user namespaces (kernel.unprivileged_userns_clone=1, or AppArmor's bwrap profile)`,
    };
  }
  const cgroup = findPidsCgroup();
  const seccomp = seccompFilter() !== null;
  if (cgroup) {
    return {
      ok: true,
      bwrap,
      process_limit: 'cgroup',
      cgroup_parent: cgroup,
      seccomp,
      detail: `bubblewrap; processes capped by the pids cgroup under ${cgroup}`,
    };
  }
  if (process.getuid?.() === 0) {
    return {
      ok: false,
      reason:
        'running as root without a writable pids cgroup: the process limit (RLIMIT_NPROC) does not bind root, so a script could fork without bound; run SkillDesk as a normal user or give it a cgroup',
    };
  }
  if (!rlimitPerNamespace()) {
    return {
      ok: false,
      reason:
        'this kernel (before 5.14) counts RLIMIT_NPROC over all your processes, so it cannot cap one run; no pids cgroup is writable either',
    };
  }
  return {
    ok: true,
    bwrap,
    process_limit: 'rlimit',
    seccomp,
    detail: 'bubblewrap; processes capped by RLIMIT_NPROC inside the run’s user namespace',
  };
}

function namespaceArgs(): string[] {
  return [
    '--die-with-parent',
    '--new-session',
    '--unshare-user',
    '--unshare-ipc',
    '--unshare-pid',
    '--unshare-net',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--disable-userns',
    '--cap-drop',
    'ALL',
  ];
}

/** `/bin`, `/lib`… as the host has them: symlinks into /usr on merged systems, else read-only binds. */
function systemLinks(): string[] {
  const args: string[] = [];
  for (const d of ['/bin', '/sbin', '/lib', '/lib64', '/lib32', '/libx32']) {
    try {
      const st = lstatSync(d);
      if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(d), d);
      else if (st.isDirectory()) args.push('--ro-bind', d, d);
    } catch {
      // not on this system
    }
  }
  return args;
}

let identity: { passwd: string; group: string } | null = null;

/**
 * `/etc/passwd` and `/etc/group` for the sandbox, written once per process into a fresh private
 * folder (a name another local user could have planted in /tmp is never trusted).
 */
function sandboxIdentity(): { passwd: string; group: string } {
  if (identity && existsSync(identity.passwd) && existsSync(identity.group)) return identity;
  const dir = mkdtempSync(join(tmpdir(), 'skilldesk-etc-'));
  const uid = process.getuid?.() ?? 1000;
  const gid = process.getgid?.() ?? 1000;
  const passwd = join(dir, 'passwd');
  const group = join(dir, 'group');
  writeFileSync(passwd, `sandbox:x:${uid}:${gid}:sandbox:/tmp:/usr/sbin/nologin\n`, { mode: 0o644 });
  writeFileSync(group, `sandbox:x:${gid}:\n`, { mode: 0o644 });
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  identity = { passwd, group };
  return identity;
}

const clean = (p: string) => p.replace(/\/+$/, '') || '/';

/** The bubblewrap command line of a run (without the binary and the seccomp fd). */
export function nativeBwrapArgs(spec: NativeRunSpec, limits: NativeLimits, withSeccomp: boolean): string[] {
  const args = [...namespaceArgs(), '--ro-bind', '/usr', '/usr', ...systemLinks()];
  // What the dynamic linker, time zones, fonts (LibreOffice, matplotlib) and Debian's alternatives
  // symlinks need; nothing of /etc that names users, hosts or secrets.
  for (const f of [
    '/etc/ld.so.cache',
    '/etc/ld.so.conf',
    '/etc/ld.so.conf.d',
    '/etc/localtime',
    '/etc/alternatives',
    '/etc/fonts',
    '/etc/mime.types',
    // Debian keeps LibreOffice's sofficerc and registry here (symlinked from /usr/lib/libreoffice).
    '/etc/libreoffice',
  ])
    args.push('--ro-bind-try', f, f);
  // Programs that look their user up (LibreOffice aborts at start without it) see one made-up user
  // with the run's uid and /tmp as home, never the host's accounts.
  const ids = sandboxIdentity();
  args.push('--ro-bind', ids.passwd, '/etc/passwd', '--ro-bind', ids.group, '/etc/group');
  args.push('--proc', '/proc', '--dev', '/dev', '--size', String(limits.tmp_bytes), '--tmpfs', '/tmp');
  // The one way out, when the run has a network grant: the proxy's socket (the namespace stays empty).
  if (spec.proxySocket) args.push('--ro-bind', spec.proxySocket, NATIVE_PROXY_SOCKET);
  const seen = new Set(['/usr']);
  for (const p of [...spec.pythonPaths, ...(spec.readPaths ?? [])]) {
    const c = clean(p);
    if (seen.has(c) || c.startsWith('/usr/')) continue;
    seen.add(c);
    args.push('--ro-bind', c, c);
  }
  for (const c of spec.covers ?? []) args.push('--ro-bind', c.with, c.path);
  if (spec.workDir) {
    // The whole working folder is the run's to write (a throwaway copy of the chat's files); the
    // code and the report folder sit beside it, outside what the run lists as its own.
    args.push('--ro-bind', spec.skillDir, NATIVE_CODE_DIR, '--bind', spec.outDir, NATIVE_REPORT_DIR);
    args.push('--bind', spec.workDir, NATIVE_WORK_CWD);
    // Granted folders, read-only inside the writable working folder (their mount points are made in
    // the throwaway copy, never in the chat's own folder).
    for (const f of spec.inputs ?? [])
      args.push('--ro-bind', f.path, `${NATIVE_WORK_CWD}/${NATIVE_INPUTS_DIR}/${f.name}`);
    args.push('--chdir', NATIVE_WORK_CWD);
    if (withSeccomp) args.push('--seccomp', '3');
    args.push('--clearenv');
    for (const [k, v] of Object.entries(sandboxEnv(spec))) args.push('--setenv', k, v);
    return args;
  }
  // The working folder is a small tmpfs holding read-only binds of the skill's entries, the inputs
  // and out/, then made read-only itself: the host's skill folder is never written to, and out/ is
  // the only writable place.
  args.push('--size', String(1024 * 1024), '--tmpfs', NATIVE_CWD);
  for (const name of readdirSync(spec.skillDir).sort()) {
    if (name === NATIVE_OUT_DIR || name === NATIVE_INPUTS_DIR) continue;
    args.push('--ro-bind', join(spec.skillDir, name), `${NATIVE_CWD}/${name}`);
  }
  args.push('--dir', `${NATIVE_CWD}/${NATIVE_INPUTS_DIR}`);
  for (const f of spec.inputs ?? [])
    args.push('--ro-bind', f.path, `${NATIVE_CWD}/${NATIVE_INPUTS_DIR}/${f.name}`);
  args.push('--bind', spec.outDir, `${NATIVE_CWD}/${NATIVE_OUT_DIR}`);
  args.push('--remount-ro', NATIVE_CWD, '--chdir', NATIVE_CWD);
  if (withSeccomp) args.push('--seccomp', '3');
  args.push('--clearenv');
  for (const [k, v] of Object.entries(sandboxEnv(spec))) args.push('--setenv', k, v);
  return args;
}

/**
 * Every file (or folder) the run may execute, as paths inside the sandbox: the interpreter (the
 * virtual environment's links and the file they lead to), the base tools and dynamic linker, the
 * stand-ins over refused programs (which must start to say why), and the granted programs.
 */
function runExecutables(spec: NativeRunSpec): string[] {
  const out = new Set<string>(baseExecutables());
  out.add(spec.python);
  try {
    out.add(realpathSync(spec.python));
  } catch {
    // the interpreter's own path is listed
  }
  // A virtual environment's console scripts (`bin/…`) start its interpreter; never a system
  // folder's whole content (an interpreter given as /usr/bin/python3).
  if (existsSync(join(dirname(dirname(spec.python)), 'pyvenv.cfg'))) out.add(dirname(spec.python));
  for (const c of spec.covers ?? []) out.add(c.path);
  for (const p of spec.execs ?? []) out.add(p);
  return [...out].sort();
}

/** The run's whole environment: built from nothing, then the caller's variables. */
function sandboxEnv(spec: NativeRunSpec): Record<string, string> {
  const bin = dirname(spec.python);
  return {
    PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`,
    HOME: '/tmp',
    TMPDIR: '/tmp',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONNOUSERSITE: '1',
    PYTHONIOENCODING: 'utf-8',
    // BLAS libraries reserve memory per core; one thread keeps numpy/pandas inside RLIMIT_AS.
    OPENBLAS_NUM_THREADS: '1',
    OMP_NUM_THREADS: '1',
    MKL_NUM_THREADS: '1',
    ...(spec.env ?? {}),
  };
}

/**
 * Sets the per-process limits and then becomes the script's interpreter: rlimits survive `exec`,
 * so the script starts already bound, with argv exactly `python -s SCRIPT ARGS…`.
 */
function limitsPrelude(
  limits: NativeLimits,
  rlimitProcs: boolean,
  proxy: boolean,
  execs: readonly string[],
): string {
  const r: Array<[string, number]> = [
    ['RLIMIT_AS', limits.memory_bytes],
    ['RLIMIT_CPU', limits.cpu_seconds],
    ['RLIMIT_FSIZE', limits.file_bytes],
    ['RLIMIT_NOFILE', limits.open_files],
    ['RLIMIT_CORE', 0],
  ];
  if (rlimitProcs) r.push(['RLIMIT_NPROC', limits.processes]);
  return [
    'import os, resource, sys',
    // CPU: SIGXCPU at the soft limit (reported as the limit), SIGKILL a second later if ignored.
    `for n, v in ${JSON.stringify(r)}: resource.setrlimit(getattr(resource, n), (v, v + 1 if n == "RLIMIT_CPU" else v))`,
    ...(proxy ? [proxyForwarderPrelude(NATIVE_PROXY_SOCKET)] : []),
    // Last, so the forwarder above is set up first; from here on only the listed files start.
    landlockPrelude(execs),
    'os.execv(sys.argv[1], sys.argv[1:])',
  ].join('\n');
}

function kernelSignalName(sig: number): string {
  const names: Record<number, string> = {
    9: 'SIGKILL',
    24: 'SIGXCPU',
    25: 'SIGXFSZ',
    11: 'SIGSEGV',
    6: 'SIGABRT',
  };
  return names[sig] ?? `signal ${sig}`;
}

/**
 * Run a Python script in the OS sandbox as `python SCRIPT ARGV…` in the skill's folder. The
 * script's exit code, stdout and stderr are the result whatever they are; a limit the sandbox
 * enforced (wall time, CPU time, `out/` size) gives exit code -1 and `sandbox_error`. Throws
 * FORBIDDEN when no OS sandbox is available here (never runs unconfined) and INVALID_INPUT for a
 * bad script path or input name.
 */
export async function runNativeSandboxed(spec: NativeRunSpec): Promise<NativeRunResult> {
  const sup = nativeSandboxSupport();
  if (!sup.ok) {
    throw new AppError('FORBIDDEN', `the OS sandbox for native scripts is not available: ${sup.reason}`, {
      runtime: 'native',
    });
  }
  const limits = { ...DEFAULT_NATIVE_LIMITS, ...(spec.limits ?? {}) };
  const script = spec.script.replace(/\\/g, '/');
  if (
    !script ||
    script.startsWith('/') ||
    script.split('/').some((s) => s === '..' || s === '' || s === '.')
  ) {
    throw new AppError('INVALID_INPUT', `script "${spec.script}" must be a relative path inside the skill`);
  }
  if (!existsSync(join(spec.skillDir, ...script.split('/')))) {
    throw new AppError('NOT_FOUND', `the skill has no script "${script}"`, { script });
  }
  const names = new Set<string>();
  for (const f of spec.inputs ?? []) {
    if (
      !f.name ||
      f.name.includes('/') ||
      f.name.includes('\0') ||
      f.name === '.' ||
      f.name === '..' ||
      names.has(f.name)
    )
      throw new AppError('INVALID_INPUT', `input name "${f.name}" must be one plain, unique file name`);
    names.add(f.name);
    if (!existsSync(f.path)) throw new AppError('NOT_FOUND', `input file ${f.path} does not exist`);
  }
  for (const a of spec.argv ?? [])
    if (a.includes('\0')) throw new AppError('INVALID_INPUT', 'an argument contains a NUL character');
  mkdirSync(spec.outDir, { recursive: true });
  const filter = sup.seccomp ? seccompFilter() : null;
  const bargs = nativeBwrapArgs(spec, limits, filter !== null);
  const python = spec.python;
  const cmd = [
    python,
    // The prelude needs no site-packages: -S spares it the site import before it becomes the script.
    '-I',
    '-S',
    '-c',
    limitsPrelude(limits, sup.process_limit === 'rlimit', !!spec.proxySocket, runExecutables(spec)),
    python,
    '-s',
    spec.workDir ? `${NATIVE_CODE_DIR}/${script}` : script,
    ...(spec.argv ?? []),
  ];

  let cgroup: string | null = null;
  let child: ChildProcess;
  const stdio: Array<'pipe'> = ['pipe', 'pipe', 'pipe', 'pipe'];
  if (sup.process_limit === 'cgroup' && sup.cgroup_parent) {
    cgroup = join(sup.cgroup_parent, `skilldesk-run-${process.pid}-${randomBytes(6).toString('hex')}`);
    mkdirSync(cgroup);
    writeFileSync(join(cgroup, 'pids.max'), String(limits.processes));
    // The shell joins the cgroup before it becomes bubblewrap, so no process of the run is ever outside it.
    child = spawn(
      '/bin/sh',
      [
        '-c',
        'echo $$ > "$1" && shift && exec "$@"',
        'sh',
        join(cgroup, 'cgroup.procs'),
        sup.bwrap,
        ...bargs,
        '--',
        ...cmd,
      ],
      { env: {}, cwd: '/', stdio },
    );
  } else {
    child = spawn(sup.bwrap, [...bargs, '--', ...cmd], { env: {}, cwd: '/', stdio });
  }
  const t0 = performance.now();
  const extra = child.stdio[3] as NodeJS.WritableStream | null;
  extra?.on('error', () => {});
  if (filter && extra) extra.end(Buffer.from(filter));
  else extra?.end();
  child.stdin?.on('error', () => {});
  child.stdin?.end(
    typeof spec.stdin === 'string' ? Buffer.from(spec.stdin, 'utf8') : (spec.stdin ?? Buffer.alloc(0)),
  );

  const out = { stdout: [] as Buffer[], stderr: [] as Buffer[], n: { stdout: 0, stderr: 0 } };
  const truncated: { stdout?: boolean; stderr?: boolean } = {};
  for (const which of ['stdout', 'stderr'] as const) {
    child[which]?.on('data', (b: Buffer) => {
      const room = limits.output_bytes - out.n[which];
      if (room <= 0) {
        truncated[which] = true;
        return;
      }
      const keep = b.length > room ? b.subarray(0, room) : b;
      if (keep.length < b.length) truncated[which] = true;
      out[which].push(keep);
      out.n[which] += keep.length;
    });
  }

  let stopped: NativeRunResult['sandbox_error'] | undefined;
  const stop = (err: NonNullable<NativeRunResult['sandbox_error']>) => {
    if (!stopped) stopped = err;
    // bubblewrap's init is the PID namespace's first process and dies with its parent
    // (--die-with-parent): killing the outer bubblewrap takes every process of the run with it.
    child.kill('SIGKILL');
    // Where the run has its own cgroup, every process in it is killed too, at once: a stop must not
    // hang on one process that outlived bubblewrap holding the output pipes open.
    if (cgroup) killCgroup(cgroup);
  };
  const timer = setTimeout(
    () =>
      stop({
        code: 'SANDBOX_TIMEOUT',
        message: `the script ran past its ${limits.timeout_ms} ms wall-clock limit and was stopped`,
      }),
    limits.timeout_ms,
  );
  const watched = spec.workDir ?? spec.outDir;
  const watch = setInterval(() => {
    const used = folderBytes(watched);
    if (used > limits.out_dir_bytes)
      stop({
        code: 'SANDBOX_LIMIT',
        message: `the script wrote more than ${limits.out_dir_bytes} bytes under out/ and was stopped`,
      });
  }, 250);
  const onAbort = () => stop({ code: 'CANCELLED', message: 'the script run was cancelled' });
  spec.signal?.addEventListener('abort', onAbort, { once: true });
  if (spec.signal?.aborted) onAbort();

  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    child.on('error', (e) => {
      stopped ??= { code: 'SANDBOX_FAILED', message: `could not start bubblewrap: ${e.message}` };
      resolve([null, null]);
    });
    child.on('close', (c, s) => resolve([c, s]));
  });
  clearTimeout(timer);
  clearInterval(watch);
  spec.signal?.removeEventListener('abort', onAbort);
  if (cgroup) await emptyCgroup(cgroup);
  if (!stopped && folderBytes(watched) > limits.out_dir_bytes)
    stopped = {
      code: 'SANDBOX_LIMIT',
      message: `the script wrote more than ${limits.out_dir_bytes} bytes under out/`,
    };

  const stdout = Buffer.concat(out.stdout).toString('utf8');
  let stderr = Buffer.concat(out.stderr).toString('utf8');
  const base = {
    stdout,
    duration_ms: Math.round(performance.now() - t0),
    ...(Object.keys(truncated).length ? { truncated } : {}),
  };
  if (stopped) return { exit_code: -1, stderr, ...base, sandbox_error: stopped };
  // bubblewrap reports a child killed by a signal as 128 + the signal's number.
  const status = code ?? (signal ? 128 + 9 : 1);
  if (status > 128 && status < 160) {
    const sig = status - 128;
    if (sig === 24)
      return {
        exit_code: -1,
        stderr,
        ...base,
        sandbox_error: {
          code: 'SANDBOX_LIMIT',
          message: `the script used more than its ${limits.cpu_seconds} s of CPU time and was stopped`,
        },
      };
    stderr += `${stderr && !stderr.endsWith('\n') ? '\n' : ''}[the script was killed by ${kernelSignalName(sig)}]\n`;
  }
  if (status === 1 && /^bwrap: /m.test(stderr) && !stdout) {
    return {
      exit_code: -1,
      stderr,
      ...base,
      sandbox_error: {
        code: 'SANDBOX_FAILED',
        message: `bubblewrap could not set up the sandbox: ${/^bwrap: (.*)$/m.exec(stderr)?.[1]}`,
      },
    };
  }
  return { exit_code: status, stderr, ...base };
}

/** Bytes of regular files under a folder (symlinks not followed). */
export function folderBytes(dir: string): number {
  let total = 0;
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      try {
        const st = lstatSync(p);
        if (st.isDirectory()) walk(p);
        else if (st.isFile()) total += st.size;
      } catch {
        // removed meanwhile
      }
    }
  };
  walk(dir);
  return total;
}

/** Kill whatever is left in a run's cgroup and remove it (the kernel refuses while a process lives). */
/** SIGKILL every process in the cgroup; false when the cgroup is gone. */
function killCgroup(dir: string): boolean {
  let pids: number[] = [];
  try {
    pids = readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return false;
  }
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return true;
}

async function emptyCgroup(dir: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (!killCgroup(dir)) return;
    try {
      rmdirSync(dir);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

const prefixCache = new Map<string, { mtimeMs: number; dirs: string[] }>();

/**
 * The real folders a Python interpreter lives in (its prefix and base prefix), to mount read-only.
 * Asked of the interpreter once per process and binary (a new interpreter at the same path, as a
 * reinstalled venv has, is asked again): starting Python only to learn its prefix cost a warm run
 * a third of its time.
 */
export function pythonPrefixes(python: string): string[] {
  let mtimeMs = -1;
  try {
    mtimeMs = statSync(python).mtimeMs;
  } catch {
    // missing: the spawn below says so
  }
  const hit = prefixCache.get(python);
  if (hit && hit.mtimeMs === mtimeMs) return hit.dirs;
  const dirs = askPrefixes(python);
  prefixCache.set(python, { mtimeMs, dirs });
  return dirs;
}

function askPrefixes(python: string): string[] {
  const r = spawnSync(
    python,
    [
      '-I',
      '-c',
      'import sys,json;print(json.dumps([sys.prefix,sys.base_prefix,sys.exec_prefix,sys.base_exec_prefix]))',
    ],
    {
      env: { PATH: '/usr/bin:/bin' },
      encoding: 'utf8',
      timeout: 15_000,
    },
  );
  if (r.status !== 0)
    throw new AppError('INVALID_INPUT', `${python} does not run: ${(r.stderr ?? '').trim().slice(0, 300)}`);
  const dirs = new Set<string>();
  for (const p of JSON.parse(r.stdout) as string[]) {
    dirs.add(p);
    try {
      dirs.add(realpathSync(p));
    } catch {
      // kept as given
    }
  }
  try {
    dirs.add(dirname(dirname(realpathSync(python))));
  } catch {
    // the interpreter's own prefix is among the above
  }
  return [...dirs].filter((d) => {
    try {
      return statSync(d).isDirectory();
    } catch {
      return false;
    }
  });
}
