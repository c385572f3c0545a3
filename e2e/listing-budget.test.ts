/**
 * The skill listing budget in Settings → Providers, in Chromium against web mode: shown with the
 * default model's context and the budget in tokens, changed from the field, kept after a reload.
 * Screenshots at 1440×900 and 1024×700, light and dark.
 */
import { expect as pw } from '@playwright/test';
import { it } from 'vitest';
import { describeWeb, shot } from './web-suite.js';

describeWeb(
  'the skill listing budget in Settings (Chromium)',
  { id: 'e2e/listing-budget', open: 'url', startTimeoutMs: 120_000 },
  (web) => {
    const openSettings = async () => {
      const page = web.page;
      await page.getByRole('button', { name: /^Settings/ }).click();
      await page.getByRole('heading', { name: 'Providers', exact: true }).waitFor();
    };

    it('shows 1% of the model context in tokens, sets another share, and keeps it', async () => {
      const page = web.page;
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
          await shot(page, `listing-budget-${w}x${h}-${scheme}`);
        }
      }
      await page.emulateMedia({ colorScheme: 'light' });
      web.assertNoProblems();
    });
  },
);
