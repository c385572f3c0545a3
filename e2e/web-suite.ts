/**
 * One web-mode e2e suite's lifecycle, owned in one place: skip (or, in CI, fail) without Chromium,
 * start the loopback providers when given scripts, start web mode on a temp home, launch headless
 * Chromium, open a page collecting its errors, go to the app, and close it all in reverse order.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Browser, Locator, Page, PageScreenshotOptions } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe } from 'vitest';
import type { LoopbackProvider, LoopbackScriptInput } from '../electron/llm/index.js';
import { startLoopbackProvider } from '../electron/llm/index.js';
import { skipWithout, testArtifactsDir } from '../electron/test-support/index.js';
import {
  E2E_ENV,
  type E2eApp,
  findChromium,
  gotoChat,
  launch,
  openPage,
  type PageOptions,
  startApp,
} from './browser.js';

/** Options of {@link describeWeb}; `K` names the further providers of `providers`. */
export interface WebSuiteOptions<K extends string = never> {
  /** The name a skip or a CI failure is reported under (e.g. `e2e/listing-budget`). */
  id: string;
  /**
   * Why another prerequisite of the suite is missing (e.g. a Python), or falsy when it is there:
   * the suite then skips, or fails in CI, as it does without Chromium.
   */
  missing?: string | false | null;
  /** Turns of a scripted loopback provider to start first ({@link WebSuite.provider}); none: no provider. */
  script?: LoopbackScriptInput;
  /**
   * Further scripted loopback providers by name, for a suite that talks to several servers; started
   * with `script`'s and read as `web.providers.<name>`.
   */
  providers?: Record<K, LoopbackScriptInput>;
  /** A folder web mode opens as its workspace. */
  workspace?: string;
  /**
   * Web mode's environment (default {@link E2E_ENV}); a function is called once the providers run,
   * for an environment that names one of them.
   */
  env?: NodeJS.ProcessEnv | ((web: WebSuite<K>) => NodeJS.ProcessEnv);
  /** Writes into the fresh home before web mode starts (files it reads at start, e.g. `mcp.json`). */
  prepareHome?: (home: string) => void | Promise<void>;
  /** The page's size, timeout and error handling ({@link openPage}). */
  page?: PageOptions;
  /**
   * Where the page goes once open: `chat` waits for the message box, `url` only loads the app,
   * `none` leaves it blank (default `chat`).
   */
  open?: 'chat' | 'url' | 'none';
  /**
   * Give each test a page of its own, opened (and sent where `open` says) before it and closed
   * after it, `problems` emptied in between; default: one page shared by the suite's tests.
   */
  pagePerTest?: boolean;
  /** Runs after web mode starts and before the page opens: import skills, write settings. */
  setup?: (web: WebSuite<K>) => Promise<void>;
  /** Runs last, once web mode has stopped: remove what the suite made outside its home. */
  teardown?: () => void | Promise<void>;
  /** The start's timeout (default: vitest's hook timeout). */
  startTimeoutMs?: number;
}

/** What a suite's tests drive; read its members inside tests (they exist once the suite started). */
export interface WebSuite<K extends string = never> {
  readonly app: E2eApp;
  readonly browser: Browser;
  /** The loopback provider; throws when the suite was started without a script. */
  readonly provider: LoopbackProvider;
  /** The providers of {@link WebSuiteOptions.providers}, by name. */
  readonly providers: Readonly<Record<K, LoopbackProvider>>;
  readonly page: Page;
  /** Uncaught page errors (and console errors unless turned off), for the test to assert empty. */
  readonly problems: string[];
  /** Throw with every problem collected so far, if any. */
  assertNoProblems(): void;
  /**
   * Close the page, restart web mode on the same home (what survives the app's restart) and open a
   * new page the way the first one was opened; `problems` keeps collecting.
   */
  restart(): Promise<void>;
}

/**
 * A `describe` whose tests share one web-mode app, one Chromium and one page. `fn` declares the
 * tests (as a `describe` body does) and reads the suite through the {@link WebSuite} it is given.
 */
