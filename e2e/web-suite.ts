/**
 * One web-mode e2e suite's lifecycle, owned in one place: skip (or, in CI, fail) without Chromium,
 * start the loopback provider when given a script, start web mode on a temp home, launch headless
 * Chromium, open one page collecting its errors, go to the app, and close it all in reverse order.
 */
import { join } from 'node:path';
import type { Browser, Page, PageScreenshotOptions } from 'playwright-core';
import { afterAll, beforeAll, describe } from 'vitest';
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
  shootSchemes,
  startApp,
} from './browser.js';

/** Options of {@link describeWeb}. */
export interface WebSuiteOptions {
  /** The name a skip or a CI failure is reported under (e.g. `e2e/listing-budget`). */
  id: string;
  /** Turns of a scripted loopback provider to start first; none: no provider. */
  script?: LoopbackScriptInput;
  /** A folder web mode opens as its workspace. */
  workspace?: string;
  /** Web mode's environment (default {@link E2E_ENV}). */
  env?: NodeJS.ProcessEnv;
  /** The page's size, timeout and error handling ({@link openPage}). */
  page?: PageOptions;
  /**
   * Where the page goes once open: `chat` waits for the message box, `url` only loads the app,
   * `none` leaves it blank (default `chat`).
   */
  open?: 'chat' | 'url' | 'none';
  /** Runs after web mode starts and before the page opens: import skills, write settings. */
  setup?: (web: WebSuite) => Promise<void>;
  /** The start's timeout (default: vitest's hook timeout). */
  startTimeoutMs?: number;
}

/** What a suite's tests drive; read its members inside tests (they exist once the suite started). */
export interface WebSuite {
  readonly app: E2eApp;
  readonly browser: Browser;
  /** The loopback provider; throws when the suite was started without a script. */
  readonly provider: LoopbackProvider;
  readonly page: Page;
  /** Uncaught page errors (and console errors unless turned off), for the test to assert empty. */
  readonly problems: string[];
  /** Throw with every problem collected so far, if any. */
  assertNoProblems(): void;
}

/**
 * A `describe` whose tests share one web-mode app, one Chromium and one page. `fn` declares the
 * tests (as a `describe` body does) and reads the suite through the {@link WebSuite} it is given.
 */
export function describeWeb(name: string, opts: WebSuiteOptions, fn: (web: WebSuite) => void): void {
  const chromiumPath = findChromium();
  const skip = skipWithout(!chromiumPath && 'no Chromium found (set CHROMIUM_PATH)', opts.id);
  describe.skipIf(skip)(name, () => {
    let app: E2eApp | undefined;
    let browser: Browser | undefined;
    let provider: LoopbackProvider | null = null;
    let page: Page | undefined;
    const problems: string[] = [];
    const started = <T>(v: T | undefined, what: string): T => {
      if (v === undefined) throw new Error(`${opts.id}: ${what} is read before the suite started`);
      return v;
    };
    const web: WebSuite = {
      get app() {
        return started(app, 'the app');
      },
      get browser() {
        return started(browser, 'the browser');
      },
      get provider() {
        return started(provider ?? undefined, 'the loopback provider (give the suite a script)');
      },
      get page() {
        return started(page, 'the page');
      },
      problems,
      assertNoProblems() {
        if (problems.length > 0) throw new Error(problems.join('\n'));
      },
    };

    beforeAll(async () => {
      provider = opts.script ? await startLoopbackProvider({ script: opts.script }) : null;
      app = await startApp({ workspace: opts.workspace, env: opts.env ?? E2E_ENV });
      browser = await launch(chromiumPath!);
      await opts.setup?.(web);
      page = await openPage(browser, problems, opts.page);
      const open = opts.open ?? 'chat';
      if (open === 'chat') await gotoChat(page, app.server.url);
      else if (open === 'url') await page.goto(app.server.url);
    }, opts.startTimeoutMs);

    afterAll(async () => {
      await page?.close();
      await browser?.close();
      await app?.stop();
      await provider?.close();
    });

    fn(web);
  });
}

/**
 * Screenshot `page` as `test-artifacts/e2e/<name>.png` in its current colour scheme (`name` says
 * the size and scheme, as the other e2e screenshots are named).
 */
export async function shot(
  page: Page,
  name: string,
  options: Omit<PageScreenshotOptions, 'path'> = {},
): Promise<void> {
  await page.screenshot({ ...options, path: join(testArtifactsDir('e2e'), `${name}.png`) });
}

/** Screenshot `page` as `test-artifacts/e2e/<name>-light.png` and `-dark.png`, leaving it light. */
export function shotSchemes(page: Page, name: string): Promise<void> {
  return shootSchemes(page, testArtifactsDir('e2e'), name);
}
