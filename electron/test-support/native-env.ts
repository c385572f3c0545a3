import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { findNativePython, type NativePython, nativeDir, venvDir } from '../scripts/index.js';

/**
 * The state an install of lxml leaves for `skill` (a real venv without packages and its lock
 * entry naming one compiled wheel), made without the network: the skill then runs its scripts in
 * the OS-sandbox runtime, with a real interpreter, for stdlib-only scripts. For tests and the bench.
 */
export function seedNativeEnv(home: string, skill: string, py: NativePython): void {
  const venv = venvDir(home, skill);
  mkdirSync(dirname(venv), { recursive: true });
  execFileSync(py.executable, ['-m', 'venv', '--without-pip', venv]);
  const filename = 'lxml-5.3.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl';
  const lock = {
    version: 1,
    skills: {
      [skill]: {
        requirements: ['lxml'],
        from: 'imports',
        python: py.executable,
        python_version: py.version,
        venv,
        wheels: [
          { filename, name: 'lxml', version: '5.3.0', sha256: 'a'.repeat(64), size: 5_000_000, pure: false },
        ],
        installed_at: new Date().toISOString(),
      },
    },
  };
  writeFileSync(join(nativeDir(home), 'environments.json'), `${JSON.stringify(lock, null, 2)}\n`);
}

/** The Python the native runtime would use, or null where there is none (the test then skips). */
export function nativePythonOrNull(): NativePython | null {
  try {
    return findNativePython();
  } catch {
    return null;
  }
}

/** Whether `python` reaches PyPI's index page of `project` (tests that install from PyPI need it). */
export function pypiReachable(python: NativePython | null, project: string): boolean {
  return (
    python !== null &&
    spawnSync(
      python.executable,
      [
        '-c',
        `import urllib.request;urllib.request.urlopen("https://pypi.org/simple/${project}/", timeout=10)`,
      ],
      { timeout: 20_000 },
    ).status === 0
  );
}
