#!/usr/bin/env node
// Bundle the Electron main process (ESM) and preload (CommonJS: sandboxed preloads cannot load
// ES modules) into out/electron with esbuild. npm packages stay external (electron-builder ships
// node_modules). With --dev, better-sqlite3 resolves to the copy postinstall rebuilt for
// Electron's ABI (out/native/electron), leaving the Node build for the CLI and tests.
import { cpSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dev = process.argv.includes('--dev');
const nativeCopy = join(root, 'out', 'native', 'electron', 'node_modules', 'better-sqlite3');

const plugins = [];
if (dev && existsSync(join(nativeCopy, 'package.json'))) {
  plugins.push({
    name: 'electron-native-sqlite',
    setup(b) {
      b.onResolve({ filter: /^better-sqlite3$/ }, () => ({
        path: pathToFileURL(join(nativeCopy, 'lib', 'index.js')).href,
        external: true,
      }));
    },
  });
} else if (dev) {
  console.warn(
    'build-electron: no better-sqlite3 rebuilt for Electron (out/native/electron); run `npx electron-builder install-app-deps` if the app fails to open its store',
  );
}

const common = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  sourcemap: true,
  logLevel: 'warning',
  absWorkingDir: root,
};

await build({
  ...common,
  entryPoints: ['electron/main.ts'],
  outfile: 'out/electron/main.js',
  format: 'esm',
  packages: 'external',
  plugins,
});
await build({
  ...common,
  entryPoints: ['electron/preload.ts'],
  outfile: 'out/electron/preload.cjs',
  format: 'cjs',
  external: ['electron'],
});
// The sandbox process entry and worker are plain files read at run time, next to the bundle
// (electron/sandbox/pool.ts finds them beside its own module).
cpSync(join(root, 'electron', 'sandbox', 'runtime'), join(root, 'out', 'electron', 'runtime'), {
  recursive: true,
});
console.log(`build-electron: wrote out/electron/main.js and out/electron/preload.cjs${dev ? ' (dev)' : ''}`);
