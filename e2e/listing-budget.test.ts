/**
 * The skill listing budget in Settings → Providers, in Chromium against web mode: shown with the
 * default model's context and the budget in tokens, changed from the field, kept after a reload.
 * Screenshots at 1440×900 and 1024×700, light and dark.
 */
import { join } from 'node:path';
import { expect as pw } from '@playwright/test';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { skipWithout, testArtifactsDir } from '../electron/test-support/index.js';
import { type E2eSuite, findChromium, openPage, startSuite } from './browser.js';

const chromiumPath = findChromium();
const skip = skipWithout(!chromiumPath && 'no Chromium found (set CHROMIUM_PATH)', 'e2e/listing-budget');
const shots = () => testArtifactsDir('e2e');

describe.skipIf(skip)('the skill listing budget in Settings (Chromium)', () => {
  let suite: E2eSuite;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    suite = await startSuite(chromiumPath!);
    page = await openPage(suite.browser, problems);
    await page.goto(suite.app.server.url);
  }, 120_000);
  afterAll(async () => {
    await suite?.close();
  });

  const openSettings = async () => {
    await page.getByRole('button', { name: /^Settings/ }).click();
    await page.getByRole('heading', { name: 'Providers', exact: true }).waitFor();
  };

  it('shows 1% of the model context in tokens, sets another share, and keeps it', async () => {
    await openSettings();
    const field = page.getByLabel('Skill listing budget');
    const sum = page.getByTestId('listing-budget-sum');
    await pw(field).toHaveValue('1');
    await pw(sum).toHaveText('% of 128k tokens = 1,280 tokens');
    await field.fill('2.5');
    await pw(sum).toHaveText('% of 128k tokens = 3,200 tokens');
    await field.press('Enter');
    await page.getByText("The skill listing may take 2.5% of the model's context.").waitFor();
    await field.fill('12');
    await pw(sum).toHaveText('a number from 0 to 10');
    await pw(field).toHaveAttribute('aria-invalid', 'true');
    await field.fill('2.5');
    await page.reload();
    await openSettings();
    await pw(page.getByLabel('Skill listing budget')).toHaveValue('2.5');
    await page.getByLabel('Skill listing budget').scrollIntoViewIfNeeded();
    for (const [w, h] of [
      [1440, 900],
      [1024, 700],
    ] as const) {
      await page.setViewportSize({ width: w, height: h });
      await page.getByLabel('Skill listing budget').scrollIntoViewIfNeeded();
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.screenshot({ path: join(shots(), `listing-budget-${w}x${h}-${scheme}.png`) });
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    if (problems.length > 0) throw new Error(problems.join('\n'));
  });
});
