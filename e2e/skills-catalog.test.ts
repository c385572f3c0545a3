// One skills catalog in Chromium (web mode): the Skills view imports an Agent Skills folder (the
// folder picker) and a zip (dropped on the view) through the Composer's import, searches by words
// and by meaning as chat does ("numbers in a spreadsheet" finds the spreadsheet skill, saying why),
// shows the same filters as the Composer, a skill's versions with a diff, Run (the Composer's test
// panel, Run skill focused) and Open in Composer; the Composer's header keeps a long name whole.
// Screenshots at 1440×900 and 1024×700, light and dark, under test-artifacts/e2e.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect as pw } from '@playwright/test';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { e5Status } from '../electron/activation/index.js';
import { zipFiles } from '../renderer/features/composer/files.js';
import { describeWeb, shot } from './web-suite.js';

/** Skills in the shape of Anthropic's public document skills (their SKILL.md frontmatter). */
const SKILLS: Record<string, string> = {
  xlsx: 'Comprehensive spreadsheet creation, editing, and analysis with support for formulas, formatting, data analysis, and visualization. Use when working with .xlsx, .xlsm, .csv or .tsv files.',
  docx: 'Comprehensive document creation, editing, and analysis with support for tracked changes, comments, formatting preservation, and text extraction. Use when working with .docx files.',
  pptx: 'Presentation creation, editing, and analysis. Use when working with .pptx files: creating slide decks, modifying layouts, adding speaker notes.',
  'brand-guidelines':
    "Applies the company's official brand colors and typography to any artifact that benefits from its look and feel.",
};
const LONG = 'quarterly-revenue-reconciliation-across-regional-ledgers-helper';

function skillMd(name: string, description: string, body = 'Follow these steps.'): string {
  return `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n\n# ${name}\n\n${body}\n`;
}

/** A folder per skill under a fresh temp folder; returns the folder of each. */
function writeFolders(skills: Record<string, string>): Record<string, string> {
  const root = mkdtempSync(join(tmpdir(), 'skilldesk-e2e-catalog-'));
  const out: Record<string, string> = {};
  for (const [name, description] of Object.entries(skills)) {
    const dir = join(root, name);
    mkdirSync(join(dir, 'references'), { recursive: true });
    writeFileSync(join(dir, 'SKILL.md'), skillMd(name, description));
    writeFileSync(join(dir, 'references', 'notes.md'), `# Notes for ${name}\n`);
    out[name] = dir;
  }
  return out;
}

