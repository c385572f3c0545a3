#!/usr/bin/env node
// Bundle the RPC peer and the sandbox protocol (electron/sandbox/runtime-peer.ts, zod included)
// into electron/sandbox/runtime/peer.bundle.mjs, the one copy the sandbox process loads: it runs
// plain JavaScript and can read nothing outside its runtime folder. The bundle is committed.
// With --check, exit 1 (writing nothing) when the committed bundle differs from a fresh build.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'electron', 'sandbox', 'runtime', 'peer.bundle.mjs');

// zod's classic API re-exports every translation of its messages as `z.locales`; the process
// only uses the English ones zod configures by default, so the others stay out of the bundle.
const noLocales = {
  name: 'zod-without-locales',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]/.test(args.importer) ? { path: 'zod-locales', namespace: 'empty' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};

const result = await build({
  absWorkingDir: root,
  entryPoints: ['electron/sandbox/runtime-peer.ts'],
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  mainFields: ['module', 'main'],
  target: 'node20',
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: 'none',
  charset: 'utf8',
  banner: {
    js: '// Generated from electron/sandbox/runtime-peer.ts by `npm run build:sandbox-peer`: do not edit.',
  },
  plugins: [noLocales],
  write: false,
  logLevel: 'warning',
});
const fresh = result.outputFiles[0].text;

if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(out, 'utf8');
  } catch {
    // missing: stale
  }
  if (committed !== fresh) {
    console.error('electron/sandbox/runtime/peer.bundle.mjs is stale: run `npm run build:sandbox-peer`');
    process.exit(1);
  }
} else {
  writeFileSync(out, fresh);
  console.log(`wrote ${out} (${fresh.length} bytes)`);
}
