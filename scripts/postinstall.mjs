#!/usr/bin/env node
// After `npm install`: (1) the DSPy sidecar's Python environment, (2) the e5 sentence-embedding
// model and its engine (scripts/setup-e5.mjs; a Node-API addon, so the same build serves Electron),
// then all-MiniLM-L6-v2 converted for that engine (scripts/setup-minilm.mjs), (3) the CLI's bundle
// (the CLI rebuilds it itself when a source is newer), (4) the Python sandbox's interpreter snapshot
// (`skilldesk sandbox prepare`), (5) on a machine where
// the Electron binary was downloaded, a copy of better-sqlite3 rebuilt for Electron's ABI (the
// Node build stays in place for the CLI, web mode and tests). No step can fail the install.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const warn = (msg) => console.warn(`skilldesk postinstall: ${msg}`);

const sidecar = join(root, 'scripts', 'setup-sidecar.mjs');
if (existsSync(sidecar) && !process.env.SKILLDESK_SKIP_SIDECAR) {
  const r = spawnSync(process.execPath, [sidecar], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0)
    warn('the sidecar environment was not set up; dspy_module skills will use their prompt fallback');
}

const e5 = join(root, 'scripts', 'setup-e5.mjs');
if (existsSync(e5) && !process.env.SKILLDESK_SKIP_E5) {
  const r = spawnSync(process.execPath, [e5], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0)
    warn('the e5 model is not installed; skills match by words and the static embedding only');
}

// all-MiniLM-L6-v2 for the same engine (scripts/setup-minilm.mjs), after e5 built it.
const minilm = join(root, 'scripts', 'setup-minilm.mjs');
if (existsSync(minilm) && !process.env.SKILLDESK_SKIP_MINILM) {
  const r = spawnSync(process.execPath, [minilm], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) warn('all-MiniLM-L6-v2 is not installed; skills match without it');
}

try {
  const { buildCliBundle } = await import('./cli-bundle.mjs');
  await buildCliBundle();
} catch (e) {
  warn(`the CLI's bundle was not built (${e.message}); the CLI will run its sources through tsx`);
}

// Build the Python sandbox's interpreter snapshot now (about 10 s of CPU), so a user's first Python
// run starts from the cache instead of building it. Skipped where the sandbox cannot run.
if (!process.env.SKILLDESK_SKIP_SANDBOX_PREPARE) {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'skilldesk.mjs'), 'sandbox', 'prepare'], {
    cwd: root,
    stdio: 'inherit',
    timeout: 180_000,
  });
  if (r.status !== 0) warn('the Python sandbox was not prepared; its first run will build the snapshot');
}

const electronPathFile = join(root, 'node_modules', 'electron', 'path.txt');
if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD || !existsSync(electronPathFile)) {
  console.log(
    'skilldesk postinstall: no Electron binary here; `npm start` will serve the app in your browser instead.',
  );
} else {
  try {
    const { rebuild } = await import('@electron/rebuild');
    const electronVersion = JSON.parse(
      (await import('node:fs')).readFileSync(join(root, 'node_modules', 'electron', 'package.json'), 'utf8'),
    ).version;
    const work = join(root, 'out', 'native', 'electron');
    rmSync(work, { recursive: true, force: true });
    mkdirSync(join(work, 'node_modules'), { recursive: true });
    cpSync(join(root, 'node_modules', 'better-sqlite3'), join(work, 'node_modules', 'better-sqlite3'), {
      recursive: true,
    });
    cpSync(join(root, 'package.json'), join(work, 'package.json'));
    await rebuild({ buildPath: work, electronVersion, onlyModules: ['better-sqlite3'], force: true });
    console.log(`skilldesk postinstall: better-sqlite3 rebuilt for Electron ${electronVersion}`);
  } catch (e) {
    warn(
      `could not rebuild better-sqlite3 for Electron (${e.message}); run \`npx electron-builder install-app-deps\``,
    );
  }
}
