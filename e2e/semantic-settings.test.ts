// Settings → Matching by meaning: a home whose imported skills have no e5 vector yet (imported with
// --no-embed) shows how many are pending, "Prepare … now" computes them with progress, and the card
// then says every skill can be matched by meaning; in both themes and at both sizes (screenshots
// kept under test-artifacts/e2e).
import { existsSync } from 'node:fs';
import { expect, it } from 'vitest';
import { E5_ADDON_FILE, E5_MODEL_FILE } from '../electron/activation/index.js';
import { runCli, skillFolders } from '../electron/test-support/index.js';
import { gotoChat } from './browser.js';
import { describeWeb, shot } from './web-suite.js';

const installed = existsSync(E5_MODEL_FILE) && existsSync(E5_ADDON_FILE);
if (!installed && process.env.CI)
  throw new Error(`e5 model or engine missing (${E5_MODEL_FILE}); run node scripts/setup-e5.mjs`);

/** Three skills imported without their vectors, before web mode starts. */
async function withPendingSkills(home: string): Promise<void> {
  const dirs = skillFolders([
    ['pdf-forms', 'Fill PDF forms and merge PDF files.'],
    ['sea-poems', 'Write short poems and haiku about the sea.'],
    ['budget-sheets', 'Total and average the numbers in a spreadsheet.'],
  ]);
  const r = await runCli(['--home', home, 'skills', 'import', '--no-embed', ...dirs]);
  if (r.code !== 0) throw new Error(`import failed: ${r.stderr}`);
}

describeWeb(
  'Settings: matching by meaning',
  { id: 'e2e/semantic-settings', page: { timeoutMs: 8000 }, prepareHome: withPendingSkills },
  (web) => {
    it('shows the skills still without a vector and prepares them on request', async () => {
      await web.page.setViewportSize({ width: 1440, height: 900 });
      await gotoChat(web.page, web.app.server.url);
      await web.page.getByRole('button', { name: /^Settings/ }).click();
      const card = web.page.locator('section.card', {
        has: web.page.getByRole('heading', { level: 2, name: 'Matching by meaning' }),
      });
      const status = card.getByTestId('semantic-status');
      if (!installed) {
        await expect
          .poll(() => status.textContent())
          .toMatch(/^Off\. Skills are matched by their words only/);
        return;
      }
      // The three imported skills wait; the built-in ones ship with their vectors.
      await expect.poll(() => status.textContent()).toMatch(/^On\. \d+ of \d+ skills have a vector\./);
      expect(await status.textContent()).toMatch(/The other 3 are matched by their words/);
      await card.scrollIntoViewIfNeeded();
      await shot(web.page, 'semantic-settings-pending-1440-light');
      await card.getByRole('button', { name: 'Prepare 3 skills now' }).click();
      await expect
        .poll(() => status.textContent(), { timeout: 60_000 })
        .toMatch(/^On\. All \d+ skills can be matched by meaning\./);
      await expect.poll(() => card.getByRole('button', { name: /^Prepare/ }).count()).toBe(0);
      expect(await card.textContent()).toMatch(/Models?: e5-/);
      await shot(web.page, 'semantic-settings-ready-1440-light');
      await web.page.setViewportSize({ width: 1024, height: 700 });
      await web.page.getByRole('radio', { name: /Dark/ }).click();
      await card.scrollIntoViewIfNeeded();
      await shot(web.page, 'semantic-settings-ready-1024-dark');
      await web.page.getByRole('radio', { name: /System/ }).click();
      expect(web.problems).toEqual([]);
    });
  },
);
