#!/usr/bin/env node
// Creates sidecar/.venv and installs sidecar/requirements.txt into it.
// Run from `npm install` (postinstall). It must never break the install: without Python, or when
// pip fails, it prints a warning and exits 0 — the app then runs dspy_module artifacts through
// their fallback prompt templates.
//
// Environment:
//   SKILLDESK_SKIP_SIDECAR=1   do nothing
//   SKILLDESK_PYTHON=/path     the interpreter to build the venv from (default: python3.13 … python3)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sidecarDir = join(root, 'sidecar');
const venvDir = join(sidecarDir, '.venv');
const requirements = join(sidecarDir, 'requirements.txt');
const constraints = join(sidecarDir, 'constraints.txt');
const stampFile = join(venvDir, '.skilldesk-requirements.sha256');
const isWindows = process.platform === 'win32';
const venvPython = isWindows ? join(venvDir, 'Scripts', 'python.exe') : join(venvDir, 'bin', 'python');
const MIN_MINOR = 10;

function log(line) {
  process.stderr.write(`[setup-sidecar] ${line}\n`);
}

function warn(line) {
  log(`warning: ${line}`);
  log('warning: the DSPy sidecar is unavailable; dspy_module artifacts will use their fallback templates.');
  log('warning: fix the problem and run `node scripts/setup-sidecar.mjs` again.');
}

/** Python 3.x version of `cmd`, or undefined when it is not a usable interpreter. */
function pythonVersion(cmd, args = []) {
  const r = spawnSync(cmd, [...args, '-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  if (r.status !== 0 || typeof r.stdout !== 'string') return undefined;
  const m = /^3\.(\d+)/.exec(r.stdout.trim());
  return m ? Number(m[1]) : undefined;
}

function findPython() {
  const candidates = [];
  if (process.env.SKILLDESK_PYTHON) candidates.push([process.env.SKILLDESK_PYTHON, []]);
  for (const minor of [13, 12, 11, 10]) candidates.push([`python3.${minor}`, []]);
  candidates.push(['python3', []], ['python', []]);
  if (isWindows) candidates.push(['py', ['-3']]);
  for (const [cmd, args] of candidates) {
    const minor = pythonVersion(cmd, args);
    if (minor !== undefined && minor >= MIN_MINOR) return { cmd, args };
  }
  return undefined;
}

function run(cmd, args) {
  log(`$ ${[cmd, ...args].join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], timeout: 20 * 60_000 });
  return r.status === 0;
}

function main() {
  if (process.env.SKILLDESK_SKIP_SIDECAR === '1') {
    log('SKILLDESK_SKIP_SIDECAR=1: skipped.');
    return;
  }
  if (!existsSync(requirements)) {
    warn(`${requirements} is missing.`);
    return;
  }
  const hash = createHash('sha256').update(readFileSync(requirements));
  if (existsSync(constraints)) hash.update(readFileSync(constraints));
  const wanted = hash.digest('hex');
  if (existsSync(venvPython) && existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === wanted) {
    log('sidecar/.venv is up to date.');
    return;
  }
  if (!existsSync(venvPython)) {
    const python = findPython();
    if (!python) {
      warn(`no Python 3.${MIN_MINOR}+ found (set SKILLDESK_PYTHON to an interpreter).`);
      return;
    }
    if (!run(python.cmd, [...python.args, '-m', 'venv', venvDir])) {
      rmSync(venvDir, { recursive: true, force: true });
      warn('`python -m venv` failed (on Debian/Ubuntu install the python3-venv package).');
      return;
    }
  }
  const pinned = existsSync(constraints) ? ['-c', constraints] : [];
  if (
    !run(venvPython, ['-m', 'pip', 'install', '--disable-pip-version-check', '-r', requirements, ...pinned])
  ) {
    warn('pip could not install sidecar/requirements.txt.');
    return;
  }
  writeFileSync(stampFile, `${wanted}\n`);
  log('sidecar/.venv is ready.');
}

try {
  main();
} catch (e) {
  warn(e instanceof Error ? e.message : String(e));
}
process.exit(0);
