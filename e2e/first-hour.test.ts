// A new user's first hour in Chromium (web mode): a chat is in the address, so a reload and Back
// return to it; the sidebar folds with its button and Ctrl B and stays folded after a reload.
// Screenshots at 1440×900 and 1024×700, light and dark: the chat after the reload, the folded
// sidebar, the Skills and Composer lists and Settings, the command palette and "New skill with AI"
// reached from the palette, + New, the Composer's catalog header and the Skills header.
import { join } from 'node:path';
import { expect as pw } from '@playwright/test';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWithout, testArtifactsDir } from '../electron/test-support/index.js';
import { type E2eSuite, findChromium, gotoChat, openPage, startSuite } from './browser.js';

const chromiumPath = findChromium();
const skip = skipWithout(!chromiumPath && 'no Chromium found (set CHROMIUM_PATH)', 'e2e/first-hour');
const shots = () => testArtifactsDir('e2e');

describe.skipIf(skip)('the first hour (Chromium)', () => {
  let suite: E2eSuite;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    suite = await startSuite(chromiumPath!);
    page = await openPage(suite.browser, problems, { timeoutMs: 15_000 });
    await gotoChat(page, suite.app.server.url);
  });
  afterAll(async () => {
    await page?.close();
    await suite?.close();
  });

  const composer = () => page.getByRole('textbox', { name: 'Message' });
  const thread = () => page.getByRole('log', { name: 'Messages' });
  const shoot = async (name: string) => {
    for (const [w, h] of [
      [1440, 900],
      [1024, 700],
    ] as const) {
      await page.setViewportSize({ width: w, height: h });
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.screenshot({
          path: join(shots(), `${name}-${w}x${h}-${scheme}.png`),
          animations: 'disabled',
        });
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1440, height: 900 });
  };

  it('a reload returns to the open chat, and Back to the one before', async () => {
    await composer().fill('First chat to come back to');
    await composer().press('Enter');
    await pw(thread().getByText('First chat to come back to')).toBeVisible();
    await pw(page).toHaveURL(/#chat\/[0-9a-f-]{36}$/);
    const first = new URL(page.url()).hash;

    await page.getByRole('button', { name: 'New chat' }).click();
    await pw(page).toHaveURL(/^[^#]*$/);
    await composer().fill('Second chat');
    await composer().press('Enter');
    await pw(thread().getByText('Second chat')).toBeVisible();
    await pw(page).toHaveURL(/#chat\/[0-9a-f-]{36}$/);
    const second = new URL(page.url()).hash;
    expect(second).not.toBe(first);

    await page.reload();
    await pw(thread().getByText('Second chat')).toBeVisible();
    await pw(page.locator('.session.is-on')).toContainText('Second chat');
    await pw(page).toHaveURL(new RegExp(`${second}$`));
    await shoot('first-hour-reloaded-chat');

    await page.getByRole('button', { name: 'First chat to come back to' }).click();
    await pw(thread().getByText('First chat to come back to')).toBeVisible();
    await pw(page).toHaveURL(new RegExp(`${first}$`));
    await page.goBack();
    await pw(thread().getByText('Second chat')).toBeVisible();
    await pw(page).toHaveURL(new RegExp(`${second}$`));
    expect(problems).toEqual([]);
  });

  it('folds the sidebar with its button and Ctrl B, and keeps it folded after a reload', async () => {
    const sessions = page.getByRole('region', { name: 'Chats' });
    await pw(sessions).toBeVisible();
    await page.getByRole('button', { name: 'Collapse the sidebar' }).click();
    await pw(sessions).toHaveCount(0);
    await pw(page.locator('.sidebar')).toHaveJSProperty('offsetWidth', 60);
    // Folded, every view is still one click (or key) away.
    await page.getByRole('button', { name: 'Skills', exact: true }).click();
    await pw(page.getByRole('listbox', { name: 'Skills' })).toBeVisible();
    await page.getByRole('button', { name: 'Chat', exact: true }).click();
    await shoot('first-hour-sidebar-folded');

    await page.reload();
    await pw(page.getByRole('button', { name: 'Expand the sidebar' })).toBeVisible();
    await pw(sessions).toHaveCount(0);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await page.keyboard.press('Control+b');
    await pw(sessions).toBeVisible();
    await pw(page.getByRole('button', { name: 'Collapse the sidebar' })).toBeVisible();
    await page.reload();
    await pw(sessions).toBeVisible();

    await page.keyboard.press('Control+/');
    await pw(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toContainText(
      'Collapse or expand the sidebar',
    );
    await page.keyboard.press('Escape');
    expect(problems).toEqual([]);
  });

  it('lays out Skills, the Composer and Settings at 1024 px without cut chips', async () => {
    await page.getByRole('button', { name: /^Skills/ }).click();
    await page.getByRole('listbox', { name: 'Skills' }).getByRole('option').first().waitFor();
    await shoot('first-hour-skills');
    await page.getByRole('button', { name: /^Composer/ }).click();
    await page.getByRole('complementary', { name: 'Skill catalog' }).waitFor();
    await shoot('first-hour-composer');
    await page.setViewportSize({ width: 1024, height: 700 });
    // No kind chip is cut by its row at 1024 px.
    for (const view of ['Skills', 'Composer'] as const) {
      await page.getByRole('button', { name: new RegExp(`^${view}`) }).click();
      await page.locator('.chip').first().waitFor();
      const cut = await page.evaluate(
        () =>
          [...document.querySelectorAll<HTMLElement>('.chip')].filter((chip) => {
            const box = chip.getBoundingClientRect();
            // A kind left out of a narrow row is counted by its "+N" chip, not cut.
            if (box.width === 0) return !chip.parentElement?.querySelector('.sc-item__more--narrow');
            let el = chip.parentElement;
            while (el) {
              const style = getComputedStyle(el);
              if (style.overflow !== 'visible' || style.overflowX !== 'visible') {
                const clip = el.getBoundingClientRect();
                if (box.right > clip.right + 0.5 || box.left < clip.left - 0.5) return true;
              }
              el = el.parentElement;
            }
            return chip.scrollWidth > chip.clientWidth + 1;
          }).length,
      );
      expect(cut, `${view}: kind chips cut at 1024 px`).toBe(0);
      // Nor are the list's header buttons.
      const header = await page.evaluate(() => {
        const pane = document.querySelector('.sc-catalog, .list-pane');
        if (!pane) return 0;
        const edge = pane.getBoundingClientRect().right;
        return [...pane.querySelectorAll('.sc-catalog__head button, .pane-head button')].filter(
          (b) => b.getBoundingClientRect().right > edge + 0.5,
        ).length;
      });
      expect(header, `${view}: header buttons cut at 1024 px`).toBe(0);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByRole('button', { name: /^Settings/ }).click();
    await page.getByText('Open a project folder as a workspace').waitFor();
    await page.getByText('Open a project folder as a workspace').scrollIntoViewIfNeeded();
    await shoot('first-hour-settings-locations');
    expect(problems).toEqual([]);
  });

  it('reaches "New skill with AI" from the command palette, + New and both catalog headers', async () => {
    const aiDialog = page.getByRole('dialog', { name: 'New skill with AI' });
    const close = async () => {
      await page.keyboard.press('Escape');
      await pw(aiDialog).toHaveCount(0);
    };
    await page.keyboard.press('Control+1');
    await page.keyboard.press('Control+Shift+P');
    const palette = page.getByRole('dialog', { name: 'Command palette' });
    await pw(palette.getByRole('combobox', { name: 'Command' })).toBeFocused();
    await shoot('first-hour-palette');
    await page.keyboard.type('skill ai');
    await pw(palette.getByRole('option')).toHaveCount(1);
    await page.keyboard.press('Enter');
    await pw(aiDialog).toBeVisible();
    await pw(aiDialog.getByLabel('Describe what the skill should do')).toBeFocused();
    await pw(
      page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /^Composer/ }),
    ).toHaveAttribute('aria-current', 'page');
    await shoot('first-hour-new-with-ai');
    await close();

    // + New lists it first, above the templates.
    await page
      .getByRole('complementary', { name: 'Skill catalog' })
      .getByRole('button', { name: 'New', exact: true })
      .click();
    const newDialog = page.getByRole('dialog', { name: 'New skill', exact: true });
    await pw(newDialog.getByRole('button').first()).toContainText('New skill with AI');
    await newDialog.getByRole('button', { name: /New skill with AI/ }).click();
    await pw(newDialog).toHaveCount(0);
    await pw(aiDialog).toBeVisible();
    await close();

    await page
      .getByRole('complementary', { name: 'Skill catalog' })
      .getByRole('button', { name: 'New skill with AI' })
      .click();
    await pw(aiDialog).toBeVisible();
    await close();

    await page.keyboard.press('Control+2');
    await page
      .getByRole('region', { name: 'Skill catalog' })
      .getByRole('button', { name: 'New skill with AI' })
      .click();
    await pw(aiDialog).toBeVisible();
    await close();
    expect(problems).toEqual([]);
  });
});
