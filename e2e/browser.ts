/** Shared e2e helpers: find a Chromium, start web mode in-process on a temp home. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { startWebMode } from '../electron/cli/serve-commands.js';
import type { Logger } from '../electron/host.js';
import { ensureRenderer } from '../electron/transport/renderer-build.js';
import type { WebServer } from '../electron/transport/ws-server.js';

/** The Chromium to drive: $CHROMIUM_PATH, else the first of chromium / chromium-browser / google-chrome on PATH. */
export function findChromium(): string | null {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    try {
      const path = execFileSync('which', [name], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
      if (path && existsSync(path)) return path;
    } catch {
      // Not on PATH; try the next name.
    }
  }
  return null;
}

/** Launch headless Chromium the way CI can run it (no sandbox, no GPU, no background traffic). */
export function launch(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** Web mode started by {@link startApp}. */
export interface E2eApp {
  /** The running server (a new one after {@link restart}). */
  server: WebServer;
  home: string;
  /** Stop web mode and start it again on the same home, as quitting and reopening the app does. */
  restart: () => Promise<void>;
  stop: () => Promise<void>;
}

/**
 * The environment of web mode in these tests: chats keep the title of their first message, since
 * the scripted providers answer requests in order and a title call would take a turn meant for the
 * next step. The suite that tests automatic titles turns them on.
 */
export const E2E_ENV: NodeJS.ProcessEnv = { SKILLDESK_CHAT_TITLES: 'off' };

/** Options of {@link startApp}. */
export interface AppOptions {
  /** A folder web mode opens as its workspace. */
  workspace?: string;
  /** Web mode's environment (default {@link E2E_ENV}). */
  env?: NodeJS.ProcessEnv;
  /** Writes into the fresh home before web mode starts (e.g. an `mcp.json` it reads at start). */
  prepareHome?: (home: string) => void | Promise<void>;
}

/** Web mode over a fresh temp home (seeded skills), the UI built if needed; `workspace` opens that folder. */
export async function startApp(opts: AppOptions = {}): Promise<E2eApp> {
  await ensureRenderer();
  const home = mkdtempSync(join(tmpdir(), 'skilldesk-e2e-'));
  const logger: Logger = { info: () => {}, error: (m, e) => console.error(m, e) };
  const start = () =>
    startWebMode({
      home,
      env: opts.env ?? E2E_ENV,
      build: false,
      logger,
      ...(opts.workspace ? { workspace: opts.workspace } : {}),
    });
  let web: Awaited<ReturnType<typeof start>>;
  try {
    await opts.prepareHome?.(home);
    web = await start();
  } catch (e) {
    rmSync(home, { recursive: true, force: true });
    throw e;
  }
  const app: E2eApp = {
    server: web.server,
    home,
    restart: async () => {
      await web.stop();
      web = await start();
      app.server = web.server;
    },
    stop: async () => {
      await web.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
  return app;
}

/** Options of {@link openPage}. */
export interface PageOptions {
  width?: number;
  height?: number;
  /** Playwright's default timeout for this page (default 20 s: a loaded two-core machine needs more than 10). */
  timeoutMs?: number;
  /** Whether console errors count as problems, beside uncaught page errors (default true). */
  consoleErrors?: boolean;
  acceptDownloads?: boolean;
}

/**
 * A light-theme page (1440×900 unless told) whose uncaught errors, and console errors unless
 * turned off, are pushed to `problems`, for the test to assert empty at its end.
 */
export async function openPage(browser: Browser, problems: string[], opts: PageOptions = {}): Promise<Page> {
  const page = await browser.newPage({
    viewport: { width: opts.width ?? 1440, height: opts.height ?? 900 },
    colorScheme: 'light',
    ...(opts.acceptDownloads ? { acceptDownloads: true } : {}),
  });
  page.setDefaultTimeout(opts.timeoutMs ?? 20_000);
  page.on('pageerror', (e) => problems.push(String(e)));
  if (opts.consoleErrors ?? true) {
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
  }
  return page;
}

/** Load web mode at `url` and wait until the chat's message box is there. */
export async function gotoChat(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
}

/**
 * Set up the loopback provider the way a new user does, from the chat's empty state: pick
 * OpenAI-compatible at `baseUrl`, save `apiKey`, test the connection (which must name `model`).
 */
export async function connectProvider(
  page: Page,
  baseUrl: string,
  apiKey: string,
  model: RegExp = /Connected to/,
) {
  await page.getByRole('button', { name: 'Pick a provider' }).click();
  await page.getByLabel('Provider', { exact: true }).selectOption('openai');
  await page.getByLabel('Base URL').fill(baseUrl);
  await page.getByRole('button', { name: 'Use this provider' }).click();
  await page.getByText('Provider saved.').waitFor();
  await page.getByLabel('OpenAI API key').fill(apiKey);
  await page.getByRole('button', { name: 'Save key' }).click();
  await page.getByText('Key saved.').waitFor();
  await page.getByRole('button', { name: 'Test connection' }).click();
  await page.getByText(model).waitFor();
}

/**
 * Open the chat's Files bar (its runtime, network and folder grants are inside it) when it is
 * closed; a no-op when it is open. Returns the bar's toggle.
 */
export async function openChatFiles(page: Page) {
  const toggle = page.getByRole('region', { name: 'This chat’s files' }).locator('.chat-files__toggle');
  await toggle.waitFor();
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  await page.locator('.chat-files__access').waitFor();
  return toggle;
}
