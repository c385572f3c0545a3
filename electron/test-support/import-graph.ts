/**
 * The layering rules over the import graph of `electron/`, checked by a test (biome's
 * `noRestrictedImports` cannot say "only through the folder's index.ts"):
 * - a file of capability A imports capability B (a folder of `electron/`) only through
 *   `B/index.ts`; `contract/` is open to everyone (types and schemas). `host.ts` belongs to
 *   `host/`, `main.ts` and `preload.ts` to `shell/`. Tests and test support may reach further;
 * - only `main.ts`, `preload.ts` and `shell/` import `electron`, tests included.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** One import that breaks a rule. `from` and `to` are relative to the `electron/` folder. */
export interface LayeringViolation {
  rule: 'capability-internals' | 'electron-import';
  from: string;
  to: string;
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s(?:[^'"]*?\sfrom\s*)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
const SOURCE = /\.(ts|tsx|mts|mjs|js)$/;

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (SOURCE.test(name) && !name.endsWith('.d.ts') && !name.endsWith('.d.mts')) out.push(path);
  }
  return out;
}

/** The capability a path (relative to `electron/`, `/`-separated) belongs to, or null for none. */
function capabilityOf(path: string): string | null {
  const parts = path.split('/');
  if (parts.length > 1) return parts[0]!;
  if (path === 'host.ts') return 'host';
  if (path === 'main.ts' || path === 'preload.ts') return 'shell';
  return null;
}

const isTest = (path: string) => /\.test\.tsx?$/.test(path) || path.startsWith('test-support/');

/** Every import in `root` (the `electron/` folder) that breaks a layering rule, sorted. */
export function findLayeringViolations(root: string): LayeringViolation[] {
  const base = resolve(root);
  const found: LayeringViolation[] = [];
  for (const file of sources(base)) {
    const from = relative(base, file).split(sep).join('/');
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(IMPORT)) {
      const spec = (m[1] ?? m[2])!;
      if (spec === 'electron' || spec.startsWith('electron/')) {
        if (capabilityOf(from) !== 'shell') found.push({ rule: 'electron-import', from, to: spec });
        continue;
      }
      if (!spec.startsWith('.') || isTest(from)) continue;
      const to = relative(base, resolve(dirname(file), spec))
        .split(sep)
        .join('/');
      if (to.startsWith('..')) continue;
      const a = capabilityOf(from);
      const b = to.includes('/') ? to.split('/')[0]! : null;
      if (!b || a === b || b === 'contract' || to === `${b}/index.js`) continue;
      found.push({ rule: 'capability-internals', from, to });
    }
  }
  return found.sort((x, y) => `${x.from} ${x.to}`.localeCompare(`${y.from} ${y.to}`));
}
