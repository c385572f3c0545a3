/**
 * Where the code decides by a kind's or a built-in tool's name instead of asking its registry
 * (`KIND_FACTS`/`KINDS`, `BUILTIN_TOOLS`/`TOOL_MODULES`): string literals naming one, outside
 * `electron/kinds/`, `electron/tools/`, `electron/contract/` and tests. The words some kinds share
 * with English ('description', 'example', 'resource', 'approach') count only where compared
 * (`=== 'example'`, `case 'example':`, `kind: 'example'`); the other names count anywhere.
 *
 * Provider ids are guarded the same way against `PROVIDER_FACTS`: outside `electron/contract/`,
 * `electron/llm/` and tests, both as string literals and as object keys (`openai: 'OpenAI'`, a
 * hand-kept map the compiler cannot hold to the table).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { BUILTIN_TOOLS } from '../contract/builtin-tools.js';
import { ARTIFACT_KINDS } from '../contract/kinds.js';
import { PROVIDER_KIND_IDS } from '../contract/providers.js';

const ENGLISH = new Set(['description', 'example', 'resource', 'approach']);
const SOURCE = /\.(ts|tsx)$/;
const EXEMPT = [/^electron\/(kinds|tools|contract|test-support)\//, /\.test\.tsx?$/, /\.d\.ts$/];
const PROVIDER_EXEMPT = [/^electron\/(llm|contract|test-support)\//, /\.test\.tsx?$/, /\.d\.ts$/];
/**
 * Provider ids that are also other things' names as bare object keys: `google` is a Python module
 * in the native runtime's import map. They still count as string literals.
 */
const COMMON_KEYS = new Set(['google']);

/** Every name the guard looks for: the kinds and the built-in tools. */
export function guardedNames(): string[] {
  return [...ARTIFACT_KINDS, ...Object.keys(BUILTIN_TOOLS)];
}

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...files(path));
    else if (SOURCE.test(name)) out.push(path);
  }
  return out;
}

/** Literal occurrences in one source text. */
export function countLiterals(source: string, names: readonly string[] = guardedNames()): number {
  let n = 0;
  for (const name of names) {
    const q = `['"\`]${name}['"\`]`;
    const re = ENGLISH.has(name)
      ? new RegExp(`(?:[!=]==?\\s*${q}|${q}\\s*[!=]==?|case\\s+${q}|\\bkind\\s*:\\s*${q})`, 'g')
      : new RegExp(q, 'g');
    n += source.match(re)?.length ?? 0;
  }
  return n;
}

function countIn(
  root: string,
  dirs: readonly string[],
  exempt: readonly RegExp[],
  count: (source: string) => number,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const dir of dirs) {
    for (const path of files(join(root, dir))) {
      const rel = relative(root, path).split(sep).join('/');
      if (exempt.some((re) => re.test(rel))) continue;
      const n = count(readFileSync(path, 'utf8'));
      if (n) out[rel] = n;
    }
  }
  return out;
}

/** Per file (relative to `root`, `/`-separated), how many literals it holds; files with none left out. */
export function literalCounts(
  root: string,
  dirs: readonly string[] = ['electron', 'renderer'],
): Record<string, number> {
  const names = guardedNames();
  return countIn(root, dirs, EXEMPT, (source) => countLiterals(source, names));
}

/**
 * Per file, how many kind names (only) it holds outside `electron/kinds/`, `electron/tools/`,
 * `electron/contract/` and tests: the part of {@link literalCounts} a kind's hooks can remove.
 */
export function kindLiteralCounts(
  root: string,
  dirs: readonly string[] = ['electron', 'renderer'],
): Record<string, number> {
  const names = [...ARTIFACT_KINDS];
  return countIn(root, dirs, EXEMPT, (source) => countLiterals(source, names));
}

/** Provider ids named in one source text: as string literals, or as an object's bare keys. */
export function countProviderLiterals(source: string): number {
  let n = 0;
  for (const id of PROVIDER_KIND_IDS) {
    n += source.match(new RegExp(`['"\`]${id}['"\`]`, 'g'))?.length ?? 0;
    if (!COMMON_KEYS.has(id) && /^[a-z]+$/.test(id))
      n += source.match(new RegExp(`^\\s*${id}\\s*:`, 'gm'))?.length ?? 0;
  }
  return n;
}

/** Per file, how many provider ids it names outside the contract, the model layer and tests. */
export function providerLiteralCounts(
  root: string,
  dirs: readonly string[] = ['electron', 'renderer'],
): Record<string, number> {
  return countIn(root, dirs, PROVIDER_EXEMPT, countProviderLiterals);
}
