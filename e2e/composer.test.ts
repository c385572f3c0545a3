import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as pw } from '@playwright/test';
import { expect, it } from 'vitest';
import { tempDir } from '../electron/test-support/index.js';
import { describeWeb, shot, shotSchemes } from './web-suite.js';

describeWeb(
  'Skill Composer in Chromium',
  // Typing into CodeMirror key by key is slow on a loaded machine (two cores, many test runs).
  { id: 'e2e/composer', page: { timeoutMs: 30_000 }, pagePerTest: true },
  (web) => {
    it('creates a skill from a template, flags a template error, saves twice, diffs and restores', async () => {
      const shoot = (name: string) => shotSchemes(web.page, name, { dir: 'composer' });

      await web.page.keyboard.press('Control+3');
      await pw(web.page.getByRole('heading', { level: 1, name: 'Composer' })).toBeVisible();
      const catalog = web.page.getByRole('list', { name: 'Skills' });
      await pw(catalog.getByRole('button', { name: /Consistency Checker/ })).toBeVisible();

      // A new skill from the prompt template is valid as created.
      await web.page.getByRole('button', { name: 'New', exact: true }).click();
      await pw(web.page.getByRole('dialog', { name: 'New skill' })).toBeVisible();
      await shoot('composer-new-1440');
      await web.page.getByRole('button', { name: /Prompt skill/ }).click();
      await pw(web.page.getByRole('heading', { level: 2, name: 'My prompt skill' })).toBeVisible();
      await pw(web.page.getByText('Not saved yet')).toBeVisible();
      await pw(web.page.locator('.sc-state--ok')).toHaveText('Valid');

      // A template with an unclosed block is flagged in the gutter, with its line.
      const editor = web.page.getByRole('textbox', { name: 'Content of Prompt' });
      await editor.click();
      await web.page.keyboard.press('Control+A');
      await web.page.keyboard.press('Delete');
      await editor.pressSequentially('Dear {{ name }},\n{% if topic %}Write about {{ topic }}.');
      await pw(editor).toHaveText('Dear {{ name }},{% if topic %}Write about {{ topic }}.');
      await pw(web.page.locator('.sc-code .cm-lint-marker-error')).toHaveCount(1);
      await pw(web.page.locator('.sc-issues--tpl')).toContainText(
        'Line 2, column 38: unexpected end of input',
      );
      await pw(web.page.getByRole('status').filter({ hasText: 'saving blocked' })).toBeVisible();
      await pw(web.page.getByRole('button', { name: 'Save', exact: true })).toBeDisabled();
      await shoot('composer-error-1440');

      // Fixed: the marker goes, saving is allowed.
      await web.page.keyboard.press('Control+End');
      await editor.pressSequentially('{% endif %}');
      await pw(web.page.locator('.sc-code .cm-lint-marker-error')).toHaveCount(0);
      await pw(web.page.locator('.sc-state--ok')).toHaveText('Valid');
      await web.page.getByRole('button', { name: 'Save', exact: true }).click();
      await pw(web.page.getByText('Saved My prompt skill 1.0.0 to the account store.')).toBeVisible();
      await pw(web.page.locator('.sc-head .sc-state').first()).toHaveText('Saved · 1.0.0');
      await pw(catalog.getByRole('button', { name: /My prompt skill/ })).toBeVisible();

      // Render only uses the template as edited, with the context filled from its variables.
      await web.page.getByRole('button', { name: 'Fill variables' }).click();
      await pw(web.page.getByRole('textbox', { name: 'Test context' })).toContainText('"topic"');
      await web.page.getByRole('button', { name: 'Render only' }).click();
      await pw(web.page.locator('.sc-test .sc-block').filter({ hasText: 'Rendered' })).toContainText(
        'Dear ,',
      );

      // Edit and save again.
      await web.page
        .getByRole('textbox', { name: 'Description' })
        .fill('Writes a short note to a named person about a topic.');
      await web.page.getByRole('button', { name: 'Bump' }).click();
      await editor.click();
      await web.page.keyboard.press('Control+End');
      await web.page.keyboard.press('Enter');
      await editor.pressSequentially('Keep it under 100 words.');
      await pw(web.page.getByText('Unsaved changes')).toBeVisible();
      await shoot('composer-edit-1440');
      // Switching away with unsaved edits asks first.
      await catalog.getByRole('button', { name: /Translate/ }).click();
      const leave = web.page.getByRole('alertdialog', { name: /Unsaved changes to My prompt skill/ });
      await pw(leave).toBeVisible();
      await shoot('composer-leave-1440');
      await leave.getByRole('button', { name: 'Cancel' }).click();
      await pw(leave).toBeHidden();
      // Reloading asks first, and the unsaved edits come back with the skill.
      const asked: string[] = [];
      web.page.once('dialog', (d) => {
        asked.push(d.type());
        void d.accept();
      });
      await web.page.reload();
      expect(asked).toEqual(['beforeunload']);
      await web.page.getByRole('textbox', { name: 'Message' }).waitFor();
      await web.page.keyboard.press('Control+3');
      await pw(web.page.getByRole('heading', { level: 2, name: 'My prompt skill' })).toBeVisible();
      await pw(web.page.getByText('Unsaved changes')).toBeVisible();
      await pw(editor).toContainText('Keep it under 100 words.');
      await pw(web.page.getByRole('textbox', { name: 'Description' })).toHaveValue(
        'Writes a short note to a named person about a topic.',
      );
      await editor.click();
      await web.page.keyboard.press('Control+S');
      await pw(web.page.locator('.sc-head .sc-state').first()).toHaveText('Saved · 1.0.1');

      // History: the current version and the one it replaced, with a coloured line diff.
      await web.page.getByRole('tab', { name: 'History' }).click();
      const versions = web.page.getByRole('region', { name: 'Versions' }).locator('tbody tr');
      await pw(versions).toHaveCount(2);
      await pw(versions.nth(0)).toContainText('Current');
      await pw(versions.nth(1)).toContainText('#1');
      const diff = web.page.getByRole('region', { name: 'Differences' });
      await pw(diff.locator('.sc-fields')).toContainText('description');
      await pw(
        diff.locator('.sc-diff__line.is-add').filter({ hasText: 'Keep it under 100 words.' }),
      ).toBeVisible();
      await shoot('composer-history-1440');

      // Restore the first version: it becomes current, the replaced one is kept too.
      await versions.nth(1).getByRole('button', { name: 'Restore' }).click();
      await web.page.getByRole('alertdialog').getByRole('button', { name: 'Restore' }).click();
      await pw(web.page.getByText(/Restored My prompt skill 1\.0\.0/)).toBeVisible();
      await pw(web.page.locator('.sc-head .sc-state').first()).toHaveText('Saved · 1.0.0');
      await pw(versions).toHaveCount(3);

      // A second model variant of the template, edited side by side with the first.
      await web.page.getByRole('tab', { name: 'Edit' }).click();
      await web.page.getByRole('button', { name: 'Add model variant' }).click();
      await web.page.getByLabel('Compare with another variant').selectOption({ label: 'any model' });
      await pw(web.page.getByRole('textbox', { name: 'Content of Prompt (any model)' })).toContainText(
        'Dear {{ name }}',
      );
      await pw(web.page.locator('.sc-state--ok')).toHaveText('Valid');
      await web.page
        .getByRole('textbox', { name: 'Content of Prompt', exact: true })
        .scrollIntoViewIfNeeded();
      await shoot('composer-variants-1440');
      await web.page.getByRole('tab', { name: 'History' }).click();

      // The smaller window, both themes, on the editor and the history.
      await web.page.setViewportSize({ width: 1024, height: 700 });
      await shoot('composer-history-1024');
      await web.page.getByRole('tab', { name: 'Edit' }).click();
      await pw(editor).toContainText('Dear {{ name }}');
      await shoot('composer-edit-1024');
      await web.page.getByRole('tab', { name: 'Test' }).click();
      await pw(web.page.getByRole('button', { name: 'Render only' })).toBeVisible();
      await shoot('composer-test-1024');

      expect(web.problems).toEqual([]);
    }, 180_000);

    it('runs a new Python skill and shows its result and assertion', async () => {
      await web.page.keyboard.press('Control+3');
      await web.page.getByRole('button', { name: 'New', exact: true }).click();
      await web.page.getByRole('button', { name: /Python skill/ }).click();
      await pw(web.page.locator('.sc-state--ok')).toHaveText('Valid');
      await web.page.getByRole('button', { name: 'Save', exact: true }).click();
      await pw(web.page.getByText(/^Saved My python skill/)).toBeVisible();
      await pw(web.page.getByRole('textbox', { name: 'Test context' })).toContainText('"text"');
      await web.page.getByRole('button', { name: 'Run', exact: true }).click();
      const result = web.page.getByRole('article', { name: 'Result of Count words' });
      // The submitted data is laid out to read (its JSON a click away), labelled with what ran.
      await pw(result).toContainText(/words\s*0/, { timeout: 60_000 });
      await pw(result.locator('.sc-ran')).toHaveText('version 1.0.0');
      await pw(result.locator('.sc-asserts .is-pass')).toContainText('output matches a JSON Schema');
      await pw(result).toContainText('Rendered input');
      for (const scheme of ['light', 'dark'] as const) {
        await web.page.emulateMedia({ colorScheme: scheme });
        await shot(web.page, `composer-run-1440-${scheme}`, { dir: 'composer', animations: 'disabled' });
      }
    }, 90_000);

    it('imports picked JSON files and reports each package; nothing is written when one is refused', async () => {
      await web.page.getByRole('button', { name: /^Composer/ }).click();
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
      const input = web.page.getByTestId('composer-import-input');
      await input.setInputFiles([good, broken]);
      const report = web.page.getByRole('region', { name: 'Import report' });
      await pw(report).toContainText('Nothing was imported');
      await pw(report.locator('li').filter({ hasText: 'broken.json' })).toContainText('artifacts[0].kind');
      await pw(report.locator('li').filter({ hasText: 'tea-timer.json' })).toContainText('not imported');
      await shot(web.page, 'composer-import-refused-1440-light', { dir: 'composer', animations: 'disabled' });
      await input.setInputFiles([good]);
      await pw(report.locator('li').filter({ hasText: 'Tea Timer' })).toContainText('created');
      await pw(
        web.page.getByRole('list', { name: 'Skills' }).getByRole('button', { name: /Tea Timer/ }),
      ).toBeVisible();
    });
  },
);
