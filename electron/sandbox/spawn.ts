import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  SandboxIsolation,
  SandboxProcessHandle,
  SandboxSpawnSpec,
  SpawnSandboxProcess,
} from './types.js';

const STDERR_TAIL = 8 * 1024;

/** The Node flags that put a process under the permission model with only `readPaths` readable. */
export function permissionFlags(
  spec: SandboxSpawnSpec,
  nodeMajor = Number(process.versions.node.split('.')[0]),
): string[] {
  return [
    nodeMajor >= 22 ? '--permission' : '--experimental-permission',
    ...spec.readPaths.map((p) => `--allow-fs-read=${p}`),
    '--allow-worker',
    '--disallow-code-generation-from-strings',
    `--max-old-space-size=${spec.maxOldSpaceMb}`,
    // V8's platform threads (background compilation, GC helpers): Node starts 4; two keep wasm
    // tier-up and GC in the background and measured 10-15 MB less RSS for the process.
    '--v8-pool-size=2',
    // Each wasm function is compiled by TurboFan in the background right after its first (Liftoff)
    // call, instead of when a per-function budget of executed code runs out. A short run calls
    // hundreds of the interpreter's functions a few times each; under the budget the Python part of
    // a warm run 1.2 s after the last took 2.2-3.6 ms in six processes of seven and 1.0 ms in the
    // seventh, and with this flag 1.0 ms in every one (lower budgets did not help). It costs about
    // 6 MB of the process's memory and 50 ms of background CPU at its first run. The same TurboFan
    // code that tier-up produces anyway: nothing experimental (docs/benchmarks.md, stop 55).
    '--no-wasm-dynamic-tiering',
    `--import=${spec.guard}`,
    '--no-warnings',
  ];
}

/** How to start the sandbox process: which binary, with which (otherwise empty) environment. */
export interface ForkSandboxOptions {
  /** The Node binary (default: this process's). On the desktop, Electron's binary. */
  execPath?: string;
  /** The whole environment of the process (default: empty). The desktop adds ELECTRON_RUN_AS_NODE=1 only. */
  env?: Record<string, string>;
  /** Node major version of that binary, for the permission flag's name. */
  nodeMajor?: number;
  /**
   * How the operating system confines the process (default: the strongest that works here —
   * bubblewrap, then unshare on Linux; sandbox-exec on macOS). `none` runs with in-process
   * isolation only; the pool refuses that unless the user accepted it.
   */
  isolation?: 'auto' | 'none';
}

/**
 * The default spawner: a plain Node process (this `node` binary) with an empty environment, the
 * permission model, the module guard and, where the OS allows it, no network. The process checks
 * its own lockdown on start and refuses to run if a flag was not honoured, so a spawner that gets
 * it wrong fails closed.
 */
export const spawnNodeSandbox: SpawnSandboxProcess = (spec) => startSandbox(spec, {});

/**
 * A spawner for another Node-compatible binary (Electron run as Node on the desktop). The sandbox
 * process verifies its own lockdown and refuses to run when a flag was not honoured.
 */
export function createForkSpawner(opts: ForkSandboxOptions): SpawnSandboxProcess {
  return (spec) => startSandbox(spec, opts);
}

interface Wrapper {
  isolation: SandboxIsolation;
  /** The command line before the Node binary. */
  prefix: string[];
}

const NO_ISOLATION: Wrapper = {
  isolation: {
    method: 'none',
    blocks_tcp: false,
    blocks_unix: false,
    detail: 'no operating-system sandbox is available here (Linux: install bubblewrap)',
  },
  prefix: [],
};

const detected = new Map<string, Wrapper>();

function findOnPath(cmd: string): string | null {
  for (const dir of [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/bin', '/usr/sbin']) {
    if (!dir) continue;
    const p = join(dir, cmd);
    if (existsSync(p)) return p;
  }
  return null;
}

/** Bind mounts for bubblewrap: the system libraries, the binary's folder and `readPaths`, read-only. */
function bwrapArgs(execPath: string, readPaths: string[]): string[] {
  const args = [
    '--die-with-parent',
    '--new-session',
    '--unshare-all',
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/usr',
    '/usr',
  ];
  for (const d of ['/bin', '/sbin', '/lib', '/lib64', '/lib32']) {
    try {
      const st = lstatSync(d);
      if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(d), d);
      else if (st.isDirectory()) args.push('--ro-bind', d, d);
    } catch {
      // not on this system
    }
  }
  for (const f of ['/etc/ld.so.cache', '/etc/ld.so.conf', '/etc/ld.so.conf.d'])
    args.push('--ro-bind-try', f, f);
  // An empty /tmp first: the binds below may live under it (they are mounted on top).
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  const binDir = dirname(execPath);
  if (!binDir.startsWith('/usr/')) args.push('--ro-bind', binDir, binDir);
  for (const p of readPaths) {
    const clean = p.replace(/\/+$/, '') || '/';
    args.push('--ro-bind', clean, clean);
  }
  args.push('--chdir', '/', '--unsetenv', 'PWD', '--');
  return args;
}

// `--version` loads the binary and its libraries inside the wrapper and exits before V8 starts:
// the same proof that the confinement works, in a tenth of the time of `-e 0` (this call blocks).
function works(cmd: string, args: string[], execPath: string, env: Record<string, string>): boolean {
  const r = spawnSync(cmd, [...args, execPath, '--version'], { env, timeout: 10_000, stdio: 'ignore' });
  return r.status === 0;
}

