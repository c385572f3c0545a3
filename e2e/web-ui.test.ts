import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { tempDir } from '../electron/test-support/index.js';
import { describeWeb, shot } from './web-suite.js';

describeWeb(
  'web UI in Chromium',
  { id: 'e2e/web-ui', page: { width: 1360, height: 860, timeoutMs: 8000 }, pagePerTest: true },
  (web) => {
    const skillList = () => web.page.getByRole('listbox', { name: 'Skills' });

    async function gotoSkills() {
      await web.page.getByRole('button', { name: /^Skills/ }).click();
      await skillList().getByRole('option').first().waitFor();
    }

    it('lists the seeded skills with scope badges and kind chips, without console errors', async () => {
      await gotoSkills();
      const names = await web.page.locator('.skill-row__name').allTextContents();
      expect(names).toEqual(expect.arrayContaining(['Consistency Checker', 'Summarize', 'Translate']));
      const row = skillList().getByRole('option', { name: /Consistency Checker/ });
      await expect(row.locator('.badge--account').textContent()).resolves.toBe('Account');
      await expect(row.locator('.chip--dspy_module').count()).resolves.toBe(1);
      expect(web.problems).toEqual([]);
    });

    it('searches with Ctrl+K, moves with the arrow keys, opens with Enter and closes with Esc', async () => {
      await web.page.keyboard.press('Control+K');
      const search = web.page.getByRole('combobox', { name: 'Search skills' });
      await expect(search.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
      await search.fill('csv');
      await expect.poll(() => skillList().getByRole('option').count()).toBe(1);
      await search.fill('');
      await expect.poll(() => skillList().getByRole('option').count()).toBeGreaterThan(5);
      const selectedIndex = () =>
        skillList()
          .getByRole('option')
          .evaluateAll((els) => els.findIndex((el) => el.getAttribute('aria-selected') === 'true'));
      const before = await selectedIndex();
      await web.page.keyboard.press('ArrowDown');
      await expect.poll(selectedIndex).toBe(before + 1);
      await web.page.keyboard.press('ArrowUp');
      await expect.poll(selectedIndex).toBe(before);
      await search.focus();
      await search.fill('contradictions');
      await web.page.keyboard.press('Enter');
      await web.page.getByRole('heading', { level: 2, name: 'Consistency Checker' }).waitFor();
      await expect(web.page.locator('.artifact').count()).resolves.toBeGreaterThan(2);
      await expect(web.page.locator('.artifact .hljs-template-variable').count()).resolves.toBeGreaterThan(0);
      await web.page.keyboard.press('Escape');
      await web.page.getByRole('heading', { name: 'Pick a skill to see inside it' }).waitFor();
    });

    it('imports a valid package file and shows it', async () => {
      await gotoSkills();
      const file = join(tempDir(), 'haiku-helper.json');
      writeFileSync(
        file,
        JSON.stringify({
          name: 'Haiku Helper',
          description: 'Writes haiku about any topic.',
          version: '1.2.0',
          trigger_phrases: ['write a haiku'],
          artifacts: [{ kind: 'prompt_template', name: 'Poem', content: 'Write a haiku about {{ topic }}.' }],
        }),
      );
      await web.page.getByTestId('import-input').setInputFiles(file);
      const report = web.page.getByRole('region', { name: 'Import report' });
      await report.locator('li').filter({ hasText: 'Haiku Helper' }).filter({ hasText: 'created' }).waitFor();
      await skillList()
        .getByRole('option', { name: /Haiku Helper/ })
        .click();
      await web.page.getByRole('heading', { level: 2, name: 'Haiku Helper' }).waitFor();
    });

    it('explains an invalid package with its JSON path', async () => {
      await gotoSkills();
      const file = join(tempDir(), 'broken.json');
      writeFileSync(
        file,
        JSON.stringify({
          name: 'Broken',
          description: 'x',
          artifacts: [{ kind: 'spell', name: 'A', content: '' }],
        }),
      );
      await web.page.getByTestId('import-input').setInputFiles(file);
      const panel = web.page.getByRole('region', { name: 'Import report' });
      await panel.getByText('Nothing was imported').waitFor();
      await expect(panel.textContent()).resolves.toContain('artifacts[0].kind');
      await expect(panel.textContent()).resolves.toContain('broken.json');
      await expect(
        skillList()
          .getByRole('option', { name: /Broken/ })
          .count(),
      ).resolves.toBe(0);
      await shot(web.page, 'skilldesk-import-error');
    });

    it('hints which skills would activate as you type', async () => {
      const box = web.page.getByRole('textbox', { name: 'Message' });
      await box.pressSequentially('are there any contradictions');
      const hint = web.page.getByRole('region', { name: 'Skills that would activate' });
      const top = hint.locator('.hint__skill').first();
      await expect.poll(() => top.textContent()).toBe('Consistency Checkertrigger');
      await box.fill('please translate this into French');
      await expect.poll(() => top.textContent()).toMatch(/^Translate/);
      await shot(web.page, 'skilldesk-chat-light');
      await top.click();
      await web.page.getByRole('heading', { level: 2, name: 'Translate' }).waitFor();
    });

    it('deletes a skill after confirmation', async () => {
      await gotoSkills();
      await skillList()
        .getByRole('option', { name: /Plain Writing/ })
        .click();
      await web.page.getByRole('button', { name: 'Delete' }).click();
      const dialog = web.page.getByRole('alertdialog');
      await dialog.waitFor();
      await web.page.keyboard.press('Escape');
      await expect.poll(() => dialog.count()).toBe(0);
      await web.page.getByRole('button', { name: 'Delete' }).click();
      await web.page.getByRole('button', { name: 'Delete skill' }).click();
      await web.page.getByText('Deleted Plain Writing from the account store.').waitFor();
      await expect
        .poll(() =>
          skillList()
            .getByRole('option', { name: /Plain Writing/ })
            .count(),
        )
        .toBe(0);
    });

    it('switches theme and remembers it', async () => {
      await web.page.getByRole('button', { name: /^Settings/ }).click();
      await web.page.locator('.path-row').first().waitFor();
      await expect(web.page.locator('.path-row__path').first().textContent()).resolves.toBe(
        join(web.app.home, 'agents.db'),
      );
      const bg = () => web.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const light = await bg();
      await shot(web.page, 'skilldesk-settings-light');
      await web.page.getByRole('radio', { name: /Dark/ }).click();
      await expect(web.page.evaluate(() => document.documentElement.dataset.theme)).resolves.toBe('dark');
      expect(await bg()).not.toBe(light);
      await shot(web.page, 'skilldesk-settings-dark');
      await web.page.reload();
      await web.page.getByRole('textbox', { name: 'Message' }).waitFor();
      await expect(web.page.evaluate(() => document.documentElement.dataset.theme)).resolves.toBe('dark');
      await web.page.keyboard.press('Control+2');
      await skillList()
        .getByRole('option', { name: /Consistency Checker/ })
        .click();
      await web.page.locator('.artifact').first().waitFor();
      await shot(web.page, 'skilldesk-skills-dark');
      await web.page.getByRole('button', { name: /^Settings/ }).click();
      await web.page.getByRole('radio', { name: /System/ }).click();
      await expect(web.page.evaluate(() => document.documentElement.dataset.theme)).resolves.toBeUndefined();
    });

    it('without the token, explains how to get in and makes no API calls', async () => {
      const fresh = await web.browser.newPage();
      await fresh.goto(`${web.app.server.origin}/`);
      await fresh.getByRole('heading', { name: 'Open SkillDesk from its link' }).waitFor();
      await fresh.close();
    });
  },
);
