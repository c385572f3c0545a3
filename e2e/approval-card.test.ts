// The tool-approval card while the user types, in Chromium with the loopback provider: the model's
// call to server-everything's echo arrives two seconds after the message is sent, while a sentence
// full of the old one-letter answers ("also", "a", "c", "d", spaces) is being typed. The whole
// sentence ends in the message box, nothing is answered, and Ctrl+Enter then allows the call once
// (nothing is remembered). A second call is reached with Shift+Tab (focus ring shown), text typed
// there goes on to the message box, and Enter on the tabbed-to Deny denies.
// Screenshots of the card over a half-written message, light and dark, at 1440×900 and 1024×700.
import { expect as pw } from '@playwright/test';
import { expect, it } from 'vitest';
import { describeWeb, shotSizes, withEverythingServer } from './web-suite.js';

const BEFORE = 'I also want a summary, ';
const AFTER = 'and a c d: deny nothing, Always allow nothing; yes!';
const SENTENCE = BEFORE + AFTER;

const SCRIPT = [
  // The call arrives while the user is still typing the next message.
  { tool_calls: [{ name: 'everything__echo', arguments: { message: 'typed over' } }], delay_ms: 2000 },
  { text: 'Echoed once.', expect: { tool_result_contains: 'Echo: typed over' } },
  { tool_calls: [{ name: 'everything__get-sum', arguments: { a: 1, b: 2 } }] },
  { text: 'Not adding them.', expect: { tool_result_contains: 'user denied' } },
];

describeWeb(
  'Approval card while typing (Chromium)',
  {
    id: 'e2e/approval-card',
    script: { turns: SCRIPT, api_key: 'sk-e2e-approval' },
    prepareHome: withEverythingServer,
    page: { timeoutMs: 15_000, consoleErrors: false },
  },
  (web) => {
    const composer = () => web.page.getByRole('textbox', { name: 'Message' });
    const card = () => web.page.locator('section.approval');
    // Let the colour transitions finish before a screenshot.
    const settle = () =>
      web.page.evaluate(() =>
        Promise.all(
          document
            .getAnimations()
            .filter((a) => a instanceof CSSTransition)
            .map((a) => a.finished.catch(() => {})),
        ),
      );
    const shoot = (name: string) => shotSizes(web.page, name, { animations: 'disabled', settle });

    it('keeps every typed key in the message box while a card appears; Ctrl+Enter then allows once', async () => {
      await web.page.getByRole('button', { name: /^Settings/ }).click();
      await web.page.getByLabel('Provider', { exact: true }).selectOption('openai');
      await web.page.getByLabel('Base URL').fill(web.provider.url);
      await web.page.getByRole('button', { name: 'Use this provider' }).click();
      await web.page.getByText('Provider saved.').waitFor();
      await web.page.getByLabel('OpenAI API key').fill('sk-e2e-approval');
      await web.page.getByRole('button', { name: 'Save key' }).click();
      await web.page.getByText('Key saved.').waitFor();
      await web.page.keyboard.press('Control+1');

      // Note what the message box held when the card first showed up.
      await web.page.evaluate(() => {
        const w = window as unknown as { cardAppearedAt?: string };
        new MutationObserver((_, obs) => {
          if (!document.querySelector('section.approval')) return;
          w.cardAppearedAt = (document.querySelector('#composer-input') as HTMLTextAreaElement).value;
          obs.disconnect();
        }).observe(document.body, { childList: true, subtree: true });
      });
      await composer().fill('Echo something for me');
      await composer().press('Enter');
      await pw(web.page.locator('.msg--user')).toContainText('Echo something for me');
      await pw(composer()).toBeFocused();
      await pw(composer()).toHaveValue('');

      // The user starts the next message; the card arrives while they type, and they go on.
      await web.page.keyboard.type(BEFORE, { delay: 25 });
      await pw(card()).toBeVisible({ timeout: 30_000 });
      await web.page.keyboard.type(AFTER, { delay: 25 });

      await pw(composer()).toHaveValue(SENTENCE);
      await pw(composer()).toBeFocused();
      const appearedAt = await web.page.evaluate(
        () => (window as unknown as { cardAppearedAt?: string }).cardAppearedAt,
      );
      expect(
        appearedAt && appearedAt.length > 0 && SENTENCE.startsWith(appearedAt),
        `typed when the card came: ${appearedAt}`,
      ).toBe(true);
      // Nothing was answered: the card waits with every button live and the next script turn is unused.
      await pw(card()).toHaveCount(1);
      for (const name of [/Allow once/, /Allow in this chat/, /Always allow/, /Deny/])
        await pw(card().getByRole('button', { name })).toBeEnabled();
      expect(web.provider.remaining()).toBe(SCRIPT.length - 1);
      await pw(card().getByRole('button', { name: /Allow once/ })).toContainText('Ctrl Enter');
      await pw(card().getByRole('button', { name: /Always allow/ })).toHaveText(
        /^Always allow in your account$/,
      );
      await pw(card()).toContainText('revoke it in Settings → Tool approvals');
      await shoot('ui-approval-typing');

      await web.page.keyboard.press('Control+Enter');
      await pw(card()).toHaveCount(0);
      await pw(web.page.locator('.msg--assistant').last()).toContainText('Echoed once.', { timeout: 20_000 });
      // Ctrl+Enter answered the card and did not send the draft.
      await pw(composer()).toHaveValue(SENTENCE);
      expect(web.provider.remaining()).toBe(SCRIPT.length - 2);
    }, 120_000);

    it('is reachable with Shift+Tab, passes typed text on to the message box, and Enter on Deny denies', async () => {
      await composer().fill('Add one and two');
      await composer().press('Enter');
      await pw(card()).toBeVisible({ timeout: 30_000 });
      await pw(card()).toContainText('get-sum');
      await pw(composer()).toBeFocused();

      const deny = card().getByRole('button', { name: /Deny/ });
      const toDeny = async () => {
        // Back from the message box past the composer's attach buttons and the chat's Files bar
        // (its toggle, Add files, the Python picker and the network host field) to the card's last
        // button.
        for (let i = 0; i < 10; i++) {
          await web.page.keyboard.press('Shift+Tab');
          if (await deny.evaluate((b) => b === document.activeElement)) return;
        }
        throw new Error('Shift+Tab from the message box never reached the card');
      };
      await toDeny();
      await pw(deny).toBeFocused();
      expect(await deny.evaluate((b) => getComputedStyle(b).outlineStyle)).toBe('solid');
      await shoot('ui-approval-focus');

      // Typing with focus on a card button goes on into the message box.
      await web.page.keyboard.type('ok');
      await pw(composer()).toBeFocused();
      await pw(composer()).toHaveValue('ok');
      await pw(card()).toHaveCount(1);

      await toDeny();
      await web.page.keyboard.press('Enter');
      await pw(card()).toHaveCount(0);
      await pw(web.page.locator('.msg--assistant').last()).toContainText('Not adding them.', {
        timeout: 20_000,
      });

      // Nothing was stored as always allowed.
      await web.page.getByRole('button', { name: /^Settings/ }).click();
      const approvals = web.page.locator('section', {
        has: web.page.getByRole('heading', { name: 'Tool approvals' }),
      });
      await pw(approvals.getByText(/No tool is always allowed/)).toBeVisible();
      expect(web.problems).toEqual([]);
    }, 120_000);
  },
);
