import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as pw } from '@playwright/test';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWithout, tempDir, testArtifactsDir } from '../electron/test-support/index.js';
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
  'e2e/composer',
);

describe.skipIf(skip)('Skill Composer in Chromium', () => {
  let suite: E2eSuite;
  let browser: Browser;
  let app: E2eApp;

  beforeAll(async () => {
    suite = await startSuite(chromiumPath!);
    ({ app, browser } = suite);
  });
  afterAll(() => suite?.close());

  it('creates a skill from a template, flags a template error, saves twice, diffs and restores', async () => {
    const problems: string[] = [];
    // Typing into CodeMirror key by key is slow on a loaded machine (two cores, many test runs).
    const page = await openPage(browser, problems, { timeoutMs: 30_000 });
    const shots = testArtifactsDir('composer');
    const shoot = (name: string) => shootSchemes(page, shots, name);

    await page.goto(app.server.url);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await page.keyboard.press('Control+3');
    await pw(page.getByRole('heading', { level: 1, name: 'Composer' })).toBeVisible();
    const catalog = page.getByRole('list', { name: 'Skills' });
    await pw(catalog.getByRole('button', { name: /Consistency Checker/ })).toBeVisible();

    // A new skill from the prompt template is valid as created.
    await page.getByRole('button', { name: 'New', exact: true }).click();
    await pw(page.getByRole('dialog', { name: 'New skill' })).toBeVisible();
    await shoot('composer-new-1440');
    await page.getByRole('button', { name: /Prompt skill/ }).click();
    await pw(page.getByRole('heading', { level: 2, name: 'My prompt skill' })).toBeVisible();
    await pw(page.getByText('Not saved yet')).toBeVisible();
    await pw(page.locator('.sc-state--ok')).toHaveText('Valid');

    // A template with an unclosed block is flagged in the gutter, with its line.
    const editor = page.getByRole('textbox', { name: 'Content of Prompt' });
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await editor.pressSequentially('Dear {{ name }},\n{% if topic %}Write about {{ topic }}.');
    await pw(editor).toHaveText('Dear {{ name }},{% if topic %}Write about {{ topic }}.');
    await pw(page.locator('.sc-code .cm-lint-marker-error')).toHaveCount(1);
    await pw(page.locator('.sc-issues--tpl')).toContainText('Line 2, column 38: unexpected end of input');
    await pw(page.getByRole('status').filter({ hasText: 'saving blocked' })).toBeVisible();
    await pw(page.getByRole('button', { name: 'Save', exact: true })).toBeDisabled();
    await shoot('composer-error-1440');

    // Fixed: the marker goes, saving is allowed.
    await page.keyboard.press('Control+End');
    await editor.pressSequentially('{% endif %}');
    await pw(page.locator('.sc-code .cm-lint-marker-error')).toHaveCount(0);
    await pw(page.locator('.sc-state--ok')).toHaveText('Valid');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await pw(page.getByText('Saved My prompt skill 1.0.0 to the account store.')).toBeVisible();
    await pw(page.locator('.sc-head .sc-state').first()).toHaveText('Saved · 1.0.0');
    await pw(catalog.getByRole('button', { name: /My prompt skill/ })).toBeVisible();

    // Render only uses the template as edited, with the context filled from its variables.
    await page.getByRole('button', { name: 'Fill variables' }).click();
    await pw(page.getByRole('textbox', { name: 'Test context' })).toContainText('"topic"');
    await page.getByRole('button', { name: 'Render only' }).click();
    await pw(page.locator('.sc-test .sc-block').filter({ hasText: 'Rendered' })).toContainText('Dear ,');

    // Edit and save again.
    await page
      .getByRole('textbox', { name: 'Description' })
      .fill('Writes a short note to a named person about a topic.');
    await page.getByRole('button', { name: 'Bump' }).click();
    await editor.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Enter');
    await editor.pressSequentially('Keep it under 100 words.');
    await pw(page.getByText('Unsaved changes')).toBeVisible();
    await shoot('composer-edit-1440');
    // Switching away with unsaved edits asks first.
    await catalog.getByRole('button', { name: /Translate/ }).click();
    const leave = page.getByRole('alertdialog', { name: /Unsaved changes to My prompt skill/ });
    await pw(leave).toBeVisible();
    await shoot('composer-leave-1440');
    await leave.getByRole('button', { name: 'Cancel' }).click();
    await pw(leave).toBeHidden();
    // Reloading asks first, and the unsaved edits come back with the skill.
    const asked: string[] = [];
    page.once('dialog', (d) => {
      asked.push(d.type());
      void d.accept();
    });
    await page.reload();
    expect(asked).toEqual(['beforeunload']);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await page.keyboard.press('Control+3');
    await pw(page.getByRole('heading', { level: 2, name: 'My prompt skill' })).toBeVisible();
    await pw(page.getByText('Unsaved changes')).toBeVisible();
    await pw(editor).toContainText('Keep it under 100 words.');
    await pw(page.getByRole('textbox', { name: 'Description' })).toHaveValue(
      'Writes a short note to a named person about a topic.',
    );
    await editor.click();
    await page.keyboard.press('Control+S');
    await pw(page.locator('.sc-head .sc-state').first()).toHaveText('Saved · 1.0.1');

    // History: the current version and the one it replaced, with a coloured line diff.
    await page.getByRole('tab', { name: 'History' }).click();
    const versions = page.getByRole('region', { name: 'Versions' }).locator('tbody tr');
    await pw(versions).toHaveCount(2);
    await pw(versions.nth(0)).toContainText('Current');
    await pw(versions.nth(1)).toContainText('#1');
    const diff = page.getByRole('region', { name: 'Differences' });
    await pw(diff.locator('.sc-fields')).toContainText('description');
    await pw(
      diff.locator('.sc-diff__line.is-add').filter({ hasText: 'Keep it under 100 words.' }),
    ).toBeVisible();
    await shoot('composer-history-1440');

    // Restore the first version: it becomes current, the replaced one is kept too.
    await versions.nth(1).getByRole('button', { name: 'Restore' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Restore' }).click();
    await pw(page.getByText(/Restored My prompt skill 1\.0\.0/)).toBeVisible();
    await pw(page.locator('.sc-head .sc-state').first()).toHaveText('Saved · 1.0.0');
    await pw(versions).toHaveCount(3);

    // A second model variant of the template, edited side by side with the first.
    await page.getByRole('tab', { name: 'Edit' }).click();
    await page.getByRole('button', { name: 'Add model variant' }).click();
    await page.getByLabel('Compare with another variant').selectOption({ label: 'any model' });
    await pw(page.getByRole('textbox', { name: 'Content of Prompt (any model)' })).toContainText(
      'Dear {{ name }}',
    );
    await pw(page.locator('.sc-state--ok')).toHaveText('Valid');
    await page.getByRole('textbox', { name: 'Content of Prompt', exact: true }).scrollIntoViewIfNeeded();
    await shoot('composer-variants-1440');
    await page.getByRole('tab', { name: 'History' }).click();

    // The smaller window, both themes, on the editor and the history.
    await page.setViewportSize({ width: 1024, height: 700 });
    await shoot('composer-history-1024');
    await page.getByRole('tab', { name: 'Edit' }).click();
    await pw(editor).toContainText('Dear {{ name }}');
    await shoot('composer-edit-1024');
    await page.getByRole('tab', { name: 'Test' }).click();
    await pw(page.getByRole('button', { name: 'Render only' })).toBeVisible();
    await shoot('composer-test-1024');

    expect(problems).toEqual([]);
    await page.close();
  }, 180_000);

  it('runs a new Python skill and shows its result and assertion', async () => {
    const page = await openPage(browser, []);
    await gotoChat(page, app.server.url);
    await page.keyboard.press('Control+3');
    await page.getByRole('button', { name: 'New', exact: true }).click();
    await page.getByRole('button', { name: /Python skill/ }).click();
    await pw(page.locator('.sc-state--ok')).toHaveText('Valid');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await pw(page.getByText(/^Saved My python skill/)).toBeVisible();
    await pw(page.getByRole('textbox', { name: 'Test context' })).toContainText('"text"');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const result = page.getByRole('article', { name: 'Result of Count words' });
    // The submitted data is laid out to read (its JSON a click away), labelled with what ran.
    await pw(result).toContainText(/words\s*0/, { timeout: 60_000 });
    await pw(result.locator('.sc-ran')).toHaveText('version 1.0.0');
    await pw(result.locator('.sc-asserts .is-pass')).toContainText('output matches a JSON Schema');
    await pw(result).toContainText('Rendered input');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({
        path: join(testArtifactsDir('composer'), `composer-run-1440-${scheme}.png`),
        animations: 'disabled',
      });
    }
    await page.close();
  }, 90_000);

  it('imports picked JSON files and reports each package; nothing is written when one is refused', async () => {
    const page = await openPage(browser, []);
    await gotoChat(page, app.server.url);
    await page.getByRole('button', { name: /^Composer/ }).click();
    const dir = tempDir();
    const good = join(dir, 'tea-timer.json');
    const broken = join(dir, 'broken.json');
    writeFileSync(
      good,
      JSON.stringify({
        name: 'Tea Timer',
        description: 'Says how long to steep a tea.',
        artifacts: [{ kind: 'approach', name: 'Steeping', content: 'Green 2 min, black 4 min.' }],
      }),
    );
    writeFileSync(
      broken,
      JSON.stringify({
        name: 'Broken',
        description: 'x',
        artifacts: [{ kind: 'spell', name: 'A', content: '' }],
      }),
    );
    const input = page.getByTestId('composer-import-input');
    await input.setInputFiles([good, broken]);
    const report = page.getByRole('region', { name: 'Import report' });
    await pw(report).toContainText('Nothing was imported');
    await pw(report.locator('li').filter({ hasText: 'broken.json' })).toContainText('artifacts[0].kind');
    await pw(report.locator('li').filter({ hasText: 'tea-timer.json' })).toContainText('not imported');
    await page.screenshot({
      path: join(testArtifactsDir('composer'), 'composer-import-refused-1440-light.png'),
      animations: 'disabled',
    });
    await input.setInputFiles([good]);
    await pw(report.locator('li').filter({ hasText: 'Tea Timer' })).toContainText('created');
    await pw(
      page.getByRole('list', { name: 'Skills' }).getByRole('button', { name: /Tea Timer/ }),
    ).toBeVisible();
    await page.close();
  });
});
