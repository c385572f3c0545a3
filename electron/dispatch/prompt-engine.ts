import { Environment } from 'minijinja-js';
import { AppError } from '../contract/errors.js';

/** Where a template problem is, 1-based. */
export interface TemplateLocation {
  line: number | null;
  column: number | null;
}

/** The outcome of validating a template without rendering it. */
export type TemplateCheck =
  | { ok: true }
  | ({ ok: false; message: string; detail: string } & TemplateLocation);

/**
 * How undefined variables behave. `semi_strict` (default): printing or iterating an undefined
 * variable fails, while `{% if x %}`, `x is defined` and `x | default(…)` still work, so optional
 * variables stay optional. `strict`: any use fails. `lenient`: undefined renders as empty.
 */
export type UndefinedMode = 'strict' | 'semi_strict' | 'lenient' | 'chainable';
// minijinja-js 2.11 spells the semi-strict mode "semi_strct".
const MINIJINJA_MODES = {
  strict: 'strict',
  semi_strict: 'semi_strct',
  lenient: 'lenient',
  chainable: 'chainable',
} as const;

/** Bounds template execution so a hostile template cannot spin forever. */
const TEMPLATE_FUEL = 2_000_000;

/**
 * Renders MiniJinja prompt templates (the design's `render_str`). Strict about undefined variables
 * by default; syntax and render errors carry line and column. Each call uses a fresh
 * Environment, since a panic inside the WASM leaves an Environment unusable.
 */
export class PromptEngine {
  constructor(private readonly defaults: { undefined?: UndefinedMode } = {}) {}

  /** Render `template` with `context`; throws TEMPLATE_SYNTAX or TEMPLATE_RENDER with the location. */
  renderStr(
    template: string,
    context: Record<string, unknown>,
    opts: { undefined?: UndefinedMode; name?: string } = {},
  ): string {
    const name = opts.name ?? 'template';
    const env = this.env(opts.undefined);
    try {
      try {
        env.addTemplate(name, template);
      } catch (e) {
        throw templateError('TEMPLATE_SYNTAX', e, name);
      }
      try {
        return env.renderTemplate(name, toPlain(context));
      } catch (e) {
        throw templateError('TEMPLATE_RENDER', e, name);
      }
    } finally {
      free(env);
    }
  }

