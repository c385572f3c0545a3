/**
 * WebAssembly components of the `skilldesk:skill` world (`wit/skill.wit`): their checks against the
 * world, and their transpiled form. The app transpiles a component with jco once, into
 * `<componentDir>/<sha256>/` (the glue `component.js`, its core modules, `meta.json`), and the
 * sandbox process runs it from there (pool.ts `runComponent`): a version of a skill never stores
 * it twice, and the cache can be dropped at any time (it is rebuilt on the next run).
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  type ComponentProblem,
  type ComponentSurface,
  checkSurface,
  describeProblems,
  HOST_INTERFACE,
  readComponentSurface,
} from '../contract/component-surface.js';
import { AppError } from '../contract/errors.js';

export {
  type ComponentProblem,
  checkSurface,
  DEFAULT_GRANTS,
  describeProblems,
  HOST_INTERFACE,
  interfaceOf,
} from '../contract/component-surface.js';

/** The world every component implements, as published in `wit/skill.wit` (a test keeps them equal). */
export const SKILL_WIT = `// The world a SkillDesk \`wasm_component\` artifact implements. A component imports \`host\` (or only
// the functions of it that it uses) and exports \`run\`; SkillDesk grants it nothing else but clocks
// and random numbers. Functions are only ever added to \`host\`, never changed or removed, so a
// component built against an earlier version of this file keeps working.
package skilldesk:skill@0.1.0;

interface host {
  /// A workspace page's Markdown by slug, title or path; none when there is no such page.
  get-page: func(slug: string) -> option<string>;
  /// One completion from the chat's model, counted against the run's \`llm_calls\` budget.
  llm-query: func(prompt: string) -> result<string, string>;
  /// A line for the run's log (its stdout in the trace), capped at the run's \`output_bytes\`.
  log: func(message: string);

  /// Full-text search of the workspace pages: a JSON array of {slug, title, snippet, …}.
  workspace-search: func(query: string, limit: u32) -> result<string, string>;
  /// Pages whose frontmatter \`type\` is \`page-type\`: a JSON array.
  get-pages-by-type: func(page-type: string, limit: u32) -> result<string, string>;
  /// The tags of one page (or of the whole workspace when \`slug\` is none): a JSON value.
  get-tags: func(slug: option<string>) -> result<string, string>;
  /// The pages linking to a page and the pages it links to: a JSON object.
  get-references: func(slug: string) -> result<string, string>;
  /// A page's revisions, newest first: a JSON array.
  get-history: func(slug: string, limit: u32) -> result<string, string>;
  /// Several prompts at once (each counts against \`llm_calls\`), answered in order.
  llm-query-batched: func(prompts: list<string>) -> result<list<string>, string>;
  /// A progress value (JSON text) recorded with the run, as Python's \`checkpoint()\`.
  checkpoint: func(data: string) -> result<_, string>;
}

world skill {
  import host;
  /// \`input\` is the artifact's variables as a JSON object; \`ok\` is the output (JSON or text),
  /// \`err\` a failed run with that message.
  export run: func(input: string) -> result<string, string>;
}
`;

/** What the Composer and `component inspect` show about a component. */
export interface ComponentInfo {
  sha256: string;
  size: number;
  imports: string[];
  exports: string[];
  /** The component's world in WIT, as jco prints it. */
  wit: string;
}

/** Read and check a component synchronously: its surface, or the problems (unreadable included). */
export function inspectComponentBytes(bytes: Uint8Array): {
  surface: ComponentSurface | null;
  problems: ComponentProblem[];
} {
  let surface: ComponentSurface;
  try {
    surface = readComponentSurface(bytes);
  } catch (e) {
    return { surface: null, problems: [{ message: (e as Error).message }] };
  }
  return { surface, problems: checkSurface(surface) };
}

/** The SHA-256 of a component's bytes, hex. */
export function componentHash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const CACHE_FORMAT = 1;

// jco's generated d.ts of the host interface gives the signature of each function the component
// imports; the world's own, as jco writes them (parameter names aside).
const HOST_SIGNATURES: Readonly<Record<string, string>> = {
  getPage: '(string): string | undefined',
  llmQuery: '(string): string',
  log: '(string): void',
  workspaceSearch: '(string, number): string',
  getPagesByType: '(string, number): string',
  getTags: '(string | undefined): string',
  getReferences: '(string): string',
  getHistory: '(string, number): string',
  llmQueryBatched: '(Array<string>): Array<string>',
  checkpoint: '(string): void',
};

/** `export function getPage(slug: string): string | undefined;` → [getPage, '(string): string | undefined']. */
function signaturesOf(dts: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of dts.matchAll(/export function (\w+)\(([^)]*)\):\s*([^;]+);/g)) {
    const params = m[2]!
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean)
      .map((p) => p.replace(/^[\w$]+\??:\s*/, ''));
    out.set(m[1]!, `(${params.join(', ')}): ${m[3]!.trim()}`);
  }
  return out;
}

/** Where a transpiled component lives, and whether it is there. */
export function componentCacheEntry(componentDir: string, sha256: string): { dir: string; ready: boolean } {
  const dir = join(componentDir, sha256);
  return { dir, ready: existsSync(join(dir, 'meta.json')) };
}

/**
 * Validate a component with jco and transpile it into `componentDir/<sha256>/` (once: an entry
 * already there is reused). Throws `INVALID_INPUT` naming the import or export that does not fit
 * the world, or the host function whose signature differs from it.
 */
