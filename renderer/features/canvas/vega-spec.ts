/**
 * A Vega-Lite (or Vega) chart file as the canvas draws it. The spec came from a Python run the model
 * wrote, so it is treated like the chat's Markdown: nothing in it may load anything (no `url` data,
 * images or fonts, no `href` links to follow) and no expression is compiled to JavaScript (the
 * canvas draws with Vega's expression interpreter). Pure: no Vega here, so it is tested alone and
 * the chat's bundle stays small (vega-embed loads only when a chart is opened).
 */

/** Keys that make Vega fetch or navigate. */
const LOADING_KEYS = new Set(['url', 'href', 'loader', 'usermeta']);
/** Nesting past which a spec is refused (a real chart is a few levels deep). */
const MAX_DEPTH = 64;

/** Whether a JSON file is a Vega-Lite or Vega spec (by its name, or by its `$schema`). */
export function isVegaSpec(fileName: string, text: string): boolean {
  if (/\.(vl|vg|vega|vegalite)\.json$/i.test(fileName)) return true;
  try {
    const v = JSON.parse(text) as { $schema?: unknown };
    return typeof v?.$schema === 'string' && /vega\.github\.io\/schema\/vega(-lite)?\//.test(v.$schema);
  } catch {
    return false;
  }
}

/** A spec ready to draw, and what was taken out of it. */
export interface SafeVegaSpec {
  spec: Record<string, unknown>;
  /** How many loading keys (`url`, `href` …) were removed. */
  removed: number;
  mode: 'vega-lite' | 'vega';
}

/** Parse and clean a chart file; throws an Error saying what is wrong with it. */
export function safeVegaSpec(text: string): SafeVegaSpec {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new Error(`This chart file is not valid JSON: ${(e as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error('This chart file is not a Vega-Lite spec (a JSON object).');
  let removed = 0;
  const clean = (v: unknown, depth: number): unknown => {
    if (depth > MAX_DEPTH) throw new Error('This chart spec is nested too deeply to draw.');
    if (Array.isArray(v)) return v.map((x) => clean(x, depth + 1));
    if (!v || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (LOADING_KEYS.has(k) || k === '__proto__') {
        removed++;
        continue;
      }
      out[k] = clean(x, depth + 1);
    }
    return out;
  };
  const spec = clean(parsed, 0) as Record<string, unknown>;
  const schema = typeof spec.$schema === 'string' ? spec.$schema : '';
  const mode = /schema\/vega\//.test(schema) ? 'vega' : 'vega-lite';
  return { spec, removed, mode };
}
