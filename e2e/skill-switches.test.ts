// A skill's switch in the Skills view: the radio group sets name-only or off through the host
// (skills/set-switch), survives a reload, and an off skill leaves the chat's / menu.
import { expect, it } from 'vitest';
import { runCli } from '../electron/test-support/index.js';
import { describeWeb, shot } from './web-suite.js';

describeWeb(
  'skill switches in the Skills view',
  { id: 'e2e/skill-switches', page: { width: 1440, height: 900, timeoutMs: 8000 } },
  (web) => {
    it('switches a skill to name-only and off, by keyboard, and the / menu follows', async () => {
      await web.page.getByRole('button', { name: /^Skills/ }).click();
      await web.page
        .getByRole('listbox', { name: 'Skills' })
        .getByRole('option', { name: /Summarize/ })
        .click();
      await web.page.getByRole('heading', { level: 2, name: 'Summarize' }).waitFor();
      const group = web.page.getByRole('radiogroup', { name: 'Use in chats' });
      await expect.poll(() => group.getByRole('radio', { name: 'On', exact: true }).isChecked()).toBe(true);

      await group.getByRole('radio', { name: 'On', exact: true }).focus();
      await web.page.keyboard.press('ArrowRight');
      await expect.poll(() => group.getByRole('radio', { name: 'Name only' }).isChecked()).toBe(true);
      await expect
        .poll(() => web.page.locator('.skill-switch__help').textContent())
        .toContain('never put into a prompt');
      await shot(web.page, 'skill-switch-name-only-1440');

      await group.getByText('Off', { exact: true }).click();
      await expect
        .poll(async () => {
          const r = await runCli(['--home', web.app.home, '--json', 'skills', 'list']);
          return (JSON.parse(r.stdout) as { skills: Array<{ name: string; switch: string }> }).skills.find(
            (s) => s.name === 'Summarize',
          )?.switch;
        })
        .toBe('off');
      await web.page.reload();
      await web.page.getByRole('button', { name: /^Skills/ }).click();
      await web.page
        .getByRole('listbox', { name: 'Skills' })
        .getByRole('option', { name: /Summarize/ })
        .click();
      await expect
        .poll(() =>
          web.page
            .getByRole('radiogroup', { name: 'Use in chats' })
            .getByRole('radio', { name: 'Off', exact: true })
            .isChecked(),
        )
        .toBe(true);

      await web.page.getByRole('button', { name: /^Chat/ }).click();
      const composer = web.page.getByRole('textbox', { name: 'Message' });
      await composer.fill('/s');
      const menu = web.page.getByRole('listbox', { name: 'Skills' });
      await menu.getByRole('option').first().waitFor();
      await expect.poll(() => menu.getByRole('option', { name: /Summarize/ }).count()).toBe(0);
      expect((await runCli(['--home', web.app.home, 'skills', 'set', 'Summarize', 'on'])).code).toBe(0);
      expect(web.problems).toEqual([]);
    });
  },
);
