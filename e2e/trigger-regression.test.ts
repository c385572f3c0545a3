import { expect as pw } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, skipWithout, testArtifactsDir, triggerEvalSkill } from '../electron/test-support/index.js';
import { type E2eSuite, findChromium, openPage, shootSchemes, startSuite } from './browser.js';

const chromiumPath = findChromium();
const skip = skipWithout(!chromiumPath && 'no Chromium found (set CHROMIUM_PATH)', 'e2e/trigger-regression');

describe.skipIf(skip)('a save that lowers trigger recall (Chromium)', () => {
  let suite: E2eSuite;
  beforeAll(async () => {
    suite = await startSuite(chromiumPath!);
    for (const dir of [
      triggerEvalSkill(
        'pdf-tools',
        'Fill PDF forms, merge and split PDF files, extract text and tables from PDF documents.',
        [
          { query: 'fill in the fields of this PDF form for me', should_trigger: true },
          { query: 'merge and split my files', should_trigger: true },
          { query: 'write me a haiku about the sea', should_trigger: false },
        ],
      ),
      triggerEvalSkill(
        'spreadsheet-math',
        'Compute totals, averages and pivots in Excel spreadsheets and CSV files.',
      ),
    ]) {
      const r = await runCli(['--home', suite.app.home, 'skills', 'import', '--no-embed', dir]);
      expect(r.code, r.stderr).toBe(0);
    }
  }, 120_000);
  afterAll(() => suite?.close());

  it('asks before saving, with the figures; Keep editing saves nothing, Save anyway saves', async () => {
    const problems: string[] = [];
    const page = await openPage(suite.browser, problems, { timeoutMs: 30_000 });
    await page.goto(suite.app.server.url);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await page.keyboard.press('Control+3');
    await page
      .getByRole('list', { name: 'Skills' })
      .getByRole('button', { name: /pdf-tools/ })
      .click();
    const description = page.getByRole('textbox', { name: 'Description' });
    await pw(description).toHaveValue(/merge and split/);
    await description.fill('Fill PDF forms and extract text and tables from PDF documents.');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const dialog = page.getByRole('alertdialog', { name: 'This change makes the skill fire less reliably' });
    await pw(dialog).toBeVisible();
    await pw(dialog).toContainText('recall 100% → 50%');
    await pw(dialog).toContainText('Should fire, does not (new): “merge and split my files”');
    await shootSchemes(page, testArtifactsDir('composer'), 'composer-trigger-regression-1440');
    await dialog.getByRole('button', { name: 'Keep editing' }).click();
    await pw(dialog).toBeHidden();
    await pw(page.getByText('Unsaved changes')).toBeVisible();

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await dialog.getByRole('button', { name: 'Save anyway' }).click();
    await pw(page.getByText(/Saved pdf-tools .* to the account store\./)).toBeVisible();
    if (problems.length > 0) throw new Error(problems.join('\n'));
  });
});
