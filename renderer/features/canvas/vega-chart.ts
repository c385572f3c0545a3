/**
 * Draw a chart file with vega-embed. Loaded on demand (a dynamic import from the canvas), so the
 * chat's bundle does not carry Vega. Expressions run in Vega's interpreter, never compiled with
 * `new Function` (the app's CSP forbids it, and the spec came from model-written code); the loader
 * refuses every fetch, and the spec was cleaned of URLs and links by {@link safeVegaSpec}.
 */
import embed from 'vega-embed';
import { expressionInterpreter } from 'vega-interpreter';
import { safeVegaSpec } from './vega-spec.js';

/** What drawing gave: how many loading keys were removed, and how to take the chart down. */
export interface DrawnChart {
  removed: number;
  finalize(): void;
}

const refuse = () => Promise.reject(new Error('a chart in SkillDesk draws only the data in its file'));

/** Draw `text` (a Vega-Lite or Vega spec) into `el`, in the app's theme. */
export async function drawChart(el: HTMLElement, text: string, dark: boolean): Promise<DrawnChart> {
  const { spec, removed, mode } = safeVegaSpec(text);
  const result = await embed(el, spec as never, {
    mode,
    actions: false,
    renderer: 'svg',
    ast: true,
    expr: expressionInterpreter,
    loader: { load: refuse, sanitize: refuse, http: refuse, file: refuse } as never,
    // The app's CSP allows no inline <style>: vega-embed's and vega-tooltip's styles are in
    // canvas.css instead.
    defaultStyle: false,
    tooltip: { disableDefaultStyle: true, theme: dark ? 'dark' : 'light' },
    ...(dark ? { theme: 'dark' as const } : {}),
  });
  return { removed, finalize: () => result.finalize() };
}
