// A skill's switch in the Skills view: the radio group sets name-only or off through the host
// (skills/set-switch), survives a reload, and an off skill leaves the chat's / menu.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, skipWithout, testArtifactsDir } from '../electron/test-support/index.js';
import { type E2eApp, type E2eSuite, findChromium, gotoChat, openPage, startSuite } from './browser.js';

const chromiumPath = findChromium();
const skip = skipWithout(
  !chromiumPath && 'no Chromium found (set CHROMIUM_PATH, or install it: apt-get install -y chromium)',
  'e2e/skill-switches',
);

describe.skipIf(skip)('skill switches in the Skills view', () => {
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
    page = await openPage(browser, problems, { width: 1440, height: 900, timeoutMs: 8000 });
    await gotoChat(page, app.server.url);
  });

  it('switches a skill to name-only and off, by keyboard, and the / menu follows', async () => {
    await page.getByRole('button', { name: /^Skills/ }).click();
    await page
      .getByRole('listbox', { name: 'Skills' })
      .getByRole('option', { name: /Summarize/ })
      .click();
    await page.getByRole('heading', { level: 2, name: 'Summarize' }).waitFor();
    const group = page.getByRole('radiogroup', { name: 'Use in chats' });
    await expect.poll(() => group.getByRole('radio', { name: 'On', exact: true }).isChecked()).toBe(true);

    await group.getByRole('radio', { name: 'On', exact: true }).focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => group.getByRole('radio', { name: 'Name only' }).isChecked()).toBe(true);
    await expect
      .poll(() => page.locator('.skill-switch__help').textContent())
      .toContain('never put into a prompt');
    await page.screenshot({ path: `${testArtifactsDir('e2e')}/skill-switch-name-only-1440.png` });

    await group.getByText('Off', { exact: true }).click();
    await expect
      .poll(async () => {
        const r = await runCli(['--home', app.home, '--json', 'skills', 'list']);
        return (JSON.parse(r.stdout) as { skills: Array<{ name: string; switch: string }> }).skills.find(
          (s) => s.name === 'Summarize',
        )?.switch;
      })
      .toBe('off');
    await page.reload();
    await page.getByRole('button', { name: /^Skills/ }).click();
    await page
      .getByRole('listbox', { name: 'Skills' })
      .getByRole('option', { name: /Summarize/ })
      .click();
    await expect
      .poll(() =>
        page
          .getByRole('radiogroup', { name: 'Use in chats' })
          .getByRole('radio', { name: 'Off', exact: true })
          .isChecked(),
      )
      .toBe(true);

    await page.getByRole('button', { name: /^Chat/ }).click();
    const composer = page.getByRole('textbox', { name: 'Message' });
    await composer.fill('/s');
    const menu = page.getByRole('listbox', { name: 'Skills' });
    await menu.getByRole('option').first().waitFor();
    await expect.poll(() => menu.getByRole('option', { name: /Summarize/ }).count()).toBe(0);
    expect((await runCli(['--home', app.home, 'skills', 'set', 'Summarize', 'on'])).code).toBe(0);
    expect(problems).toEqual([]);
  });
});
