import type { Environment } from 'minijinja-js';
import { AppError } from '../contract/errors.js';
import { formatBytes } from '../store/index.js';
import { MAX_MEMORY_BYTES, minijinja, recycleMinijinja } from './minijinja-instance.js';
import { templateVariables } from './template-variables.js';

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

/** What one render may cost: the size of its output and of the context it is given. */
export interface TemplateLimits {
  /** Largest rendered text, in UTF-8 bytes. */
  maxOutputBytes: number;
  /** Largest context, as JSON bytes. */
  maxContextBytes: number;
  /** Deepest nesting of objects and arrays in the context. */
  maxContextDepth: number;
}

/** Defaults: a prompt over 1 MiB is a mistake, not a prompt; contexts carry files of a few MiB. */
export const DEFAULT_TEMPLATE_LIMITS: TemplateLimits = {
  maxOutputBytes: 1024 * 1024,
  maxContextBytes: 16 * 1024 * 1024,
  maxContextDepth: 64,
};

/**
 * Refuse a context deeper or larger than the limits before it reaches the engine (whose
 * conversion recurses, so a context nested 10,000 deep would overflow the stack). Iterative, so
 * it cannot overflow itself; a cycle counts as too deep.
 */
export function checkContext(context: unknown, limits: TemplateLimits = DEFAULT_TEMPLATE_LIMITS): void {
  let bytes = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value: context, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (typeof value === 'string') bytes += value.length + 2;
    else if (value === null || typeof value !== 'object') bytes += 8;
    else {
      if (depth >= limits.maxContextDepth) {
        throw new AppError(
          'TOO_LARGE',
          `The template context is nested more than ${limits.maxContextDepth} levels deep (limit: context depth ${limits.maxContextDepth}); flatten it before rendering.`,
          { limit: 'context_depth', max: limits.maxContextDepth },
        );
      }
      const entries = Array.isArray(value) ? value : Object.entries(value as Record<string, unknown>);
      bytes += 2;
      for (const e of entries) {
        if (Array.isArray(value)) stack.push({ value: e, depth: depth + 1 });
        else {
          const [k, v] = e as [string, unknown];
          bytes += k.length + 4;
          stack.push({ value: v, depth: depth + 1 });
        }
      }
    }
    if (bytes > limits.maxContextBytes) {
      throw new AppError(
        'TOO_LARGE',
        `The template context is larger than ${formatBytes(limits.maxContextBytes)} (limit: context size); pass an excerpt or a file reference instead.`,
        { limit: 'context_size', max: limits.maxContextBytes },
      );
    }
  }
}

function outputTooLarge(limits: TemplateLimits, size: number | null): AppError {
  const grew =
    size === null
      ? `grew past the renderer's ${formatBytes(MAX_MEMORY_BYTES)} of memory`
      : `is ${formatBytes(size)}`;
  return new AppError(
    'TOO_LARGE',
    `The rendered template ${grew}, over the limit of ${formatBytes(limits.maxOutputBytes)} (limit: rendered output); render less (an excerpt, fewer loop rounds).`,
    { limit: 'rendered_output', max: limits.maxOutputBytes, ...(size === null ? {} : { size }) },
  );
}

/** A trap inside the WebAssembly (out of memory, stack overflow): the instance must not be reused. */
function isWasmTrap(e: unknown): boolean {
  return e instanceof WebAssembly.RuntimeError || e instanceof RangeError;
}

/**
 * Renders MiniJinja prompt templates (the design's `render_str`). Strict about undefined variables
 * by default; syntax and render errors carry line and column. Each call uses a fresh
 * Environment, since a panic inside the WASM leaves an Environment unusable.
 */
export class PromptEngine {
  private readonly limits: TemplateLimits;

  constructor(
    private readonly defaults: { undefined?: UndefinedMode; limits?: Partial<TemplateLimits> } = {},
  ) {
    this.limits = { ...DEFAULT_TEMPLATE_LIMITS, ...defaults.limits };
  }

  /**
   * Render `template` with `context`; throws TEMPLATE_SYNTAX or TEMPLATE_RENDER with the location,
   * TOO_LARGE (naming the limit) for a context over the limits or an output over the byte limit.
   */
  renderStr(
    template: string,
    context: Record<string, unknown>,
    opts: { undefined?: UndefinedMode; name?: string; maxOutputBytes?: number } = {},
  ): string {
    const name = opts.name ?? 'template';
    const limits = opts.maxOutputBytes
      ? { ...this.limits, maxOutputBytes: opts.maxOutputBytes }
      : this.limits;
    checkContext(context, limits);
    const plain = toPlain(context);
    const env = this.env(opts.undefined);
    let trapped = false;
    try {
      try {
        env.addTemplate(name, template);
      } catch (e) {
        if (isWasmTrap(e)) {
          // Constant parts are computed while parsing (`{{ "x" * 10**9 }}`): that is output too.
          trapped = true;
          throw outputTooLarge(limits, null);
        }
        throw templateError('TEMPLATE_SYNTAX', e, name);
      }
      let out: string;
      try {
        out = env.renderTemplate(name, plain);
      } catch (e) {
        if (isWasmTrap(e)) {
          trapped = true;
          throw outputTooLarge(limits, null);
        }
        throw templateError('TEMPLATE_RENDER', e, name);
      }
      // UTF-8 is at most 3 bytes per UTF-16 unit: only a long string needs counting.
      if (out.length * 3 > limits.maxOutputBytes) {
        const size = Buffer.byteLength(out);
        if (size > limits.maxOutputBytes) throw outputTooLarge(limits, size);
      }
      return out;
    } finally {
      if (!trapped) free(env);
      // A large render leaves the instance's memory at its peak: start the next one afresh.
      recycleMinijinja(trapped);
    }
  }

  /**
   * The variables a template reads, in the order first read, branches and filter arguments
   * included: one pass over its tags (see `templateVariables`), linear in its length.
   */
  variables(template: string): string[] {
    return templateVariables(template);
  }

  /** Check a template's syntax without rendering it (the Composer's live validation). */
  validate(template: string, name = 'template'): TemplateCheck {
    const env = this.env();
    let trapped = false;
    try {
      env.addTemplate(name, template);
      return { ok: true };
    } catch (e) {
      if (isWasmTrap(e)) trapped = true;
      const err = templateError('TEMPLATE_SYNTAX', e, name);
      return {
        ok: false,
        message: err.message,
        detail: String((e as Error).message),
        line: (err.details?.line as number | null) ?? null,
        column: (err.details?.column as number | null) ?? null,
      };
    } finally {
      if (!trapped) free(env);
      recycleMinijinja(trapped);
    }
  }

  private env(mode?: UndefinedMode): Environment {
    const env = new (minijinja().Environment)();
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
