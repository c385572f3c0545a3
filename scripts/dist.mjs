#!/usr/bin/env node
// `npm run dist`: the Linux AppImage and .deb with electron-builder, into dist/.
//
// electron-builder needs, besides this project's build: Electron's own binary for linux-x64, the
// Electron headers (to rebuild better-sqlite3 for Electron's ABI), and its packaging tools
// (appimagetool, fpm), all of which it normally downloads from GitHub and electronjs.org. Where
// they cannot be downloaded, this script checks for local copies first and, if any is missing,
// stops before building anything, saying what is missing and how to provide it. It never reports
// success without the packages. `npm run dist -- --check` only runs those checks.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const config = parse(readFileSync(join(root, 'electron-builder.yml'), 'utf8'));
const version = config.electronVersion;
const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
const zipName = `electron-v${version}-linux-${arch}.zip`;
const checkOnly = process.argv.includes('--check');
const log = (m) => process.stderr.write(`[dist] ${m}\n`);

/** Files named `name` under `dir`, at most `depth` folders down. */
function findFile(dir, name, depth = 3) {
  if (!existsSync(dir)) return null;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return null;
  }
  for (const e of entries) if (e.isFile() && e.name === name) return join(dir, e.name);
  if (depth === 0) return null;
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    const hit = findFile(join(dir, e.name), name, depth - 1);
    if (hit) return hit;
  }
  return null;
}

function hasPrefix(dir, prefix) {
  try {
    return readdirSync(dir).some((n) => n.startsWith(prefix));
  } catch {
    return false;
  }
}

function onPath(bin) {
  return spawnSync('which', [bin], { stdio: 'ignore' }).status === 0;
}

const missing = [];

// 1. Electron itself.
function electronDist() {
  const fromEnv = process.env.SKILLDESK_ELECTRON_DIST;
  if (fromEnv) {
    const p = resolve(fromEnv);
    if (existsSync(p)) return p;
    missing.push(`SKILLDESK_ELECTRON_DIST=${fromEnv} does not exist.`);
    return null;
  }
  const installed = join(root, 'node_modules', 'electron', 'dist');
  if (existsSync(join(installed, 'electron'))) return installed;
  const cacheDirs = [process.env.ELECTRON_CACHE, join(homedir(), '.cache', 'electron')].filter(Boolean);
  for (const d of cacheDirs) {
    const zip = findFile(d, zipName);
    if (zip) return zip;
  }
  missing.push(
    `Electron ${version} for linux-${arch}: not installed (node_modules/electron/dist is empty because its ` +
      `binary could not be downloaded) and ${zipName} is in no cache (${cacheDirs.join(', ')}). ` +
      `Provide it with SKILLDESK_ELECTRON_DIST=/path/to/${zipName} (or an unpacked Electron folder), ` +
      'or run `npm install` where github.com is reachable.',
  );
  return null;
}

// 2. Electron's headers, for rebuilding better-sqlite3 against Electron's ABI.
function electronHeaders() {
  const fromEnv = process.env.SKILLDESK_ELECTRON_HEADERS;
  const candidates = [fromEnv, join(homedir(), '.electron-gyp', version)].filter(Boolean);
  for (const c of candidates) if (existsSync(join(c, 'include', 'node', 'node.h'))) return c;
  missing.push(
    `Electron ${version} headers (to rebuild better-sqlite3 for Electron): not in ~/.electron-gyp/${version}. ` +
      `Unpack https://www.electronjs.org/headers/v${version}/node-v${version}-headers.tar.gz there ` +
      '(or set SKILLDESK_ELECTRON_HEADERS to the unpacked folder).',
  );
  return null;
}

// 3. electron-builder's packaging tools.
function packagingTools() {
  const cache = process.env.ELECTRON_BUILDER_CACHE ?? join(homedir(), '.cache', 'electron-builder');
  if (!hasPrefix(join(cache, 'appimage'), 'appimage-'))
    missing.push(
      `appimagetool (electron-builder's "appimage" toolset): not in ${join(cache, 'appimage')}. Run the build ` +
        'once where github.com/electron-userland/electron-builder-binaries is reachable, or copy that cache here.',
    );
  const systemFpm = process.env.USE_SYSTEM_FPM === 'true' && onPath('fpm');
  if (!systemFpm && !hasPrefix(join(cache, 'fpm'), 'fpm-'))
    missing.push(
      `fpm (for the .deb): not in ${join(cache, 'fpm')} and USE_SYSTEM_FPM=true with fpm on PATH is not set. ` +
        'Install fpm (gem install fpm) and set USE_SYSTEM_FPM=true, or copy the cache here.',
    );
}

// 4. The DSPy sidecar, shipped as an extra resource.
const sidecarDist = join(root, 'sidecar', 'dist', 'skilldesk-sidecar');
const sidecarPython = join(root, 'sidecar', '.venv', 'bin', 'python');
function sidecar() {
  if (existsSync(sidecarDist) && statSync(sidecarDist).isDirectory()) return 'built';
  if (existsSync(sidecarPython)) return 'to-build';
  missing.push(
    'The DSPy sidecar: sidecar/dist/skilldesk-sidecar is not built and sidecar/.venv is missing. ' +
      'Run `node scripts/setup-sidecar.mjs` (Python 3.11+), then `npm run dist` builds it.',
  );
  return null;
}

const dist = electronDist();
const headers = electronHeaders();
packagingTools();
const sidecarState = sidecar();

if (missing.length > 0) {
  log(`cannot build the Linux packages here; ${missing.length} thing(s) missing:`);
  for (const m of missing) log(`  - ${m}`);
  log('Nothing was built. Everything else (npm start, web mode, the CLI, the tests) works without these.');
  process.exit(1);
}
log(`Electron: ${dist}`);
log(`Electron headers: ${headers}`);
if (checkOnly) {
  log('all inputs present (--check: not building).');
  process.exit(0);
}

function run(cmd, args, env = {}) {
  log(`$ ${[cmd, ...args].join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, env: { ...process.env, ...env } });
  if (r.status !== 0) {
    log(`failed: ${cmd} ${args[0] ?? ''} (${r.error?.message ?? `exit ${r.status}`})`);
    process.exit(1);
  }
}

if (sidecarState === 'to-build') run(process.execPath, [join(root, 'scripts', 'build-sidecar.mjs')]);
run('npm', ['run', 'build']);
run(
  'npx',
  ['electron-builder', '--linux', 'AppImage', 'deb', '--publish', 'never', `-c.electronDist=${dist}`],
  // better-sqlite3 is rebuilt against these headers instead of downloading them.
  { npm_config_nodedir: headers, npm_config_runtime: 'electron', npm_config_target: version },
);
const outDir = join(root, config.directories?.output ?? 'dist');
const built = readdirSync(outDir).filter((n) => n.endsWith('.AppImage') || n.endsWith('.deb'));
if (built.length < 2) {
  log(
    `electron-builder finished but ${outDir} holds ${built.join(', ') || 'no packages'}: expected an AppImage and a .deb.`,
  );
  process.exit(1);
}
for (const b of built)
  log(`built ${join(outDir, b)} (${(statSync(join(outDir, b)).size / 1e6).toFixed(1)} MB)`);
