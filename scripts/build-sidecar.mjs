#!/usr/bin/env node
// `npm run build:sidecar`: a self-contained one-dir PyInstaller build of the DSPy sidecar in
// sidecar/dist/skilldesk-sidecar/ (ship that folder as an electron-builder extra resource named
// `skilldesk-sidecar`; the client prefers it over sidecar/.venv). Needs sidecar/.venv
// (`node scripts/setup-sidecar.mjs`); installs sidecar/requirements-build.txt into it.
// Unlike setup-sidecar, a failure here exits non-zero: it is an explicit build step.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sidecarDir = join(root, 'sidecar');
const isWindows = process.platform === 'win32';
const python = isWindows
  ? join(sidecarDir, '.venv', 'Scripts', 'python.exe')
  : join(sidecarDir, '.venv', 'bin', 'python');
const name = 'skilldesk-sidecar';
const distDir = join(sidecarDir, 'dist');
const workDir = join(sidecarDir, 'build');

function run(cmd, args, opts = {}) {
  process.stderr.write(`[build-sidecar] $ ${[cmd, ...args].join(' ')}\n`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) {
    process.stderr.write(`[build-sidecar] failed (${r.error?.message ?? `exit ${r.status}`})\n`);
    process.exit(1);
  }
}

if (!existsSync(python)) {
  process.stderr.write(
    '[build-sidecar] sidecar/.venv is missing: run `node scripts/setup-sidecar.mjs` first\n',
  );
  process.exit(1);
}
run(python, [
  '-m',
  'pip',
  'install',
  '--disable-pip-version-check',
  '-r',
  join(sidecarDir, 'requirements-build.txt'),
]);
rmSync(join(distDir, name), { recursive: true, force: true });
run(
  python,
  [
    '-m',
    'PyInstaller',
    '--noconfirm',
    '--clean',
    '--onedir',
    '--name',
    name,
    '--distpath',
    distDir,
    '--workpath',
    workDir,
    '--specpath',
    workDir,
    '--paths',
    sidecarDir,
    // PyInstaller has no hooks for DSPy or LiteLLM. DSPy reads some of its own .py files at run
    // time (primitives/_facade_shim.py), so it is collected whole, sources included.
    '--collect-all',
    'dspy',
    '--collect-data',
    'litellm',
    '--collect-submodules',
    'skilldesk_sidecar',
    '--hidden-import',
    'tiktoken_ext',
    '--hidden-import',
    'tiktoken_ext.openai_public',
    join(sidecarDir, 'pyinstaller_entry.py'),
  ],
  { cwd: sidecarDir },
);

// Smoke test: the binary must describe the protocol and pass the start-up handshake.
const exe = join(distDir, name, isWindows ? `${name}.exe` : name);
const handshake = spawnSync(exe, [], {
  input: '{"id":"n1","type":"req","method":"version"}\n',
  encoding: 'utf8',
  timeout: 120_000,
  env: { PATH: process.env.PATH ?? '', LITELLM_LOCAL_MODEL_COST_MAP: 'True' },
});
const reply = handshake.stdout.trim().split('\n').at(-1) ?? '';
let ok = false;
try {
  ok = typeof JSON.parse(reply).result?.dspy === 'string';
} catch {}
if (!ok) {
  process.stderr.write(
    `[build-sidecar] the built binary failed its handshake:\n${reply}\n${handshake.stderr}\n`,
  );
  process.exit(1);
}
process.stderr.write(`[build-sidecar] built ${exe}\n`);
