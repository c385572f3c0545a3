/**
 * Build a component of the `skilldesk:skill` world from a JavaScript module with componentize-js,
 * offline: the world is given as WIT text (on Node 20 componentize-js cannot resolve a WIT path
 * given as a URL), and the features that would add WASI imports (stdio, random, clocks, HTTP) are
 * off, so the component imports only `host` and runs under the default grants.
 */
import { resolve } from 'node:path';
import { AppError } from '../contract/errors.js';
import { SKILL_WIT } from './components.js';

/** What a build produced. */
export interface BuiltComponent {
  bytes: Uint8Array;
  /** The host functions the module's bindings import (componentize-js imports the whole interface). */
  imports: string[];
  ms: number;
}

/**
 * Componentize the JavaScript module at `sourcePath` (an ES module exporting
 * `run(input: string): string`, throwing to fail; host functions from `skilldesk:skill/host@0.1.0`).
 */
export async function buildComponentFromJs(
  sourcePath: string,
  opts: {
    /** Keep componentize-js's WASI features (stdio, clocks, HTTP …): a component the world refuses. */ wasiFeatures?: boolean;
  } = {},
): Promise<BuiltComponent> {
  const started = performance.now();
  const { componentize } = await import('@bytecodealliance/componentize-js');
  try {
    // `witWorld` (the WIT as text) is in componentize-js's options, not yet in its type declarations.
    const options = {
      sourcePath: resolve(sourcePath),
      witWorld: SKILL_WIT,
      worldName: 'skill',
      disableFeatures: opts.wasiFeatures ? [] : ['stdio', 'random', 'clocks', 'http', 'fetch-event'],
    };
    const build = componentize as unknown as (o: typeof options) => ReturnType<typeof componentize>;
    const out = await build(options);
    return {
      bytes: out.component,
      imports: (out.imports as unknown as Array<[string, string]>).map(([iface, fn]) => `${iface}.${fn}`),
      ms: performance.now() - started,
    };
  } catch (e) {
    throw new AppError(
      'INVALID_INPUT',
      `componentize-js could not build ${sourcePath}: ${(e as Error).message}`.slice(0, 4000),
    );
  }
}