/**
 * The strongest OS confinement that works for this binary on this machine (tried once per binary):
 * Linux — bubblewrap (new user, network, PID, IPC and mount namespaces: no network at all, and no
 * file system beyond the runtime, so no UNIX socket either), else `unshare` (network and PID
 * namespaces: no TCP/UDP, but filesystem UNIX sockets stay reachable); macOS — `sandbox-exec`
 * with a deny-network profile; elsewhere none.
 */
export function detectIsolation(
  execPath: string,
  readPaths: string[],
  env: Record<string, string> = {},
): Wrapper {
  const key = `${execPath}\0${readPaths.join('\0')}`;
  const cached = detected.get(key);
  if (cached) return cached;
  let w: Wrapper = NO_ISOLATION;
  if (process.platform === 'linux') {
    const bwrap = findOnPath('bwrap');
    const unshare = findOnPath('unshare');
    const bargs = bwrap ? bwrapArgs(execPath, readPaths) : [];
    if (bwrap && works(bwrap, bargs, execPath, env)) {
      w = {
        isolation: {
          method: 'bwrap',
          blocks_tcp: true,
          blocks_unix: true,
          detail: 'bubblewrap: no network, no file system beyond the runtime',
        },
        prefix: [bwrap, ...bargs],
      };
    } else if (unshare) {
      const tries =
        process.getuid?.() === 0
          ? [['--net', '--pid', '--fork', '--kill-child', '--']]
          : [
              ['--user', '--map-current-user', '--net', '--pid', '--fork', '--kill-child', '--'],
              ['--user', '--map-root-user', '--net', '--pid', '--fork', '--kill-child', '--'],
            ];
      for (const a of tries) {
        if (works(unshare, a, execPath, env)) {
          w = {
            isolation: {
              method: 'unshare',
              blocks_tcp: true,
              blocks_unix: false,
              detail:
                'unshare: no TCP/UDP network; UNIX sockets in the file system stay reachable (install bubblewrap)',
            },
            prefix: [unshare, ...a],
          };
          break;
        }
      }
    }
  } else if (process.platform === 'darwin' && existsSync('/usr/bin/sandbox-exec')) {
    w = {
      isolation: {
        method: 'sandbox-exec',
        blocks_tcp: true,
        blocks_unix: true,
        detail: 'sandbox-exec: network denied',
      },
      prefix: ['/usr/bin/sandbox-exec', '-p', '(version 1)(allow default)(deny network*)'],
    };
  }
  detected.set(key, w);
  return w;
}

/**
 * How the OS would confine a sandbox process started from `execPath` (default: this binary, which
 * on the desktop is Electron's, the one the desktop spawner uses), for the settings screen.
 */
export function sandboxIsolation(execPath = process.execPath): SandboxIsolation {
  const runtime = join(dirname(fileURLToPath(import.meta.url)), 'runtime');
  const pyodide = dirname(createRequire(import.meta.url).resolve('pyodide/package.json'));
  return detectIsolation(
    execPath,
    [`${runtime}/`, `${pyodide}/`],
    process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {},
  ).isolation;
}

function startSandbox(spec: SandboxSpawnSpec, opts: ForkSandboxOptions): SandboxProcessHandle {
  const execPath = opts.execPath ?? process.execPath;
  // glibc gives every thread its own malloc arena and keeps what a finished worker freed: with a
  // worker thread per fresh interpreter the process's RSS then only grows. Two arenas keep it flat.
  const env = { MALLOC_ARENA_MAX: '2', ...(opts.env ?? {}) };
  const wrapper = opts.isolation === 'none' ? NO_ISOLATION : detectIsolation(execPath, spec.readPaths, env);
  const nodeArgs = [
    ...permissionFlags(spec, opts.nodeMajor),
    spec.entry,
    `--probe-tcp=${spec.probe?.tcpPort ?? 0}`,
    `--probe-unix=${spec.probe?.unixPath ?? ''}`,
    ...(spec.pyodideUrl ? [`--pyodide-url=${spec.pyodideUrl}`] : []),
  ];
  const [cmd, ...args] =
    wrapper.prefix.length > 0 ? [...wrapper.prefix, execPath, ...nodeArgs] : [execPath, ...nodeArgs];
  const child = spawn(cmd!, args, {
    env,
    cwd: '/',
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: false,
  });
  let tail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (s: string) => {
    tail = (tail + s).slice(-STDERR_TAIL);
  });
  // A write to a dead process must not crash the host.
  child.on('error', () => {});
  child.stdin?.on('error', () => {});
  return {
    pid: child.pid,
    isolation: wrapper.isolation,
    write: (chunk) => {
      if (child.stdin && !child.stdin.destroyed) child.stdin.write(chunk);
    },
    onData: (cb) =>
      child.stdout?.on('data', (b: Buffer) => cb(new Uint8Array(b.buffer, b.byteOffset, b.length))),
    onExit: (cb) => child.on('exit', (code, signal) => cb(code, signal)),
    kill: () => {
      child.kill('SIGKILL');
    },
    stderrTail: () => tail,
  };
}
