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
import ts from 'typescript';
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

/** Whether a string literal is compared, is a `case`, or is the value of a `kind:` property. */
function decides(node: ts.Node): boolean {
  const p = node.parent;
  if (!p) return false;
  if (ts.isBinaryExpression(p)) {
    const op = p.operatorToken.kind;
    return (
      op === ts.SyntaxKind.EqualsEqualsEqualsToken ||
      op === ts.SyntaxKind.ExclamationEqualsEqualsToken ||
      op === ts.SyntaxKind.EqualsEqualsToken ||
      op === ts.SyntaxKind.ExclamationEqualsToken
    );
  }
  if (ts.isCaseClause(p)) return p.expression === node;
  if (ts.isPropertyAssignment(p)) return p.initializer === node && p.name.getText() === 'kind';
  return false;
}

/**
 * Literal occurrences in one source text: string literals (quoted or a template without
 * substitutions, in code or in a type) whose value is a guarded name. Read from the syntax tree,
 * so a name in a comment or inside a longer string is no decision and does not count.
 */
export function countLiterals(
  source: string,
  names: readonly string[] = guardedNames(),
  fileName = 'source.tsx',
): number {
  const wanted = new Set(names);
  const kind = fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, kind);
  let n = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      if (wanted.has(node.text) && (!ENGLISH.has(node.text) || decides(node))) n++;
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return n;
}

function countIn(
  root: string,
  dirs: readonly string[],
  exempt: readonly RegExp[],
  count: (source: string, file: string) => number,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const dir of dirs) {
    for (const path of files(join(root, dir))) {
      const rel = relative(root, path).split(sep).join('/');
      if (exempt.some((re) => re.test(rel))) continue;
      const n = count(readFileSync(path, 'utf8'), rel);
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
  return countIn(root, dirs, EXEMPT, (source, file) => countLiterals(source, names, file));
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
  return countIn(root, dirs, EXEMPT, (source, file) => countLiterals(source, names, file));
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
