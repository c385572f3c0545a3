import { fork } from 'node:child_process';
import type { SandboxProcessHandle, SandboxSpawnSpec, SpawnSandboxProcess } from './types.js';

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
    '--no-warnings',
  ];
}

/**
 * The default spawner: a plain Node process (this `node` binary) with an empty environment and the
 * permission model. The process checks its own lockdown on start and refuses to run if a flag was
 * not honoured, so a spawner that gets it wrong fails closed.
 */
export const spawnNodeSandbox: SpawnSandboxProcess = (spec) => forkSandbox(spec, {});

/** How to start the sandbox process: which binary, with which (otherwise empty) environment. */
export interface ForkSandboxOptions {
  /** The Node binary (default: this process's). On the desktop, Electron's binary. */
  execPath?: string;
  /** The whole environment of the process (default: empty). The desktop adds ELECTRON_RUN_AS_NODE=1 only. */
  env?: Record<string, string>;
  /** Node major version of that binary, for the permission flag's name. */
  nodeMajor?: number;
}

/**
 * A spawner for another Node-compatible binary (Electron run as Node on the desktop). The sandbox
 * process verifies its own lockdown and refuses to run when a flag was not honoured.
 */
export function createForkSpawner(opts: ForkSandboxOptions): SpawnSandboxProcess {
  return (spec) => forkSandbox(spec, opts);
}

function forkSandbox(spec: SandboxSpawnSpec, opts: ForkSandboxOptions): SandboxProcessHandle {
  const child = fork(spec.entry, [], {
    execPath: opts.execPath ?? process.execPath,
    execArgv: permissionFlags(spec, opts.nodeMajor),
    env: opts.env ?? {},
    cwd: '/',
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let tail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (s: string) => {
    tail = (tail + s).slice(-STDERR_TAIL);
  });
  // A write to a dead process must not crash the host.
  child.on('error', () => {});
  return {
    pid: child.pid,
    send: (m) => {
      if (child.connected) child.send(m as never);
    },
    onMessage: (cb) => child.on('message', cb),
    onExit: (cb) => child.on('exit', (code, signal) => cb(code, signal)),
    kill: () => {
      child.kill('SIGKILL');
    },
    stderrTail: () => tail,
  };
}
