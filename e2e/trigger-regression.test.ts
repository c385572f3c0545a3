import { expect as pw } from '@playwright/test';
import { expect, it } from 'vitest';
import { runCli, triggerEvalSkill } from '../electron/test-support/index.js';
import { describeWeb, shotSchemes } from './web-suite.js';

describeWeb(
  'a save that lowers trigger recall (Chromium)',
  {
    id: 'e2e/trigger-regression',
    page: { timeoutMs: 30_000 },
    async setup(web) {
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
        const r = await runCli(['--home', web.app.home, 'skills', 'import', '--no-embed', dir]);
        expect(r.code, r.stderr).toBe(0);
      }
    },
    startTimeoutMs: 120_000,
  },
  (web) => {
    it('asks before saving, with the figures; Keep editing saves nothing, Save anyway saves', async () => {
      await web.page.keyboard.press('Control+3');
      await web.page
        .getByRole('list', { name: 'Skills' })
        .getByRole('button', { name: /pdf-tools/ })
        .click();
      const description = web.page.getByRole('textbox', { name: 'Description' });
      await pw(description).toHaveValue(/merge and split/);
      await description.fill('Fill PDF forms and extract text and tables from PDF documents.');
      await web.page.getByRole('button', { name: 'Save', exact: true }).click();
      const dialog = web.page.getByRole('alertdialog', {
        name: 'This change makes the skill fire less reliably',
      });
      await pw(dialog).toBeVisible();
      await pw(dialog).toContainText('recall 100% → 50%');
      await pw(dialog).toContainText('Should fire, does not (new): “merge and split my files”');
      await shotSchemes(web.page, 'composer-trigger-regression-1440', { dir: 'composer' });
      await dialog.getByRole('button', { name: 'Keep editing' }).click();
      await pw(dialog).toBeHidden();
      await pw(web.page.getByText('Unsaved changes')).toBeVisible();

      await web.page.getByRole('button', { name: 'Save', exact: true }).click();
      await dialog.getByRole('button', { name: 'Save anyway' }).click();
      await pw(web.page.getByText(/Saved pdf-tools .* to the account store\./)).toBeVisible();
      web.assertNoProblems();
    });
  },
);
