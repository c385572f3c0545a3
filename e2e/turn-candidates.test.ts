/**
 * "Skills considered" under a user's message: phase 1's candidates with their scores
 * and matched fields, and why a named skill was not chosen — driven by the keyboard in Chromium
 * against web mode, with screenshots at 1440×900 and 1024×700, light and dark.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWithout, testArtifactsDir } from '../electron/test-support/index.js';
import { type E2eApp, type E2eSuite, findChromium, gotoChat, openPage, startSuite } from './browser.js';

const chromiumPath = findChromium();
const skip = skipWithout(!chromiumPath && 'no Chromium found (set CHROMIUM_PATH)', 'e2e/turn-candidates');
const shots = () => testArtifactsDir('e2e');

describe.skipIf(skip)('skills considered for a turn, in Chromium', () => {
  let suite: E2eSuite;
  let browser: Browser;
  let app: E2eApp;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    suite = await startSuite(chromiumPath!);
    ({ app, browser } = suite);
    page = await openPage(browser, problems);
    await gotoChat(page, app.server.url);
  });
  afterAll(() => suite?.close());

  it('lists the candidates of a turn and says why a named skill was not chosen', async () => {
    const composer = page.getByRole('textbox', { name: 'Message' });
    await composer.fill('are there any contradictions in my meeting notes?');
    await composer.press('Enter');
    const mine = page.locator('.msg--user').last();
    const summary = mine.getByText('Skills considered');
    await summary.waitFor();
    await summary.focus();
    await page.keyboard.press('Enter');
    // A small catalog fits the listing budget: the turn says the model saw all of it.
    await expect
      .poll(() => mine.locator('.p1__listing').textContent())
      .toMatch(/^Every enabled skill fit the listing budget/);
    const rows = mine.getByRole('list', { name: 'Phase-1 candidates' }).locator('.p1__row');
    await expect.poll(() => rows.count()).toBeGreaterThan(0);
    await expect.poll(() => rows.first().locator('.p1__name').textContent()).toBe('Consistency Checker');
    await expect
      .poll(() => rows.first().locator('.p1__why').textContent())
      .toMatch(/trigger phrase “are there any contradictions”/);

    const ask = mine.getByLabel('Why not…');
    await ask.fill('CSV Statistics');
    await ask.press('Enter');
    const verdict = mine.getByRole('status');
    await expect.poll(() => verdict.textContent()).toMatch(/^CSV Statistics shares no word \(nor synonym\)/);

    await page.screenshot({ path: join(shots(), 'turn-candidates-1440-light.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: join(shots(), 'turn-candidates-1440-dark.png') });
    await page.setViewportSize({ width: 1024, height: 700 });
    await mine.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots(), 'turn-candidates-1024-dark.png') });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.screenshot({ path: join(shots(), 'turn-candidates-1024-light.png') });
    expect(problems).toEqual([]);
  });
});
