// No internal names where a model or a run is named: a run in the Composer, its trace in the list
// and in the detail name the model by the provider's label ("Alpha · alpha-small", never
// `alpha:alpha-small` or a provider id) and title the trace by skill and where it ran (never a
// UUID). Screenshots at 1440×900 and 1024×700, light and dark, under test-artifacts/e2e.
import { expect as pw } from '@playwright/test';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWithout, testArtifactsDir } from '../electron/test-support/index.js';
import { type E2eApp, type E2eSuite, findChromium, gotoChat, openPage, startSuite } from './browser.js';

const chromiumPath = findChromium();
const skip = skipWithout(
  !chromiumPath && 'no Chromium found (set CHROMIUM_PATH, or install it: apt-get install -y chromium)',
  'e2e/model-labels',
);
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

describe.skipIf(skip)('models named by their provider, traces by skill and chat', () => {
  let suite: E2eSuite;
  let browser: Browser;
  let app: E2eApp;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    suite = await startSuite(chromiumPath!, {
      script: {
        turns: [
          {
            text: 'Rain taps the window.',
            usage: { input_tokens: 40, output_tokens: 6 },
            expect: { model: 'alpha-small' },
          },
        ],
        api_key: 'sk-alpha',
        models: ['alpha-small'],
      },
    });
    ({ app, browser } = suite);
    // Console errors are not counted: the Composer's editor sets inline styles the CSP refuses
    // (a known, harmless report that composer-agent also leaves out); page errors still count.
    page = await openPage(browser, problems, { timeoutMs: 20_000, consoleErrors: false });
    await gotoChat(page, app.server.url);
  }, 120_000);
  afterAll(() => suite?.close());

  it('names the model "Alpha · alpha-small" in a run, its trace and the trace list', async () => {
    await page.getByRole('button', { name: 'Pick a provider' }).click();
    await page.getByLabel('Provider', { exact: true }).selectOption('openai-compatible');
    await page.getByLabel('Name', { exact: true }).fill('Alpha');
    await page.getByLabel('Base URL').fill(suite.provider!.url);
    await page.getByRole('button', { name: 'Use this provider' }).click();
    await page.getByText('Provider saved.').waitFor();
    await page.getByLabel('Alpha API key').fill('sk-alpha');
    await page.getByRole('button', { name: 'Save key' }).click();
    await page.getByText('Key saved.').waitFor();
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page.getByText(/Connected to/).waitFor();

    // A prompt skill run from the Composer, by keyboard where the path has keys.
    await page.keyboard.press('Control+3');
    await page.getByRole('button', { name: 'New', exact: true }).click();
    await page.getByRole('button', { name: /Prompt skill/ }).click();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await pw(page.getByText(/^Saved My prompt skill/)).toBeVisible();
    await page.getByRole('button', { name: 'Fill variables' }).click();
    const context = page.getByRole('textbox', { name: 'Test context', exact: true });
    await context.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('{"topic": "rain"}');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const result = page.locator('.sc-result').first();
    await pw(result).toContainText('Rain taps the window.', { timeout: 60_000 });
    await pw(result).toContainText('Alpha · alpha-small');
    await pw(result).not.toContainText('alpha:alpha-small');
    const skill = 'My prompt skill';

    // The trace: titled by skill and where it ran, the model by its provider's label.
    await page.keyboard.press('Control+5');
    const rows = page.getByRole('listbox', { name: 'Traces' }).getByRole('option');
    await expect.poll(() => rows.count()).toBe(1);
    await pw(rows.first()).toContainText(skill);
    await pw(rows.first()).toContainText('Composer test run');
    await page.getByRole('listbox', { name: 'Traces' }).focus();
    await page.keyboard.press('Home');
    const detail = page.getByRole('region', { name: 'Trace detail' });
    await pw(detail.getByRole('heading', { level: 2 })).toHaveText(`${skill} · Composer test run`);
    await pw(detail).toContainText('Alpha · alpha-small');
    const text = (await page.locator('.traces').textContent()) ?? '';
    expect(text).not.toMatch(UUID);
    expect(text).not.toContain('alpha:alpha-small');
    // The session filter offers where runs came from in words.
    await pw(page.getByRole('combobox', { name: /Session|Chat/ }).first()).toContainText('Composer test run');

    const dir = testArtifactsDir('e2e');
    for (const [w, h] of [
      [1440, 900],
      [1024, 700],
    ] as const) {
      await page.setViewportSize({ width: w, height: h });
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.screenshot({ path: `${dir}/model-labels-traces-${w}-${scheme}.png` });
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1440, height: 900 });
    expect(problems).toEqual([]);
  }, 180_000);
});
