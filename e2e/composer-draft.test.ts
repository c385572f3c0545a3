// The Composer's Run uses what the editor holds: a never-saved skill runs, an unsaved edit runs,
// each result says whether the draft or a saved version ran, and text output reads as Markdown.
import { expect as pw } from '@playwright/test';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWithout, testArtifactsDir } from '../electron/test-support/index.js';
import {
  type E2eApp,
  type E2eSuite,
  findChromium,
  gotoChat,
  openPage,
  shootSchemes,
  startSuite,
} from './browser.js';

const chromiumPath = findChromium();
const skip = skipWithout(
  !chromiumPath && 'no Chromium found (set CHROMIUM_PATH, or install it: apt-get install -y chromium)',
  'e2e/composer-draft',
);

/** Replace a CodeMirror editor's text (insertText: typing key by key is slow on a loaded machine). */
async function setEditor(page: Page, label: string, text: string) {
  const editor = page.getByRole('textbox', { name: label, exact: true });
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
  await pw(editor).toContainText(text.split('\n')[0]!);
}

describe.skipIf(skip)('Composer runs the draft, in Chromium', () => {
  let suite: E2eSuite;
  let browser: Browser;
  let app: E2eApp;

  beforeAll(async () => {
    suite = await startSuite(chromiumPath!);
    ({ app, browser } = suite);
  });
  afterAll(() => suite?.close());

  it('runs unsaved edits, labels draft and version, and renders text as Markdown', async () => {
    const problems: string[] = [];
    const page = await openPage(browser, problems, { timeoutMs: 30_000 });
    const shots = testArtifactsDir('composer');
    await gotoChat(page, app.server.url);
    await page.keyboard.press('Control+3');
    await page.getByRole('button', { name: 'New', exact: true }).click();
    await page.getByRole('button', { name: /Python skill/ }).click();
    await pw(page.locator('.sc-state--ok')).toHaveText('Valid');

    // Never saved, and still runnable: the draft runs.
    await pw(page.getByText(/Runs use your edits as they are/)).toBeVisible();
    await page.getByRole('button', { name: 'Fill variables' }).click();
    await setEditor(page, 'Test context', '{"text": "one two three"}');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const result = page.getByRole('article', { name: 'Result of Count words' });
    await pw(result).toContainText('draft', { timeout: 90_000 });
    await pw(result).toContainText(/words\s*3/);

    // Saved, then edited without saving: the edit is what runs.
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await pw(page.getByText(/^Saved My python skill/)).toBeVisible();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await pw(result.locator('.sc-ran')).toHaveText(/^version \d+\.\d+\.\d+$/, { timeout: 60_000 });
    await setEditor(
      page,
      'Content of Count words',
      'import skilldesk\n\ntext = {{ text }}\nskilldesk.submit({"words": len(text.split()) * 10, "characters": len(text)})\n',
    );
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await pw(result.locator('.sc-ran')).toHaveText('draft', { timeout: 60_000 });
    await pw(result).toContainText(/words\s*30/);
    await pw(result).toContainText('len(text.split()) * 10');

    // Text output (instructions injected into a chat) is rendered, not shown as raw Markdown.
    await page.getByLabel('Kind of the new artifact').selectOption('approach');
    await page.getByRole('button', { name: 'Add artifact' }).click();
    await setEditor(page, 'Content of Instructions', '## Steps\n\n- Count **every** word\n- Report `words`');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const text = page.getByRole('article', { name: 'Result of Instructions' });
    await pw(text.getByRole('heading', { name: 'Steps' })).toBeVisible();
    await pw(text.locator('.sc-md strong')).toHaveText('every');
    await pw(text.locator('.sc-ran')).toHaveText('draft');
    await shootSchemes(page, shots, 'composer-draft-run-1440');

    // Run skill runs the whole draft (both artifacts) at the smaller size.
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.getByRole('tab', { name: 'Test' }).click();
    await page.getByRole('button', { name: 'Run skill' }).click();
    await pw(page.getByRole('article', { name: 'Result of Count words' })).toContainText(/words\s*30/, {
      timeout: 60_000,
    });
    await pw(page.getByRole('article', { name: 'Result of Instructions' }).locator('.sc-ran')).toHaveText(
      'draft',
    );
    await shootSchemes(page, shots, 'composer-draft-run-1024');
    // Replacing an editor's whole text makes the code editor set a style attribute the CSP blocks
    // (reported in the console, nothing visible breaks); every other error still fails the test.
    expect(problems.filter((p) => !p.startsWith('Applying inline style violates'))).toEqual([]);
    await page.close();
  }, 240_000);
});
