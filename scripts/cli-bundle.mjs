// The CLI's bundle: electron/cli/main.ts and everything it imports from electron/, compiled by
// esbuild into out/cli/ (the entry skilldesk.mjs and chunks beside it) with the npm packages it
// uses. Starting it skips tsx's per-file transform and hundreds of module resolutions. Code split:
// what a command reaches only through `await import()` (the core behind `withClient`, each
// command's own modules) is a chunk loaded when that command runs, so `--help` or `skills match`
// never parse nor initialise the rest.
//
// The bundle behaves as the sources do: each source file's `import.meta.url` is replaced by that
// file's own URL, so every path a module finds beside itself (the sandbox runtime, migrations,
// the embedding model, seed skills, `createRequire`) is the same file as under tsx. It is rebuilt
// whenever a source under electron/ (or this script) is newer than it, and written atomically, so
// CLI processes started at the same time never read half a file.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CLI_BUNDLE = join(root, 'out', 'cli', 'skilldesk.mjs');
const SOURCES = join(root, 'electron');
// Packages left outside the bundle: native addons, packages that read their own wasm or data
// files, and build tools.
const EXTERNAL = [
  'better-sqlite3',
  'pyodide',
  'minijinja-js',
  'electron',
  'esbuild',
  'tsx',
  'vite',
  'playwright-core',
  // jco and componentize-js load native addons and their own wasm beside themselves.
  '@bytecodealliance/*',
];

/** The newest modification time among the bundle's inputs (sources and this script), in ms. */
function newestSource() {
  let newest = statSync(fileURLToPath(import.meta.url)).mtimeMs;
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  walk(SOURCES);
  return newest;
}

/** Whether the bundle exists and no input is newer than it. */
export function bundleFresh() {
  try {
    return statSync(CLI_BUNDLE).mtimeMs >= newestSource();
  } catch {
    return false;
  }
}

/** Build the bundle (esbuild), replacing the old one atomically. */
export async function buildCliBundle() {
  const { build } = await import('esbuild');
  const outDir = dirname(CLI_BUNDLE);
  const result = await build({
    absWorkingDir: root,
    entryPoints: { skilldesk: 'electron/cli/main.ts' },
    bundle: true,
    splitting: true,
    // Chunks sit beside the entry, so each source's `import.meta.url` (rewritten below relative
    // to out/cli/) is right in whichever file it lands.
    chunkNames: 'chunk-[hash]',
    outExtension: { '.js': '.mjs' },
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // npm packages are bundled too (module resolution was most of the start-up), except those
    // that load files or native code beside themselves, and tools the CLI never runs.
    external: [...EXTERNAL],
    // CommonJS packages in an ES module bundle call `require` for Node's built-ins.
    banner: {
      js: "import { createRequire as __skilldeskRequire } from 'node:module';\nconst require = __skilldeskRequire(import.meta.url);",
    },
    outdir: outDir,
    write: false,
    logLevel: 'silent',
    plugins: [
      {
        name: 'source-import-meta-url',
        setup(b) {
          b.onLoad({ filter: /\.ts$/ }, (args) => {
            const rel = relative(outDir, args.path).split(sep).join('/');
            const url = `new URL(${JSON.stringify(rel)}, import.meta.url).href`;
            const text = readFileSync(args.path, 'utf8').replace(/\bimport\.meta\.url\b/g, url);
            return { contents: text, loader: 'ts' };
          });
        },
      },
    ],
  });
  mkdirSync(outDir, { recursive: true });
  // Chunks first, the entry last, each written atomically: a CLI started meanwhile reads either
  // the old entry (whose chunks, named by content hash, are still there) or the whole new one.
  const outputs = result.outputFiles.filter((f) => f.path.endsWith('.mjs'));
  const entry = outputs.find((f) => f.path === CLI_BUNDLE);
  if (!entry) throw new Error(`esbuild wrote no ${CLI_BUNDLE}`);
  for (const f of [...outputs.filter((o) => o !== entry), entry]) {
    const tmp = `${f.path}.${process.pid}.tmp`;
    writeFileSync(tmp, f.contents);
    renameSync(tmp, f.path);
  }
  // Chunks of earlier builds go once they are an hour old (a process started from an older
  // entry a moment ago may still load one).
  const kept = new Set(outputs.map((f) => basename(f.path)));
  for (const name of readdirSync(outDir)) {
    if (!name.startsWith('chunk-') || kept.has(name)) continue;
    const p = join(outDir, name);
    try {
      if (Date.now() - statSync(p).mtimeMs > 3_600_000) rmSync(p, { force: true });
    } catch {
      // Removed by another build.
    }
  }
}

/**
 * The CLI's `main`: from the bundle (rebuilt first when stale), else from the sources through tsx
 * (no esbuild, or out/ not writable, as in a read-only install).
 */
export async function loadCli() {
  if (!process.env.SKILLDESK_CLI_FROM_SOURCES) {
    try {
      if (!bundleFresh()) await buildCliBundle();
      return (await import(pathToFileURL(CLI_BUNDLE).href)).main;
    } catch {
      // Fall through to the sources.
    }
  }
  const { register } = await import('tsx/esm/api');
  register();
  return (await import(pathToFileURL(join(SOURCES, 'cli', 'main.ts')).href)).main;
}
