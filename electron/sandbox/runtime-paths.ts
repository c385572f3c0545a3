import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding the sandbox process and worker scripts. */
export const RUNTIME_DIR = join(dirname(fileURLToPath(import.meta.url)), 'runtime');

/** The folder of the installed `pyodide` package. */
export function pyodideDir(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('pyodide/package.json'));
}