export function describeWeb<K extends string = never>(
  name: string,
  opts: WebSuiteOptions<K>,
  fn: (web: WebSuite<K>) => void,
): void {
  const chromiumPath = findChromium();
  const skip = skipWithout(
    (!chromiumPath && 'no Chromium found (set CHROMIUM_PATH)') || opts.missing,
    opts.id,
  );
  describe.skipIf(skip)(name, () => {
    let app: E2eApp | undefined;
    let browser: Browser | undefined;
    let provider: LoopbackProvider | null = null;
    let providers: Record<K, LoopbackProvider> | undefined;
    let page: Page | undefined;
    const problems: string[] = [];
    const started = <T>(v: T | undefined, what: string): T => {
      if (v === undefined) throw new Error(`${opts.id}: ${what} is read before the suite started`);
      return v;
    };
    const web: WebSuite<K> = {
      get app() {
        return started(app, 'the app');
      },
      get browser() {
        return started(browser, 'the browser');
      },
      get provider() {
        return started(provider ?? undefined, 'the loopback provider (give the suite a script)');
      },
      get providers() {
        return started(providers, 'the providers');
      },
      get page() {
        return started(page, 'the page');
      },
      problems,
      assertNoProblems() {
        if (problems.length > 0) throw new Error(problems.join('\n'));
      },
      async restart() {
        await page?.close();
        page = undefined;
        await web.app.restart();
        await openSuitePage();
      },
    };

    const openSuitePage = async () => {
      const p = await openPage(web.browser, problems, opts.page);
      page = p;
      const open = opts.open ?? 'chat';
      if (open === 'chat') await gotoChat(p, web.app.server.url);
      else if (open === 'url') await p.goto(web.app.server.url);
    };

    beforeAll(async () => {
      provider = opts.script ? await startLoopbackProvider({ script: opts.script }) : null;
      const running = {} as Record<K, LoopbackProvider>;
      providers = running;
      for (const [key, script] of Object.entries(opts.providers ?? {}) as Array<[K, LoopbackScriptInput]>)
        running[key] = await startLoopbackProvider({ script });
      const env = typeof opts.env === 'function' ? opts.env(web) : opts.env;
      app = await startApp({ workspace: opts.workspace, env: env ?? E2E_ENV, prepareHome: opts.prepareHome });
      browser = await launch(chromiumPath!);
      await opts.setup?.(web);
      if (!opts.pagePerTest) await openSuitePage();
    }, opts.startTimeoutMs);

    if (opts.pagePerTest) {
      beforeEach(async () => {
        problems.length = 0;
        await openSuitePage();
      });
      afterEach(async () => {
        await page?.close();
        page = undefined;
      });
    }

    afterAll(async () => {
      try {
        await page?.close();
        await browser?.close();
        await app?.stop();
        await provider?.close();
        for (const p of Object.values<LoopbackProvider>(providers ?? {})) await p.close();
      } finally {
        await opts.teardown?.();
      }
    });

    fn(web);
  });
}

/** Options of {@link shot}. */
export interface ShotOptions extends Omit<PageScreenshotOptions, 'path'> {
  /** The folder under test-artifacts the screenshot goes to (default `e2e`). */
  dir?: string;
}

/**
 * Screenshot `target` (a page, or one element of it) as `test-artifacts/e2e/<name>.png` (or under
 * `dir`) in its current colour scheme (`name` says the size and scheme, as the other e2e
 * screenshots are named).
 */
export async function shot(target: Page | Locator, name: string, options: ShotOptions = {}): Promise<void> {
  const { dir = 'e2e', ...screenshot } = options;
  await target.screenshot({ ...screenshot, path: join(testArtifactsDir(dir), `${name}.png`) });
}

/**
 * Screenshot `page` as `test-artifacts/e2e/<name>-light.png` and `-dark.png` (or under `dir`),
 * animations stopped, leaving it light.
 */
export async function shotSchemes(page: Page, name: string, options: { dir?: string } = {}): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shot(page, `${name}-${scheme}`, { ...options, animations: 'disabled' });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Options of {@link shotSizes}. */
export interface ShotSizesOptions extends ShotOptions {
  /** How a size shows in the file name: `1440x900` (default) or its width alone, `1440`. */
  label?: 'size' | 'width';
  /** Runs after each switch of colour scheme, before its screenshot (e.g. to let transitions end). */
  settle?: () => Promise<unknown>;
}

/**
 * Screenshot `page` at 1440×900 and 1024×700, light and dark, as `<name>-1440x900-light.png` and
 * so on (see `label`), leaving it at 1440×900, light.
 */
export async function shotSizes(page: Page, name: string, options: ShotSizesOptions = {}): Promise<void> {
  const { label = 'size', settle, ...rest } = options;
  for (const [w, h] of [
    [1440, 900],
    [1024, 700],
  ] as const) {
    await page.setViewportSize({ width: w, height: h });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await settle?.();
      await shot(page, `${name}-${label === 'size' ? `${w}x${h}` : w}-${scheme}`, rest);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 900 });
}

/** The official MCP test server's entry script (`server-everything`, run with `node ENTRY stdio`). */
export function everythingServerEntry(): string {
  return join(
    dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
    'dist',
    'index.js',
  );
}

/**
 * A `prepareHome` that registers the official MCP test server (`server-everything`, over stdio)
 * as the home's one MCP server, named `everything`: its tools reach the model as `everything__*`.
 */
export function withEverythingServer(home: string): void {
  const entry = everythingServerEntry();
  writeFileSync(
    join(home, 'mcp.json'),
    JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [entry, 'stdio'] } } }),
  );
}