/** Drop files (here a zip) on the Skills view as a file manager would. */
async function dropOnSkills(page: Page, files: Array<{ name: string; bytes: Uint8Array; type: string }>) {
  const payload = files.map((f) => ({
    name: f.name,
    type: f.type,
    b64: Buffer.from(f.bytes).toString('base64'),
  }));
  const dt = await page.evaluateHandle((list) => {
    const t = new DataTransfer();
    for (const f of list) {
      const bin = atob(f.b64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      t.items.add(new File([bytes], f.name, { type: f.type }));
    }
    return t;
  }, payload);
  const target = page.locator('.skills');
  await target.dispatchEvent('dragenter', { dataTransfer: dt });
  await target.dispatchEvent('dragover', { dataTransfer: dt });
  return { drop: () => target.dispatchEvent('drop', { dataTransfer: dt }) };
}

describeWeb(
  'one skills catalog (Chromium)',
  {
    id: 'e2e/skills-catalog',
    startTimeoutMs: 120_000,
    // The Composer's editor sets inline styles the CSP refuses (a known, harmless console report
    // other Composer suites leave out too); page errors still count.
    page: { timeoutMs: 30_000, consoleErrors: false },
  },
  (web) => {
    const shoot = async (name: string) => {
      for (const [w, h] of [
        [1440, 900],
        [1024, 700],
      ] as const) {
        await web.page.setViewportSize({ width: w, height: h });
        for (const scheme of ['light', 'dark'] as const) {
          await web.page.emulateMedia({ colorScheme: scheme });
          await shot(web.page, `${name}-${w}x${h}-${scheme}`, { animations: 'disabled' });
        }
      }
      await web.page.emulateMedia({ colorScheme: 'light' });
      await web.page.setViewportSize({ width: 1440, height: 900 });
    };
    const list = () => web.page.getByRole('listbox', { name: 'Skills' });
    const report = () => web.page.getByRole('region', { name: 'Import report' });
    const search = () => web.page.getByRole('combobox', { name: 'Search skills' });
    const folders = writeFolders({ ...SKILLS, [LONG]: 'Reconciles revenue figures across ledgers.' });

    it('imports an Agent Skills folder with the picker and a zip dropped anywhere on the view', async () => {
      await web.page.keyboard.press('Control+2');
      await pw(list()).toBeVisible();
      await shoot('skills-catalog-start');
      for (const name of [...Object.keys(SKILLS), LONG]) {
        await web.page.getByTestId('import-folder').setInputFiles(folders[name]!);
        await pw(report().locator('li').filter({ hasText: name }).first()).toContainText('created');
      }
      const zip = zipFiles([
        {
          path: 'pdf/SKILL.md',
          bytes: new TextEncoder().encode(
            skillMd(
              'pdf',
              'Extract text and tables from PDF files, fill PDF forms, merge and split documents.',
            ),
          ),
        },
      ]);
      const dropped = await dropOnSkills(web.page, [
        { name: 'pdf.zip', bytes: zip, type: 'application/zip' },
      ]);
      await pw(web.page.locator('.drop-overlay')).toBeVisible();
      await pw(web.page.locator('.drop-overlay')).toContainText('Agent Skills folders');
      await dropped.drop();
      await pw(report().locator('li').filter({ hasText: 'pdf' }).first()).toContainText('created');
      await pw(list().getByRole('option', { name: /^pdf/ })).toBeVisible();
      await pw(list().getByRole('option', { name: /^xlsx/ })).toBeVisible();
      expect(web.problems).toEqual([]);
    }, 180_000);

    it('finds the spreadsheet skill for "numbers in a spreadsheet" by meaning, saying why', async () => {
      await search().focus();
      await search().fill('numbers in a spreadsheet');
      // The ranking chat uses arrives after the instant word filter; the row says why it is there.
      const status = web.page.locator('.search-status');
      await pw(status).toHaveText(/Matched by words and meaning/);
      if (e5Status().available) {
        // With the sentence model installed, the search ranks with it as chat does once the new
        // skills have their vectors (computed in the background after the import).
        await expect
          .poll(
            async () => {
              await search().fill('');
              await search().fill('numbers in a spreadsheet');
              await pw(status).toHaveText(/Matched by words and meaning/);
              return status.textContent();
            },
            { timeout: 120_000, interval: 2_000 },
          )
          .toBe('Matched by words and meaning, as chat does.');
      }
      const first = list().getByRole('option').first();
      await pw(first).toContainText('xlsx');
      await pw(first.locator('.skill-row__why')).toHaveText(/spreadsheet|close in meaning/);
      // The same filters as the Composer's catalog: built-in skills only hides it.
      await web.page.getByLabel('Source', { exact: true }).selectOption('system');
      await pw(list().getByRole('option', { name: /^xlsx/ })).toHaveCount(0);
      await web.page.getByLabel('Source', { exact: true }).selectOption('all');
      await pw(list().getByRole('option').first()).toContainText('xlsx');
      // By keyboard: back to the top row (the cursor stayed where the filter left it), Enter opens it.
      await search().focus();
      await web.page.keyboard.press('PageUp');
      await web.page.keyboard.press('Enter');
      await pw(web.page.getByRole('heading', { level: 2, name: 'xlsx' })).toBeVisible();
      await shoot('skills-catalog-meaning');
      expect(web.problems).toEqual([]);
    }, 180_000);

    it("shows a skill's versions with a diff after an update", async () => {
      writeFileSync(
        join(folders.xlsx!, 'SKILL.md'),
        skillMd('xlsx', SKILLS.xlsx!, 'Follow these steps. Keep formulas, never paste values.'),
      );
      await web.page.getByTestId('import-folder').setInputFiles(folders.xlsx!);
      await pw(report().locator('li').filter({ hasText: 'xlsx' }).first()).toContainText('updated');
      const versions = web.page.locator('.skill-versions');
      await versions.locator('summary').focus();
      await web.page.keyboard.press('Enter');
      const table = versions.getByRole('region', { name: 'Versions' });
      await pw(table.locator('tbody tr')).toHaveCount(2);
      await table.getByRole('radio', { name: 'Compare from #1' }).check();
      await table.getByRole('radio', { name: 'Compare to Current' }).check();
      const diff = versions.getByRole('region', { name: 'Differences' });
      await pw(diff).toContainText('never paste values');
      await versions.scrollIntoViewIfNeeded();
      await shoot('skills-catalog-versions');
      expect(web.problems).toEqual([]);
    }, 180_000);

    it('runs it in the Composer test panel, and opens it in the Composer', async () => {
      await web.page.getByRole('button', { name: 'Run', exact: true }).click();
      await pw(web.page.locator('.sc-title')).toHaveText('xlsx');
      await pw(web.page.getByRole('button', { name: 'Run skill' })).toBeFocused();
      await web.page.keyboard.press('Enter');
      await pw(web.page.locator('.sc-result').first()).toBeVisible({ timeout: 60_000 });
      await shoot('skills-catalog-run');

      await web.page.keyboard.press('Control+2');
      await search().fill(LONG.slice(0, 20));
      await search().press('Enter');
      await pw(web.page.getByRole('heading', { level: 2, name: LONG })).toBeVisible();
      await web.page.getByRole('button', { name: 'Open in Composer' }).click();
      const title = web.page.locator('.sc-title');
      await pw(title).toHaveText(LONG);
      // The whole name at both sizes: nothing is cut off.
      for (const [w, h] of [
        [1440, 900],
        [1024, 700],
      ] as const) {
        await web.page.setViewportSize({ width: w, height: h });
        const cut = await title.evaluate((el) => el.scrollWidth > el.clientWidth + 1);
        expect(cut, `the name is cut off at ${w}×${h}`).toBe(false);
      }
      await web.page.setViewportSize({ width: 1440, height: 900 });
      await shoot('skills-catalog-composer-long-name');
      expect(web.problems).toEqual([]);
    }, 180_000);
  },
);