export async function prepareComponent(bytes: Uint8Array, componentDir: string): Promise<ComponentInfo> {
  const { surface, problems } = inspectComponentBytes(bytes);
  if (!surface || problems.length > 0) {
    throw new AppError('INVALID_INPUT', `the component ${describeProblems(problems)}`, {
      imports: surface?.imports.map((i) => i.name) ?? [],
    });
  }
  const sha256 = componentHash(bytes);
  const entry = componentCacheEntry(componentDir, sha256);
  const done = await jcoOffThread(bytes, !entry.ready);
  if (!done.ok)
    throw new AppError(
      'INVALID_INPUT',
      `jco cannot ${done.step} the component: ${done.message}`.slice(0, 2000),
    );
  const { wit } = done;
  const info: ComponentInfo = {
    sha256,
    size: bytes.length,
    imports: surface.imports.filter((i) => i.sort !== 'type').map((i) => i.name),
    exports: surface.exports.map((e) => e.name),
    wit,
  };
  if (entry.ready || !done.files) return info;
  const out = { files: done.files };
  const hostDts = Object.entries(out.files).find(([name]) =>
    /^interfaces\/skilldesk-skill-host\.d\.ts$/.test(name),
  );
  if (hostDts) {
    for (const [fn, sig] of signaturesOf(new TextDecoder().decode(hostDts[1]))) {
      const want = HOST_SIGNATURES[fn];
      if (!want)
        throw new AppError(
          'INVALID_INPUT',
          `the component imports ${HOST_INTERFACE}.${fn}, which the world does not have`,
        );
      if (sig !== want)
        throw new AppError(
          'INVALID_INPUT',
          `the component's ${HOST_INTERFACE}.${fn} is ${sig}, not the world's ${want}`,
        );
    }
  }
  const rootDts = out.files['component.d.ts'];
  if (rootDts && !/\brun\(\w+: string\): string/.test(new TextDecoder().decode(rootDts)))
    throw new AppError(
      'INVALID_INPUT',
      'the component exports run with another signature than run: func(input: string) -> result<string, string>',
    );
  const coreModules = Object.keys(out.files).filter((f) => /^component\.core\d*\.wasm$/.test(f));
  // Written to a temporary folder and renamed: a half-written entry is never taken for a cached one.
  mkdirSync(componentDir, { recursive: true, mode: 0o700 });
  const temp = join(componentDir, `.${sha256}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    mkdirSync(temp, { mode: 0o700 });
    for (const f of [...coreModules, 'component.js']) {
      const data = out.files[f];
      if (!data) throw new AppError('INTERNAL', `jco wrote no ${f}`);
      writeFileSync(join(temp, f), data);
    }
    writeFileSync(
      join(temp, 'meta.json'),
      JSON.stringify({
        format: CACHE_FORMAT,
        sha256,
        size: bytes.length,
        core_modules: coreModules,
        imports: info.imports,
        exports: info.exports,
        wit,
      }),
    );
    try {
      renameSync(temp, entry.dir);
    } catch (e) {
      // Another process cached the same component first: theirs is as good.
      if (!componentCacheEntry(componentDir, sha256).ready) throw e;
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  return info;
}

const require = createRequire(import.meta.url);

// jco's transpile runs its own WebAssembly for seconds (5 s for a 12 MB component on a loaded
// machine): on a worker thread, so the app's main thread (the desktop's IPC, web mode's server)
// keeps answering. The worker's source is a string, as the main process is bundled into one file.
const JCO_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { pathToFileURL } = require('node:url');
(async () => {
  const jco = await import(pathToFileURL(workerData.jco).href);
  let step = 'read';
  try {
    const wit = await jco.componentWit(workerData.bytes);
    let files = null;
    if (workerData.transpile) {
      step = 'transpile';
      const out = await jco.transpile(workerData.bytes, {
        name: 'component', instantiation: 'sync', base64Cutoff: 0, quiet: true, noTypescript: false,
      });
      files = out.files;
    }
    parentPort.postMessage({ ok: true, wit, files });
  } catch (e) {
    parentPort.postMessage({ ok: false, step, message: String(e && e.message ? e.message : e) });
  }
})();
`;

type JcoResult =
  | { ok: true; wit: string; files: Record<string, Uint8Array> | null }
  | { ok: false; step: string; message: string };

function jcoOffThread(bytes: Uint8Array, transpile: boolean): Promise<JcoResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(JCO_WORKER, {
      eval: true,
      workerData: { bytes, transpile, jco: require.resolve('@bytecodealliance/jco') },
    });
    let settled = false;
    worker.once('message', (m: JcoResult) => {
      settled = true;
      resolve(m);
      void worker.terminate();
    });
    worker.once('error', (e) => {
      if (!settled) reject(e);
      settled = true;
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new AppError('INTERNAL', `the jco worker exited with code ${code}`));
      settled = true;
    });
  });
}

/** The cached facts of a transpiled component (null when it is not cached). */
export function cachedComponentInfo(componentDir: string, sha256: string): ComponentInfo | null {
  try {
    const meta = JSON.parse(readFileSync(join(componentDir, sha256, 'meta.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    if (meta.format !== CACHE_FORMAT || meta.sha256 !== sha256) return null;
    return {
      sha256,
      size: Number(meta.size),
      imports: (meta.imports as string[]) ?? [],
      exports: (meta.exports as string[]) ?? [],
      wit: String(meta.wit ?? ''),
    };
  } catch {
    return null;
  }
}
