// scripts/setup-sidecar.mjs runs from `npm install`: without Python it must warn and exit 0.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { APP_ROOT } from './test-lm.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('warns and exits 0 when no Python can be found', () => {
  dir = mkdtempSync(join(tmpdir(), 'skilldesk-setup-'));
  mkdirSync(join(dir, 'scripts'));
  mkdirSync(join(dir, 'sidecar'));
  copyFileSync(join(APP_ROOT, 'scripts', 'setup-sidecar.mjs'), join(dir, 'scripts', 'setup-sidecar.mjs'));
  writeFileSync(join(dir, 'sidecar', 'requirements.txt'), 'dspy==3.4.1\n');
  const r = spawnSync(process.execPath, [join(dir, 'scripts', 'setup-sidecar.mjs')], {
    encoding: 'utf8',
    env: { PATH: join(dir, 'no-bin'), SKILLDESK_PYTHON: join(dir, 'no-python') },
  });
  expect(r.status).toBe(0);
  expect(r.stderr).toMatch(/no Python 3\.\d+\+ found/);
  expect(r.stderr).toMatch(/fallback/);
});

it.skipIf(process.platform === 'win32')('warns and exits 0 when the venv or pip step fails', () => {
  dir = mkdtempSync(join(tmpdir(), 'skilldesk-setup-'));
  mkdirSync(join(dir, 'scripts'));
  mkdirSync(join(dir, 'sidecar'));
  copyFileSync(join(APP_ROOT, 'scripts', 'setup-sidecar.mjs'), join(dir, 'scripts', 'setup-sidecar.mjs'));
  writeFileSync(join(dir, 'sidecar', 'requirements.txt'), 'dspy==3.4.1\n');
  // A "python" that passes the version probe and fails everything else.
  const fake = join(dir, 'fake-python');
  writeFileSync(
    fake,
    '#!/bin/sh\nif [ "$1" = "-c" ]; then echo 3.11; exit 0; fi\necho "no venv here" >&2\nexit 1\n',
    {
      mode: 0o755,
    },
  );
  const r = spawnSync(process.execPath, [join(dir, 'scripts', 'setup-sidecar.mjs')], {
    encoding: 'utf8',
    env: { PATH: '/usr/bin:/bin', SKILLDESK_PYTHON: fake },
  });
  expect(r.status).toBe(0);
  expect(r.stderr).toMatch(/warning: `python -m venv` failed/);
});
