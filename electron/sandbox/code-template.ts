import { Environment } from 'minijinja-js';
import { z } from 'zod';
import { AppError } from '../contract/errors.js';
import { createSandboxHost, type SandboxHostDeps } from './host-functions.js';
import type { SandboxLimitsOverride } from './limits.js';
import { SandboxLimitsOverrideSchema } from './limits.js';
import type { SandboxPool } from './pool.js';
import type { SandboxHost, SandboxRunResult } from './types.js';

const MAX_DEPTH = 64;
const MAX_LITERAL_CHARS = 4 * 1024 * 1024;
const TEMPLATE_FUEL = 5_000_000;

/**
 * A Python literal for a JSON-like value, safe wherever a template puts it: strings keep only
 * `[A-Za-z0-9 _.,:/-]` as themselves and escape every other character (`\xNN`, `\uNNNN`,
 * `\UNNNNNNNN`), so a value can never close a quote, start a new line or a comment, or form a
 * call — even if the template places it inside a string of its own.
 */
export function pyLiteral(value: unknown, depth = 0): string {
  if (depth > MAX_DEPTH)
    throw new AppError('TEMPLATE_RENDER', 'value nested too deeply for a Python literal');
  if (value === null || value === undefined) return 'None';
  switch (typeof value) {
    case 'boolean':
      return value ? 'True' : 'False';
    case 'bigint':
      return value < 0n ? `(${value})` : String(value);
    case 'number':
      if (Number.isNaN(value)) return '(1e999-1e999)';
      if (!Number.isFinite(value)) return value > 0 ? '1e999' : '(-1e999)';
      return value < 0 || Object.is(value, -0) ? `(${String(value)})` : String(value);
    case 'string':
      return pyString(value);
    case 'object': {
      if (value instanceof Map) {
        const parts = [...value].map(
          ([k, v]) => `${pyLiteral(String(k), depth + 1)}: ${pyLiteral(v, depth + 1)}`,
        );
        return `{${parts.join(', ')}}`;
      }
      if (Array.isArray(value)) return `[${value.map((v) => pyLiteral(v, depth + 1)).join(', ')}]`;
      if (value instanceof Date) return pyString(value.toISOString());
      const parts = Object.entries(value as Record<string, unknown>).map(
        ([k, v]) => `${pyString(k)}: ${pyLiteral(v, depth + 1)}`,
      );
      return `{${parts.join(', ')}}`;
    }
    default:
      throw new AppError('TEMPLATE_RENDER', `a ${typeof value} cannot be inserted into Python code`);
  }
}

