// A new user's first hour in Chromium (web mode): a chat is in the address, so a reload and Back
// return to it; screenshots of the chat after the reload at 1440×900 and 1024×700, light and dark.
import { join } from 'node:path';
import { expect as pw } from '@playwright/test';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWithout, testArtifactsDir } from '../electron/test-support/index.js';
import { type E2eSuite, findChromium, gotoChat, openPage, startSuite } from './browser.js';

const chromiumPath = findChromium();
const skip = skipWithout(!chromiumPath && 'no Chromium found (set CHROMIUM_PATH)', 'e2e/first-hour');
const shots = () => testArtifactsDir('e2e');

describe.skipIf(skip)('the first hour (Chromium)', () => {
  let suite: E2eSuite;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    suite = await startSuite(chromiumPath!);
    page = await openPage(suite.browser, problems, { timeoutMs: 15_000 });
    await gotoChat(page, suite.app.server.url);
  });
  afterAll(async () => {
    await page?.close();
    await suite?.close();
  });

  const composer = () => page.getByRole('textbox', { name: 'Message' });
  const thread = () => page.getByRole('log', { name: 'Messages' });
  const shoot = async (name: string) => {
    for (const [w, h] of [
      [1440, 900],
      [1024, 700],
    ] as const) {
      await page.setViewportSize({ width: w, height: h });
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.screenshot({
          path: join(shots(), `${name}-${w}x${h}-${scheme}.png`),
          animations: 'disabled',
        });
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1440, height: 900 });
  };

  it('a reload returns to the open chat, and Back to the one before', async () => {
    await composer().fill('First chat to come back to');
    await composer().press('Enter');
    await pw(thread().getByText('First chat to come back to')).toBeVisible();
    await pw(page).toHaveURL(/#chat\/[0-9a-f-]{36}$/);
    const first = new URL(page.url()).hash;

    await page.getByRole('button', { name: 'New chat' }).click();
    await pw(page).toHaveURL(/^[^#]*$/);
    await composer().fill('Second chat');
    await composer().press('Enter');
    await pw(thread().getByText('Second chat')).toBeVisible();
    await pw(page).toHaveURL(/#chat\/[0-9a-f-]{36}$/);
    const second = new URL(page.url()).hash;
    expect(second).not.toBe(first);

    await page.reload();
    await pw(thread().getByText('Second chat')).toBeVisible();
    await pw(page.locator('.session.is-on')).toContainText('Second chat');
    await pw(page).toHaveURL(new RegExp(`${second}$`));
    await shoot('first-hour-reloaded-chat');

    await page.getByRole('button', { name: 'First chat to come back to' }).click();
    await pw(thread().getByText('First chat to come back to')).toBeVisible();
    await pw(page).toHaveURL(new RegExp(`${first}$`));
    await page.goBack();
    await pw(thread().getByText('Second chat')).toBeVisible();
    await pw(page).toHaveURL(new RegExp(`${second}$`));
    expect(problems).toEqual([]);
  });
});
