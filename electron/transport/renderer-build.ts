/**
 * Web mode serves the Vite build of `renderer/` (`out/renderer`). From a source checkout it is
 * rebuilt when missing or older than its sources; a packaged app ships it prebuilt.
 */
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root (this file sits two folders down, in sources and in the Electron bundle alike). */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Where the built renderer lives. */
export function rendererOutDir(root = PROJECT_ROOT): string {
  return join(root, 'out', 'renderer');
}

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const name of readdirSync(path)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    newest = Math.max(newest, newestMtime(join(path, name)));
  }
  return newest;
}

/** `missing` (never built), `stale` (sources changed since), `fresh`, or `no-sources` (packaged). */
export function rendererBuildState(root = PROJECT_ROOT): 'missing' | 'stale' | 'fresh' | 'no-sources' {
  const index = join(rendererOutDir(root), 'index.html');
  const hasSources =
    existsSync(join(root, 'renderer', 'index.html')) && existsSync(join(root, 'vite.config.ts'));
  if (!existsSync(index)) return hasSources ? 'missing' : 'no-sources';
  if (!hasSources) return 'no-sources';
  const built = statSync(index).mtimeMs;
  const inputs = ['renderer', 'vite.config.ts', join('electron', 'contract'), join('electron', 'rpc')].map(
    (p) => newestMtime(join(root, p)),
  );
  return Math.max(...inputs) > built ? 'stale' : 'fresh';
}

/**
 * Build the renderer with Vite into a temporary folder, then swap it in, so a server reading
 * the old build never sees a half-written one.
 */
export async function buildRenderer(root = PROJECT_ROOT): Promise<void> {
  const { build } = await import('vite');
  const out = rendererOutDir(root);
  const tmp = `${out}.tmp-${process.pid}-${Date.now()}`;
  try {
    await build({
      configFile: join(root, 'vite.config.ts'),
      logLevel: 'warn',
      build: { outDir: tmp, emptyOutDir: true },
    });
    rmSync(out, { recursive: true, force: true });
    renameSync(tmp, out);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Build when missing or stale; returns what was done. */
export async function ensureRenderer(root = PROJECT_ROOT): Promise<'built' | 'fresh' | 'no-sources'> {
  const state = rendererBuildState(root);
  if (state === 'fresh' || state === 'no-sources') return state;
  await buildRenderer(root);
  return 'built';
}