function pyString(s: string): string {
  if (s.length > MAX_LITERAL_CHARS)
    throw new AppError('TEMPLATE_RENDER', 'a value is too long to insert into Python code');
  let out = "'";
  for (const ch of s) {
    if (/^[A-Za-z0-9 _.,:/-]$/.test(ch)) {
      out += ch;
      continue;
    }
    const cp = ch.codePointAt(0)!;
    if (cp < 0x100) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return `${out}'`;
}

/**
 * Rewrite a template so every `{{ expr }}` goes through the `py` filter (values become Python
 * literals, never raw text). A placeholder alone inside quotes (`'{{ x }}'`, the design's own
 * examples) loses those quotes, as the literal brings its own. `{% raw %}` blocks are left alone.
 */
export function literalizeTemplate(source: string): string {
  let out = '';
  let i = 0;
  while (i < source.length) {
    const raw = /\{%-?\s*raw\s*-?%\}/y;
    raw.lastIndex = i;
    if (raw.test(source)) {
      const end = /\{%-?\s*endraw\s*-?%\}/g;
      end.lastIndex = raw.lastIndex;
      const m = end.exec(source);
      const stop = m ? end.lastIndex : source.length;
      out += source.slice(i, stop);
      i = stop;
      continue;
    }
    if (source.startsWith('{#', i)) {
      const stop = source.indexOf('#}', i + 2);
      const e = stop < 0 ? source.length : stop + 2;
      out += source.slice(i, e);
      i = e;
      continue;
    }
    if (source.startsWith('{{', i)) {
      const close = findExpressionEnd(source, i + 2);
      if (close < 0) {
        out += source.slice(i);
        break;
      }
      let inner = source.slice(i + 2, close);
      const leftTrim = inner.startsWith('-') ? '-' : '';
      if (leftTrim) inner = inner.slice(1);
      const rightTrim = inner.endsWith('-') ? '-' : '';
      if (rightTrim) inner = inner.slice(0, -1);
      out += `{{${leftTrim} (${inner.trim()})|py ${rightTrim}}}`;
      i = close + 2;
      continue;
    }
    out += source[i];
    i++;
  }
  // '{{ x }}' and "{{ x }}" → {{ x }}: the literal is quoted already.
  return out.replace(/(?<!['"\\])(['"])(\{\{-? \((?:(?!\}\})[^\n])*?\)\|py -?\}\})\1(?!['"])/g, '$2');
}

/** Index of the `}}` closing an expression opened before `from`, skipping string literals. */
function findExpressionEnd(s: string, from: number): number {
  let quote: string | null = null;
  for (let j = from; j < s.length - 1; j++) {
    const c = s[j]!;
    if (quote) {
      if (c === '\\') j++;
      else if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '}' && s[j + 1] === '}') return j;
  }
  return -1;
}

/**
 * Render a code template: MiniJinja with strict undefined variables and a fuel bound, every
 * `{{ … }}` output as an escaped Python literal. Throws `TEMPLATE_SYNTAX` / `TEMPLATE_RENDER`.
 */
export function renderCodeTemplate(source: string, variables: Record<string, unknown>): string {
  checkVariables(variables);
  // A fresh Environment per render: a panic inside the WASM leaves an Environment unusable.
  const env = new Environment();
  env.undefinedBehavior = 'strict';
  env.fuel = TEMPLATE_FUEL;
  env.debug = true;
  let filterError: unknown = null;
  env.addFilter('py', (v: unknown) => {
    try {
      if (v === undefined)
        throw new AppError('TEMPLATE_RENDER', 'code template: a variable it uses is undefined');
      return pyLiteral(v);
    } catch (e) {
      filterError ??= e;
      return 'None';
    }
  });
  const prepared = literalizeTemplate(source);
  try {
    env.addTemplate('code_template', prepared);
  } catch (e) {
    throw new AppError('TEMPLATE_SYNTAX', `code template: ${(e as Error).message}`);
  }
  let rendered: string;
  try {
    rendered = env.renderTemplate('code_template', structuredClone(variables));
  } catch (e) {
    throw new AppError('TEMPLATE_RENDER', `code template: ${(e as Error).message}`);
  } finally {
    try {
      env.free();
    } catch {
      // already gone
    }
  }
  if (filterError) throw filterError;
  if (Buffer.byteLength(rendered) > MAX_RENDERED_CODE_BYTES) {
    throw new AppError(
      'TOO_LARGE',
      `code template: the rendered program is larger than ${MAX_RENDERED_CODE_BYTES / 1048576} MiB (limit: rendered code size); pass large data through the workspace or host functions instead`,
      { limit: 'rendered_code_bytes', max: MAX_RENDERED_CODE_BYTES },
    );
  }
  return rendered;
}

/** Largest program a code template may render to (the size `run-code` accepts). */
export const MAX_RENDERED_CODE_BYTES = 4 * 1024 * 1024;
/** Deepest nesting and largest size (as JSON text, roughly) of the variables a template gets. */
export const MAX_VARIABLES_DEPTH = 64;
export const MAX_VARIABLES_BYTES = 16 * 1024 * 1024;

/**
 * Refuse variables nested deeper or larger than the limits before they are cloned and handed to
 * the engine (both recurse: a context nested 10,000 deep would overflow the stack). Iterative, so
 * it cannot overflow itself; a cycle counts as too deep.
 */
function checkVariables(variables: unknown): void {
  let bytes = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value: variables, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (typeof value === 'string') bytes += value.length + 2;
    else bytes += 8;
    if (bytes > MAX_VARIABLES_BYTES) {
      throw new AppError(
        'INVALID_INPUT',
        `code template: the variables are larger than ${MAX_VARIABLES_BYTES / 1048576} MiB (limit: context size)`,
        { limit: 'context_bytes', max: MAX_VARIABLES_BYTES },
      );
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_VARIABLES_DEPTH) {
      throw new AppError(
        'INVALID_INPUT',
        `code template: the variables are nested more than ${MAX_VARIABLES_DEPTH} levels deep (limit: context depth); flatten them`,
        { limit: 'context_depth', max: MAX_VARIABLES_DEPTH },
      );
    }
    const children = Array.isArray(value) ? value : Object.values(value as Record<string, unknown>);
    for (const child of children) stack.push({ value: child, depth: depth + 1 });
  }
}

