import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { skipWithout, tempDir, testArtifactsDir } from '../electron/test-support/index.js';
import { type E2eApp, type E2eSuite, findChromium, gotoChat, openPage, startSuite } from './browser.js';

const chromiumPath = findChromium();
const skip = skipWithout(
  !chromiumPath && 'no Chromium found (set CHROMIUM_PATH, or install it: apt-get install -y chromium)',
  'e2e/web-ui',
);
const shots = () => testArtifactsDir('e2e');

describe.skipIf(skip)('web UI in Chromium', () => {
  let suite: E2eSuite;
  let browser: Browser;
  let app: E2eApp;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    suite = await startSuite(chromiumPath!);
    ({ app, browser } = suite);
  });
  afterAll(() => suite?.close());
  beforeEach(async () => {
    problems = [];
    page = await openPage(browser, problems, { width: 1360, height: 860, timeoutMs: 8000 });
    await gotoChat(page, app.server.url);
  });

  const skillList = () => page.getByRole('listbox', { name: 'Skills' });

  async function gotoSkills() {
    await page.getByRole('button', { name: /^Skills/ }).click();
    await skillList().getByRole('option').first().waitFor();
  }

  it('lists the seeded skills with scope badges and kind chips, without console errors', async () => {
    await gotoSkills();
    const names = await page.locator('.skill-row__name').allTextContents();
    expect(names).toEqual(expect.arrayContaining(['Consistency Checker', 'Summarize', 'Translate']));
    const row = skillList().getByRole('option', { name: /Consistency Checker/ });
    await expect(row.locator('.badge--account').textContent()).resolves.toBe('Account');
    await expect(row.locator('.chip--dspy_module').count()).resolves.toBe(1);
    expect(problems).toEqual([]);
  });

  it('searches with Ctrl+K, moves with the arrow keys, opens with Enter and closes with Esc', async () => {
    await page.keyboard.press('Control+K');
    const search = page.getByRole('combobox', { name: 'Search skills' });
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
    await page.keyboard.press('ArrowDown');
    await expect.poll(selectedIndex).toBe(before + 1);
    await page.keyboard.press('ArrowUp');
    await expect.poll(selectedIndex).toBe(before);
    await search.focus();
    await search.fill('contradictions');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 2, name: 'Consistency Checker' }).waitFor();
    await expect(page.locator('.artifact').count()).resolves.toBeGreaterThan(2);
    await expect(page.locator('.artifact .hljs-template-variable').count()).resolves.toBeGreaterThan(0);
    await page.keyboard.press('Escape');
    await page.getByRole('heading', { name: 'Pick a skill to see inside it' }).waitFor();
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
    await page.getByTestId('import-input').setInputFiles(file);
    const report = page.getByRole('region', { name: 'Import report' });
    await report.locator('li').filter({ hasText: 'Haiku Helper' }).filter({ hasText: 'created' }).waitFor();
    await skillList()
      .getByRole('option', { name: /Haiku Helper/ })
      .click();
    await page.getByRole('heading', { level: 2, name: 'Haiku Helper' }).waitFor();
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
    await page.getByTestId('import-input').setInputFiles(file);
    const panel = page.getByRole('region', { name: 'Import report' });
    await panel.getByText('Nothing was imported').waitFor();
    await expect(panel.textContent()).resolves.toContain('artifacts[0].kind');
    await expect(panel.textContent()).resolves.toContain('broken.json');
    await expect(
      skillList()
        .getByRole('option', { name: /Broken/ })
        .count(),
    ).resolves.toBe(0);
    await page.screenshot({ path: join(shots(), 'skilldesk-import-error.png') });
  });

  it('hints which skills would activate as you type', async () => {
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.pressSequentially('are there any contradictions');
    const hint = page.getByRole('region', { name: 'Skills that would activate' });
    const top = hint.locator('.hint__skill').first();
    await expect.poll(() => top.textContent()).toBe('Consistency Checkertrigger');
    await box.fill('please translate this into French');
    await expect.poll(() => top.textContent()).toMatch(/^Translate/);
    await page.screenshot({ path: join(shots(), 'skilldesk-chat-light.png') });
    await top.click();
    await page.getByRole('heading', { level: 2, name: 'Translate' }).waitFor();
  });

  it('deletes a skill after confirmation', async () => {
    await gotoSkills();
    await skillList()
      .getByRole('option', { name: /Plain Writing/ })
      .click();
    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete skill' }).click();
    await page.getByText('Deleted Plain Writing from the account store.').waitFor();
    await expect
      .poll(() =>
        skillList()
          .getByRole('option', { name: /Plain Writing/ })
          .count(),
      )
      .toBe(0);
  });

  it('switches theme and remembers it', async () => {
    await page.getByRole('button', { name: /^Settings/ }).click();
    await page.locator('.path-row').first().waitFor();
    await expect(page.locator('.path-row__path').first().textContent()).resolves.toBe(
      join(app.home, 'agents.db'),
    );
    const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const light = await bg();
    await page.screenshot({ path: join(shots(), 'skilldesk-settings-light.png') });
    await page.getByRole('radio', { name: /Dark/ }).click();
    await expect(page.evaluate(() => document.documentElement.dataset.theme)).resolves.toBe('dark');
    expect(await bg()).not.toBe(light);
    await page.screenshot({ path: join(shots(), 'skilldesk-settings-dark.png') });
    await page.reload();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await expect(page.evaluate(() => document.documentElement.dataset.theme)).resolves.toBe('dark');
    await page.keyboard.press('Control+2');
    await skillList()
      .getByRole('option', { name: /Consistency Checker/ })
      .click();
    await page.locator('.artifact').first().waitFor();
    await page.screenshot({ path: join(shots(), 'skilldesk-skills-dark.png') });
    await page.getByRole('button', { name: /^Settings/ }).click();
    await page.getByRole('radio', { name: /System/ }).click();
    await expect(page.evaluate(() => document.documentElement.dataset.theme)).resolves.toBeUndefined();
  });

  it('without the token, explains how to get in and makes no API calls', async () => {
    const fresh = await browser.newPage();
    await fresh.goto(`${app.server.origin}/`);
    await fresh.getByRole('heading', { name: 'Open SkillDesk from its link' }).waitFor();
    await fresh.close();
  });
});