  /**
   * The variables a template reads, found by rendering it strictly with nothing defined, naming
   * the variable each failure reports, giving it a truthy placeholder (so `{% if x %}` branches are
   * explored too) and rendering again. minijinja-js has no `undeclared_variables`; this finds every
   * variable on the paths a truthy context takes, in the order the template first reads them.
   */
  variables(template: string, maxRounds = 64): string[] {
    const local = localNames(template);
    const found: string[] = [];
    const ctx: Record<string, unknown> = {};
    for (let round = 0; round < maxRounds; round++) {
      try {
        this.renderStr(template, ctx, { undefined: 'strict', name: 'variables' });
        break;
      } catch (e) {
        const details = (e as AppError).details ?? {};
        const variable = typeof details.variable === 'string' ? details.variable : null;
        if (!variable) break;
        const path = typeof details.expression === 'string' ? details.expression.split('.') : [variable];
        if (!found.includes(variable) && !local.has(variable)) found.push(variable);
        // A placeholder that prints, iterates, compares and supports the attribute path used.
        let node = ctx;
        for (let i = 0; i < path.length - 1; i++) {
          const key = path[i]!;
          const next = node[key];
          node[key] = next && typeof next === 'object' ? next : {};
          node = node[key] as Record<string, unknown>;
        }
        const leaf = path[path.length - 1]!;
        if (leaf in node) break; // no progress: stop rather than loop
        node[leaf] = 'x';
      }
    }
    // Filters accept undefined values without an error (`{{ x | upper }}`): add what the
    // expressions start with, read lexically.
    for (const m of template.matchAll(
      /\{\{-?\s*([A-Za-z_]\w*)|\{%-?\s*(?:if|elif)\s+(?:not\s+)?([A-Za-z_]\w*)|\{%-?\s*for\s+[\w\s,]+?\s+in\s+([A-Za-z_]\w*)/g,
    )) {
      const name = m[1] ?? m[2] ?? m[3];
      if (name && !local.has(name) && !RESERVED.has(name) && !found.includes(name)) found.push(name);
    }
    return found;
  }

  /** Check a template's syntax without rendering it (the Composer's live validation). */
  validate(template: string, name = 'template'): TemplateCheck {
    const env = this.env();
    try {
      env.addTemplate(name, template);
      return { ok: true };
    } catch (e) {
      const err = templateError('TEMPLATE_SYNTAX', e, name);
      return {
        ok: false,
        message: err.message,
        detail: String((e as Error).message),
        line: (err.details?.line as number | null) ?? null,
        column: (err.details?.column as number | null) ?? null,
      };
    } finally {
      free(env);
    }
  }

  private env(mode?: UndefinedMode): Environment {
    const env = new Environment();
    const m = mode ?? this.defaults.undefined ?? 'semi_strict';
    // An invalid value panics inside the WASM: only whitelisted modes reach it.
    env.undefinedBehavior = MINIJINJA_MODES[m] ?? 'semi_strct';
    env.debug = true;
    env.fuel = TEMPLATE_FUEL;
    return env;
  }
}

function free(env: Environment): void {
  try {
    env.free();
  } catch {
    // already released
  }
}

/** JSON round trip: templates see plain data, never class instances or functions. */
function toPlain(context: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(context ?? {})) as Record<string, unknown>;
}

/** Turn a minijinja error into an AppError with the first line as message and the location. */
export function templateError(
  code: 'TEMPLATE_SYNTAX' | 'TEMPLATE_RENDER',
  e: unknown,
  name: string,
): AppError {
  const raw = e instanceof Error ? e.message : String(e);
  const { line, column } = locate(raw, name);
  const first = raw.split('\n')[0]!.replace(/\s*\(in [^)]*\)\s*$/, '');
  const where = line ? ` at line ${line}${column ? `, column ${column}` : ''}` : '';
  if (code === 'TEMPLATE_RENDER' && /undefined value/.test(first)) {
    // Name the variable: the excerpt underlines the expression that was undefined.
    const expr = underlined(raw);
    const variable = expr ? /^[A-Za-z_][A-Za-z0-9_]*/.exec(expr)?.[0] : undefined;
    if (variable) {
      const used = expr !== variable ? ` (used as ${expr})` : '';
      return new AppError(
        code,
        `template error: "${variable}" is not defined${used}${where}: pass it in the context, or write {{ ${expr} | default('') }} to make it optional`,
        {
          line,
          column,
          template: name,
          variable,
          ...(expr && /^[A-Za-z_][\w.]*$/.test(expr) ? { expression: expr } : {}),
        },
      );
    }
  }
  const hint =
    code === 'TEMPLATE_RENDER' && /undefined value/.test(first)
      ? ' (a variable the template uses was not provided; pass it in the context)'
      : '';
  return new AppError(
    code,
    `${code === 'TEMPLATE_SYNTAX' ? 'template syntax error' : 'template error'}: ${first}${where}${hint}`,
    {
      line,
      column,
      template: name,
    },
  );
}

/** Names a template reads that are not context variables. */
const RESERVED = new Set([
  'loop',
  'true',
  'false',
  'none',
  'True',
  'False',
  'None',
  'range',
  'namespace',
  'dict',
  'super',
  'self',
  'caller',
  'varargs',
  'kwargs',
  'debug',
  'not',
]);

/** Loop variables, `set` targets and macro names and parameters a template defines itself. */
function localNames(template: string): Set<string> {
  const out = new Set<string>();
  for (const m of template.matchAll(/\{%-?\s*for\s+([\w\s,]+?)\s+in\s/g)) {
    for (const n of m[1]!.split(',')) if (n.trim()) out.add(n.trim());
  }
  for (const m of template.matchAll(/\{%-?\s*set\s+([A-Za-z_]\w*)/g)) out.add(m[1]!);
  for (const m of template.matchAll(/\{%-?\s*macro\s+([A-Za-z_]\w*)\s*\(([^)]*)\)/g)) {
    out.add(m[1]!);
    for (const p of m[2]!.split(',')) {
      const n = /^\s*([A-Za-z_]\w*)/.exec(p)?.[1];
      if (n) out.add(n);
    }
  }
  return out;
}

/** The source text the debug excerpt underlines with carets (`^^^^`), trimmed; null if none. */
function underlined(message: string): string | null {
  const lines = message.split('\n');
  const srcIdx = lines.findIndex((l) => /^\s*\d+ > /.test(l));
  if (srcIdx < 0) return null;
  const src = lines[srcIdx]!;
  const prefix = /^\s*\d+ > /.exec(src)![0].length;
  const caret = /\^+/.exec(lines[srcIdx + 1] ?? '');
  if (!caret || caret.index < prefix) return null;
  const text = src.slice(caret.index, caret.index + caret[0].length).trim();
  return text || null;
}

/** Read the line from `(in NAME:LINE)` and the column from the caret under the source excerpt. */
export function locate(message: string, name: string): TemplateLocation {
  const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const lm = new RegExp(`\\(in ${esc}:(\\d+)\\)`).exec(message);
  const line = lm ? Number(lm[1]) : null;
  let column: number | null = null;
  const lines = message.split('\n');
  const srcIdx = lines.findIndex((l) => /^\s*\d+ > /.test(l));
  if (srcIdx >= 0) {
    const prefix = /^\s*\d+ > /.exec(lines[srcIdx]!)![0].length;
    const caret = lines[srcIdx + 1] ?? '';
    const at = caret.indexOf('^');
    if (at >= prefix) column = at - prefix + 1;
  }
  return { line, column };
}
