// A chat's first Python run on a cold sandbox: the running tool card says the sandbox is starting
// and for how long, then the card shows the result. Screenshots at 1440 and 1024, light and dark.
import { join } from 'node:path';
import { expect as pw } from '@playwright/test';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWithout, testArtifactsDir } from '../electron/test-support/index.js';
import { type E2eSuite, findChromium, gotoChat, openPage, startSuite } from './browser.js';

const chromiumPath = findChromium();
const skip = skipWithout(
  !chromiumPath && 'no Chromium found (set CHROMIUM_PATH, or install it: apt-get install -y chromium)',
  'e2e/cold-start-card',
);

const SCRIPT = {
  api_key: 'sk-e2e-cold',
  turns: [
    {
      tool_calls: [
        { name: 'apply_skill', arguments: { name: 'CSV Statistics', ctx: { csv_text: 'a,b\n1,2\n3,4\n' } } },
      ],
    },
    { text: 'Column **a** averages 2.' },
  ],
};

async function shoot(page: Page, name: string) {
  for (const [w, h] of [
    [1440, 900],
    [1024, 700],
  ] as const) {
    await page.setViewportSize({ width: w, height: h });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({
        path: join(testArtifactsDir('chat'), `${name}-${w}-${scheme}.png`),
        animations: 'disabled',
      });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 900 });
}

describe.skipIf(skip)('cold start inside the tool card (Chromium)', () => {
  let suite: E2eSuite;
  let browser: Browser;

  beforeAll(async () => {
    suite = await startSuite(chromiumPath!, { script: SCRIPT });
    browser = suite.browser;
  });
  afterAll(() => suite?.close());

  it('says the sandbox is starting while the first Python run waits, then shows the result', async () => {
    const problems: string[] = [];
    const page = await openPage(browser, problems, { timeoutMs: 20_000 });
    await gotoChat(page, suite.app.server.url);
    await page.getByRole('button', { name: /^Settings/ }).click();
    await page.getByLabel('Provider', { exact: true }).selectOption('openai');
    await page.getByLabel('Base URL').fill(suite.provider!.url);
    await page.getByRole('button', { name: 'Use this provider' }).click();
    await page.getByText('Provider saved.').waitFor();
    await page.getByLabel('OpenAI API key').fill('sk-e2e-cold');
    await page.getByRole('button', { name: 'Save key' }).click();
    await page.getByText('Key saved.').waitFor();
    await page.keyboard.press('Control+1');
    // Words that match no Python skill: nothing starts the sandbox before the model asks for it.
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('hello there');
    await box.press('Enter');
    const line = page.locator('.step--running .step__progress');
    await pw(line).toContainText('Starting the Python sandbox…', { timeout: 60_000 });
    await shoot(page, 'cold-start-card');
    await pw(page.locator('.step--ok')).toContainText('CSV Statistics', { timeout: 120_000 });
    await pw(line).toHaveCount(0);
    expect(problems).toEqual([]);
    await page.close();
  }, 240_000);
});
