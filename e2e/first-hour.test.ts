// A new user's first hour in Chromium (web mode): a chat is in the address, so a reload and Back
// return to it; the sidebar folds with its button and Ctrl B and stays folded after a reload.
// Screenshots at 1440×900 and 1024×700, light and dark: the chat after the reload, the folded
// sidebar, the Skills and Composer lists and Settings, the command palette and "New skill with AI"
// reached from the palette, + New, the Composer's catalog header and the Skills header.
import { expect as pw } from '@playwright/test';
import { expect, it } from 'vitest';
import { describeWeb, shotSizes } from './web-suite.js';

describeWeb('the first hour (Chromium)', { id: 'e2e/first-hour', page: { timeoutMs: 15_000 } }, (web) => {
  const composer = () => web.page.getByRole('textbox', { name: 'Message' });
  const thread = () => web.page.getByRole('log', { name: 'Messages' });
  const shoot = (name: string) => shotSizes(web.page, name, { animations: 'disabled' });

  it('a reload returns to the open chat, and Back to the one before', async () => {
    await composer().fill('First chat to come back to');
    await composer().press('Enter');
    await pw(thread().getByText('First chat to come back to')).toBeVisible();
    await pw(web.page).toHaveURL(/#chat\/[0-9a-f-]{36}$/);
    const first = new URL(web.page.url()).hash;

    await web.page.getByRole('button', { name: 'New chat' }).click();
    await pw(web.page).toHaveURL(/^[^#]*$/);
    await composer().fill('Second chat');
    await composer().press('Enter');
    await pw(thread().getByText('Second chat')).toBeVisible();
    await pw(web.page).toHaveURL(/#chat\/[0-9a-f-]{36}$/);
    const second = new URL(web.page.url()).hash;
    expect(second).not.toBe(first);

    await web.page.reload();
    await pw(thread().getByText('Second chat')).toBeVisible();
    await pw(web.page.locator('.session.is-on')).toContainText('Second chat');
    await pw(web.page).toHaveURL(new RegExp(`${second}$`));
    await shoot('first-hour-reloaded-chat');

    await web.page.getByRole('button', { name: 'First chat to come back to' }).click();
    await pw(thread().getByText('First chat to come back to')).toBeVisible();
    await pw(web.page).toHaveURL(new RegExp(`${first}$`));
    await web.page.goBack();
    await pw(thread().getByText('Second chat')).toBeVisible();
    await pw(web.page).toHaveURL(new RegExp(`${second}$`));
    expect(web.problems).toEqual([]);
  });

  it('folds the sidebar with its button and Ctrl B, and keeps it folded after a reload', async () => {
    const sessions = web.page.getByRole('region', { name: 'Chats' });
    await pw(sessions).toBeVisible();
    await web.page.getByRole('button', { name: 'Collapse the sidebar' }).click();
    await pw(sessions).toHaveCount(0);
    await pw(web.page.locator('.sidebar')).toHaveJSProperty('offsetWidth', 60);
    // Folded, every view is still one click (or key) away.
    await web.page.getByRole('button', { name: 'Skills', exact: true }).click();
    await pw(web.page.getByRole('listbox', { name: 'Skills' })).toBeVisible();
    await web.page.getByRole('button', { name: 'Chat', exact: true }).click();
    await shoot('first-hour-sidebar-folded');

    await web.page.reload();
    await pw(web.page.getByRole('button', { name: 'Expand the sidebar' })).toBeVisible();
    await pw(sessions).toHaveCount(0);
    await web.page.getByRole('textbox', { name: 'Message' }).waitFor();
    await web.page.keyboard.press('Control+b');
    await pw(sessions).toBeVisible();
    await pw(web.page.getByRole('button', { name: 'Collapse the sidebar' })).toBeVisible();
    await web.page.reload();
    await pw(sessions).toBeVisible();

    await web.page.keyboard.press('Control+/');
    await pw(web.page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toContainText(
      'Collapse or expand the sidebar',
    );
    await web.page.keyboard.press('Escape');
    expect(web.problems).toEqual([]);
  });

  it('lays out Skills, the Composer and Settings at 1024 px without cut chips', async () => {
    await web.page.getByRole('button', { name: /^Skills/ }).click();
    await web.page.getByRole('listbox', { name: 'Skills' }).getByRole('option').first().waitFor();
    await shoot('first-hour-skills');
    await web.page.getByRole('button', { name: /^Composer/ }).click();
    await web.page.getByRole('complementary', { name: 'Skill catalog' }).waitFor();
    await shoot('first-hour-composer');
    await web.page.setViewportSize({ width: 1024, height: 700 });
    // No kind chip is cut by its row at 1024 px.
    for (const view of ['Skills', 'Composer'] as const) {
      await web.page.getByRole('button', { name: new RegExp(`^${view}`) }).click();
      await web.page.locator('.chip').first().waitFor();
      const cut = await web.page.evaluate(
        () =>
          [...document.querySelectorAll<HTMLElement>('.chip')].filter((chip) => {
            const box = chip.getBoundingClientRect();
            // A kind left out of a narrow row is counted by its "+N" chip, not cut.
            if (box.width === 0) return !chip.parentElement?.querySelector('.chip-more--narrow');
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
      const header = await web.page.evaluate(() => {
        const pane = document.querySelector('.sc-catalog, .list-pane');
        if (!pane) return 0;
        const edge = pane.getBoundingClientRect().right;
        return [...pane.querySelectorAll('.sc-catalog__head button, .pane-head button')].filter(
          (b) => b.getBoundingClientRect().right > edge + 0.5,
        ).length;
      });
      expect(header, `${view}: header buttons cut at 1024 px`).toBe(0);
    }
    await web.page.setViewportSize({ width: 1440, height: 900 });
    await web.page.getByRole('button', { name: /^Settings/ }).click();
    await web.page.getByText('Open a project folder as a workspace').waitFor();
    await web.page.getByText('Open a project folder as a workspace').scrollIntoViewIfNeeded();
    await shoot('first-hour-settings-locations');
    expect(web.problems).toEqual([]);
  });

  it('reaches "New skill with AI" from the command palette, + New and both catalog headers', async () => {
    const aiDialog = web.page.getByRole('dialog', { name: 'New skill with AI' });
    const close = async () => {
      await web.page.keyboard.press('Escape');
      await pw(aiDialog).toHaveCount(0);
    };
    await web.page.keyboard.press('Control+1');
    await web.page.keyboard.press('Control+Shift+P');
    const palette = web.page.getByRole('dialog', { name: 'Command palette' });
    await pw(palette.getByRole('combobox', { name: 'Command' })).toBeFocused();
    await shoot('first-hour-palette');
    await web.page.keyboard.type('skill ai');
    await pw(palette.getByRole('option')).toHaveCount(1);
    await web.page.keyboard.press('Enter');
    await pw(aiDialog).toBeVisible();
    await pw(aiDialog.getByLabel('Describe what the skill should do')).toBeFocused();
    await pw(
      web.page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /^Composer/ }),
    ).toHaveAttribute('aria-current', 'page');
    await shoot('first-hour-new-with-ai');
    await close();

    // + New lists it first, above the templates.
    await web.page
      .getByRole('complementary', { name: 'Skill catalog' })
      .getByRole('button', { name: 'New', exact: true })
      .click();
    const newDialog = web.page.getByRole('dialog', { name: 'New skill', exact: true });
    await pw(newDialog.getByRole('button').first()).toContainText('New skill with AI');
    await newDialog.getByRole('button', { name: /New skill with AI/ }).click();
    await pw(newDialog).toHaveCount(0);
    await pw(aiDialog).toBeVisible();
    await close();

    await web.page
      .getByRole('complementary', { name: 'Skill catalog' })
      .getByRole('button', { name: 'New skill with AI' })
      .click();
    await pw(aiDialog).toBeVisible();
    await close();

    await web.page.keyboard.press('Control+2');
    await web.page
      .getByRole('region', { name: 'Skill catalog' })
      .getByRole('button', { name: 'New skill with AI' })
      .click();
    await pw(aiDialog).toBeVisible();
    await close();
    expect(web.problems).toEqual([]);
  });
});
