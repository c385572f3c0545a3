/**
 * Automatic chat titles in Chromium against web mode with the loopback provider: after the first
 * reply the chat's model names the chat (one small call), the sidebar and the header show it, and
 * the header's title is renamed in place with the keyboard; a title the user sets while the model is
 * still writing one stays.
 */
import { expect as pw } from '@playwright/test';
import { beforeAll, expect, it } from 'vitest';
import { connectProvider } from './browser.js';
import { describeWeb, shot } from './web-suite.js';

describeWeb(
  'automatic chat titles (Chromium)',
  {
    id: 'e2e/chat-titles',
    script: {
      turns: [
        { text: 'Most penguins live in the Southern Hemisphere.' },
        { text: 'Penguin Habitats', expect: { last_user_contains: 'where do penguins live' } },
        { text: 'Sure, 6 × 7 = 42.' },
        { text: 'Simple Multiplication', delay_ms: 1500 },
      ],
      api_key: 'sk-titles',
    },
    env: { SKILLDESK_CHAT_TITLES: 'auto' },
    open: 'url',
    startTimeoutMs: 120_000,
  },
  (web) => {
    beforeAll(async () => {
      await composer().waitFor();
      await connectProvider(web.page, web.provider.url, 'sk-titles');
      await web.page.keyboard.press('Control+1');
    }, 120_000);

    const composer = () => web.page.getByRole('textbox', { name: 'Message' });
    const chats = () => web.page.getByRole('region', { name: 'Chats' }).getByRole('list').first();
    const header = () => web.page.locator('.chat__head');
    const send = async (text: string, answer: string) => {
      await composer().fill(text);
      await composer().press('Enter');
      await web.page.locator('.msg--assistant').last().getByText(answer).waitFor();
    };

    it('names a new chat from its first exchange with one small call', async () => {
      await send('where do penguins live? answer briefly', 'Most penguins live in the Southern Hemisphere.');
      await chats().getByRole('button', { name: 'Penguin Habitats', exact: true }).waitFor();
      await header().getByRole('button', { name: 'Penguin Habitats' }).waitFor();
      const titleCall = web.provider.requests.at(-1)!.body as { max_tokens?: number; stream?: boolean };
      expect(titleCall.max_tokens).toBeLessThanOrEqual(24);
      await shot(web.page, 'chat-auto-title-1440-light');
    });

    it('renames the chat in the header with the keyboard', async () => {
      await header().getByRole('button', { name: 'Penguin Habitats' }).focus();
      await web.page.keyboard.press('Enter');
      const box = web.page.getByRole('textbox', { name: 'Chat title' });
      await pw(box).toBeFocused();
      await web.page.keyboard.type('Birds of the south');
      await web.page.keyboard.press('Enter');
      await chats().getByRole('button', { name: 'Birds of the south', exact: true }).waitFor();
      await header().getByRole('button', { name: 'Birds of the south' }).waitFor();
      // Esc keeps the title.
      await header().getByRole('button', { name: 'Birds of the south' }).click();
      await web.page.keyboard.type('thrown away');
      await web.page.keyboard.press('Escape');
      await header().getByRole('button', { name: 'Birds of the south' }).waitFor();
    });

    it('keeps a title the user sets while the model is still writing one', async () => {
      await web.page.getByRole('button', { name: 'New chat' }).click();
      await send('what is 6 times 7', 'Sure, 6 × 7 = 42.');
      // The title call is answered 1.5 s later; the user renames first.
      await expect.poll(() => web.provider.requests.length).toBe(5);
      await header().getByRole('button', { name: 'what is 6 times 7' }).click();
      await web.page.getByRole('textbox', { name: 'Chat title' }).fill('Times tables');
      await web.page.keyboard.press('Enter');
      await chats().getByRole('button', { name: 'Times tables', exact: true }).waitFor();
      await expect
        .poll(() => web.provider.requests.at(-1)?.client_closed ?? web.provider.requests.at(-1)?.status)
        .toBeTruthy();
      await pw(chats().getByRole('button', { name: 'Simple Multiplication' })).toHaveCount(0);
      await chats().getByRole('button', { name: 'Times tables', exact: true }).waitFor();
      expect(web.problems).toEqual([]);
    });
  },
);
