import { createForkSpawner, type SpawnSandboxProcess } from '../sandbox/index.js';

/**
 * The desktop's sandbox spawner: Electron's own binary run as Node (ELECTRON_RUN_AS_NODE, the only
 * variable in its environment) under the permission model. If this Electron build does not honour
 * the permission flags, the sandbox process's self-check fails and the pool refuses every run
 * (fail closed) rather than running code unconfined.
 */
export function electronSandboxSpawner(): SpawnSandboxProcess {
  return createForkSpawner({
    execPath: process.execPath,
    env: { ELECTRON_RUN_AS_NODE: '1' },
    nodeMajor: Number(process.versions.node.split('.')[0]),
  });
}
