/**
 * "Improve the description from the trigger evals" in the Composer, in Chromium against web mode:
 * a saved skill whose narrow description phase 1 misses merge requests for, a scripted model's
 * proposal measured before/after on the evals it saw and on the held-out third, put into the
 * editor. Screenshots at 1440×900 and 1024×700, light and dark.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as pw } from '@playwright/test';
import { expect, it } from 'vitest';
import { runCli, tempDir } from '../electron/test-support/index.js';
import { connectProvider } from './browser.js';
import { describeWeb, shotSchemes } from './web-suite.js';

const TRIGGERS = [
  { query: 'fill in the fields of this PDF form for me', should_trigger: true },
  { query: 'merge these two scanned contracts into one', should_trigger: true },
  { query: 'cut the signed agreement into separate sheets', should_trigger: true },
  { query: 'write me a haiku about the sea', should_trigger: false },
  { query: 'combine the pages of my invoices and merge them', should_trigger: true },
  { query: 'what is the capital of France', should_trigger: false },
  { query: 'extract the text from this PDF', should_trigger: true },
  { query: 'compute the average of this spreadsheet column', should_trigger: false },
  { query: 'join the quarterly reports into a single document', should_trigger: true },
];
const PROPOSAL = {
  description:
    'Fill PDF forms, merge and combine scanned pages and contracts into one file, split documents into single pages, and extract text from PDF documents.',
  trigger_phrases: ['merge scanned pages', 'split into single pages'],
};

function folder(name: string, description: string, triggers?: unknown): string {
  const dir = join(tempDir(), name);
  mkdirSync(join(dir, 'evals'), { recursive: true });
  writeFileSync(
    join(dir, 'SKILL.md'),
    `---\nname: ${name}\ndescription: ${description}\n---\n\nDo the work.\n`,
  );
  if (triggers !== undefined)
    writeFileSync(join(dir, 'evals', 'trigger-evals.json'), JSON.stringify(triggers));
  return dir;
}

describeWeb(
  'improving a description from its trigger evals, in Chromium',
  {
    id: 'e2e/improve-triggers',
    script: [{ text: JSON.stringify(PROPOSAL) }],
    open: 'url',
    page: { timeoutMs: 30_000 },
    setup: async (web) => {
      for (const dir of [
        folder('pdf-tools', 'Fill PDF forms and extract text from PDF documents.', TRIGGERS),
        folder('sea-poems', 'Write short poems and haiku about the sea, waves and sailing.'),
        folder(
          'spreadsheet-math',
          'Compute totals, averages and pivots in Excel spreadsheets and CSV files.',
        ),
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
