import { expect as pw } from '@playwright/test';
import { expect, it } from 'vitest';
import { NARROW_PDF, runCli, triggerEvalSkill } from '../electron/test-support/index.js';
import { connectProvider } from './browser.js';
import { describeWeb, shotSchemes } from './web-suite.js';

const PROPOSAL = NARROW_PDF.better;

describeWeb(
  'improving a description from its trigger evals, in Chromium',
  {
    id: 'e2e/improve-triggers',
    script: [{ text: JSON.stringify(PROPOSAL) }],
    open: 'url',
    page: { timeoutMs: 30_000 },
    setup: async (web) => {
      for (const dir of [
        triggerEvalSkill(NARROW_PDF.name, NARROW_PDF.description, NARROW_PDF.triggers),
        ...NARROW_PDF.others.map(([n, d]) => triggerEvalSkill(n, d)),
      ]) {
        const r = await runCli(['--home', web.app.home, 'skills', 'import', '--no-embed', dir]);
        expect(r.code, r.stderr).toBe(0);
      }
    },
  },
  (web) => {
    it('shows the rates before and after on both parts, and puts the proposal into the editor', async () => {
      const page = web.page;
      await connectProvider(page, web.provider.url, 'sk-e2e-triggers');
      await page.keyboard.press('Control+3');
      await page
        .getByRole('complementary')
        .getByRole('button', { name: /pdf-tools/ })
        .click();
      await pw(page.getByRole('heading', { level: 2, name: 'pdf-tools' })).toBeVisible();
      await page.getByRole('button', { name: 'Evals', exact: true }).click();
      await pw(page.getByText(/9 trigger evals in/)).toBeVisible();
      await page.getByRole('button', { name: 'Improve the description from the trigger evals' }).click();
      const result = page.getByRole('status', { name: 'Proposed description' });
      await pw(result).toContainText('Better: the proposal fixes trigger evals the model saw', {
        timeout: 60_000,
      });
      await pw(result.getByRole('row', { name: /Seen by the model \(6\)/ })).toContainText('50% / 100%');
      await pw(result.getByRole('row', { name: /Seen by the model \(6\)/ })).toContainText('100% / 100%');
      await pw(result.getByRole('row', { name: /Held out \(3\)/ })).toBeVisible();
      await pw(result).toContainText(PROPOSAL.description);
      await result.scrollIntoViewIfNeeded();
      await shotSchemes(page, 'improve-triggers-1440');
      await page.setViewportSize({ width: 1024, height: 700 });
      await result.scrollIntoViewIfNeeded();
      await shotSchemes(page, 'improve-triggers-1024');
      await page.setViewportSize({ width: 1440, height: 900 });
      await result.getByRole('button', { name: 'Use in the editor' }).click();
      await pw(result.getByRole('button', { name: 'In the editor' })).toBeDisabled();
      await pw(page.getByLabel('Description', { exact: true })).toHaveValue(PROPOSAL.description);
      await pw(page.getByText('Unsaved changes')).toBeVisible();
      web.assertNoProblems();
    }, 180_000);
  },
);