/** Artifact metadata understood by the code_template handler. */
export const CodeTemplateMetadataSchema = SandboxLimitsOverrideSchema.extend({
  /** `false`: the content is plain Python (imported scripts), not a template. */
  template: z.boolean().optional(),
}).loose();

/** A code_template artifact as the handler needs it. */
export interface CodeTemplateArtifact {
  content: string;
  metadata?: Record<string, unknown> | null;
}

/** Options of {@link runCodeTemplate}. */
export interface CodeTemplateOptions {
  /** Host functions for this run; built from `hostDeps` when absent. */
  host?: SandboxHost;
  /** Workspace and LLM for the default host functions. */
  hostDeps?: SandboxHostDeps;
  /** Caller overrides (e.g. `--timeout-ms`); win over the artifact's metadata. */
  limits?: SandboxLimitsOverride;
  onCheckpoint?: (data: unknown) => void;
  /** Fair-queue key: the chat the run belongs to (see SandboxRunOptions.queue). */
  queue?: string;
  /** Stops the run (the chat's Stop): the interpreter is interrupted, or the queued run dropped. */
  signal?: AbortSignal;
}

/** The outcome of a code_template run: the sandbox result plus what was rendered. */
export interface CodeTemplateResult extends SandboxRunResult {
  rendered_code: string;
  render_ms: number;
}

/**
 * The code_template handler: validate the metadata, render the template (unless metadata says
 * `template: false`), run it in a fresh sandbox interpreter and return what `submit()` received,
 * with stdout, timing, LLM usage and errors. Python errors and broken limits are data in the
 * result; a bad template or metadata throws an AppError.
 */
export async function runCodeTemplate(
  pool: SandboxPool,
  artifact: CodeTemplateArtifact,
  variables: Record<string, unknown>,
  opts: CodeTemplateOptions = {},
): Promise<CodeTemplateResult> {
  const meta = CodeTemplateMetadataSchema.safeParse(artifact.metadata ?? {});
  if (!meta.success) {
    const issue = meta.error.issues[0];
    throw new AppError(
      'INVALID_INPUT',
      `code_template metadata ${issue?.path.join('.') ?? ''}: ${issue?.message}`,
    );
  }
  const { template, ...rest } = meta.data;
  const metaLimits = SandboxLimitsOverrideSchema.parse(rest);
  const t0 = performance.now();
  const code = template === false ? artifact.content : renderCodeTemplate(artifact.content, variables);
  const renderMs = performance.now() - t0;
  const maxLlmCalls = opts.limits?.llm_calls ?? metaLimits.llm_calls;
  const host =
    opts.host ??
    createSandboxHost({ ...opts.hostDeps, maxLlmCalls: opts.hostDeps?.maxLlmCalls ?? maxLlmCalls });
  const result = await pool.run(code, {
    limits: { ...metaLimits, ...opts.limits },
    host,
    onCheckpoint: opts.onCheckpoint,
    queue: opts.queue,
    signal: opts.signal,
  });
  return { ...result, rendered_code: code, render_ms: renderMs };
}
