// Settings' section list: every card's heading is listed, a section is reached by keyboard (its
// card scrolled into view and its heading focused), and the list stays usable at 1024 wide, in
// both themes (screenshots kept under test-artifacts/e2e).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { skipWithout, testArtifactsDir } from '../electron/test-support/index.js';
import { type E2eApp, type E2eSuite, findChromium, gotoChat, openPage, startSuite } from './browser.js';

const chromiumPath = findChromium();
const skip = skipWithout(
  !chromiumPath && 'no Chromium found (set CHROMIUM_PATH, or install it: apt-get install -y chromium)',
  'e2e/settings-nav',
);

describe.skipIf(skip)("Settings' section navigation", () => {
  let suite: E2eSuite;
  let browser: Browser;
  let app: E2eApp;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    suite = await startSuite(chromiumPath!);
    ({ app, browser } = suite);
  });
  afterAll(() => suite?.close());
  beforeEach(() => {
    problems = [];
  });

  for (const [width, height] of [
    [1440, 900],
    [1024, 700],
  ] as const) {
    it(`lists the sections and reaches one by keyboard at ${width}×${height}`, async () => {
      page = await openPage(browser, problems, { width, height, timeoutMs: 8000 });
      await gotoChat(page, app.server.url);
      await page.getByRole('button', { name: /^Settings/ }).click();
      const nav = page.getByRole('navigation', { name: 'Settings sections' });
      await nav.getByRole('button', { name: 'Appearance' }).waitFor();
      for (const name of ['Providers', 'Appearance']) {
        await expect.poll(() => nav.getByRole('button', { name }).count()).toBe(1);
      }
      await nav.getByRole('button', { name: 'Appearance' }).focus();
      await page.keyboard.press('Enter');
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.textContent?.trim()))
        .toBe('Appearance');
      // Scrolled into the pane (smoothly: poll until it is there).
      await expect
        .poll(() =>
          page.getByRole('heading', { level: 2, name: 'Appearance' }).evaluate((h) => {
            const r = h.getBoundingClientRect();
            return r.top >= 0 && r.bottom <= window.innerHeight;
          }),
        )
        .toBe(true);
      await expect
        .poll(() => nav.getByRole('button', { name: 'Appearance' }).getAttribute('aria-current'))
        .toBe('true');
      await page.screenshot({ path: `${testArtifactsDir('e2e')}/settings-nav-${width}-light.png` });
      await page.getByRole('radio', { name: /Dark/ }).click();
      await page.screenshot({ path: `${testArtifactsDir('e2e')}/settings-nav-${width}-dark.png` });
      await page.getByRole('radio', { name: /System/ }).click();
      expect(problems).toEqual([]);
      await page.close();
    });
  }
});
