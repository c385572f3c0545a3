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

/** The source file a relative import names (`./x.js` is `./x.ts` here), or null outside `root`. */
function resolveImport(base: string, file: string, spec: string): string | null {
  const target = resolve(dirname(file), spec);
  if (relative(base, target).startsWith('..')) return null;
  for (const candidate of [target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.tsx'), target]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  return null;
}

/**
 * Import cycles that span capabilities: sets of files (relative to `electron/`, sorted) that reach
 * each other through imports — type-only imports included, since they tie the layers together as
 * much as values do — and belong to more than one capability. A cycle inside one folder is that
 * folder's business; one across folders means the layering is broken. Tests are left out.
 */
export function findImportCycles(root: string): string[][] {
  const base = resolve(root);
  const graph = new Map<string, string[]>();
  for (const file of sources(base)) {
    const rel = relative(base, file).split(sep).join('/');
    if (isTest(rel)) continue;
    const out: string[] = [];
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const spec = (m[1] ?? m[2])!;
      if (!spec.startsWith('.')) continue;
      const to = resolveImport(base, file, spec);
      if (to && !isTest(relative(base, to).split(sep).join('/'))) out.push(to);
    }
    graph.set(file, out);
  }
  // Tarjan's strongly connected components, iteratively (deep chains would overflow the stack).
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ v: string; i: number }> = [{ v: start, i: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const top = work[work.length - 1]!;
      const edges = graph.get(top.v) ?? [];
      if (top.i < edges.length) {
        const w = edges[top.i++]!;
        if (!graph.has(w)) continue;
        if (!index.has(w)) {
          index.set(w, next);
          low.set(w, next++);
          stack.push(w);
          onStack.add(w);
          work.push({ v: w, i: 0 });
        } else if (onStack.has(w)) low.set(top.v, Math.min(low.get(top.v)!, index.get(w)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.v, Math.min(low.get(parent.v)!, low.get(top.v)!));
      if (low.get(top.v) !== index.get(top.v)) continue;
      const members: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        members.push(relative(base, w).split(sep).join('/'));
      } while (w !== top.v);
      if (new Set(members.map(capabilityOf)).size > 1) cycles.push(members.sort());
    }
  }
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}
