/**
 * Chat features users expect, in Chromium against web mode with the loopback provider:
 * attach a CSV and run CSV Statistics on it from the `/` menu, copy, regenerate and edit-resend
 * with the branch switcher, search finds a message in another chat, export, and a chat opened
 * mid-stream shows the reply so far. Screenshots at 1440×900 and 1024×700, light and dark.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { connectProvider } from './browser.js';
import { describeWeb, shot } from './web-suite.js';

const CSV = 'city,temp\nOslo,4\nLima,19\nCairo,27\n';

const SCRIPT = [
  // CSV Statistics ran first (from the / menu); the model sees the file and the skill's result.
  {
    text: ['The mean temperature is **16.67 °C** ', '(min 4 in Oslo, max 27 in Cairo).'],
    usage: { input_tokens: 300, output_tokens: 20 },
    expect: { last_user_contains: 'Oslo,4', tool_result_contains: '16.666' },
  },
  // Regenerate.
  { text: 'Second take: about 16.7 °C on average.', usage: { input_tokens: 310, output_tokens: 12 } },
  // Edit and resend (the file goes along).
  {
    text: 'The warmest city is Cairo at 27 °C.',
    usage: { input_tokens: 290, output_tokens: 11 },
    expect: { last_user_contains: 'Which city is warmest' },
  },
  // Another chat.
  { text: 'Penguins mostly live in the Southern Hemisphere.' },
  // The same chat on the model chosen for it.
  { text: 'Emperor penguins breed in Antarctica.', expect: { model: 'gpt-4o' } },
  // A reply that stalls mid-stream.
  { text: ['Counting ', 'one, ', 'two, ', 'three'], hang_after: 2 },
];

describeWeb(
  'chat features in Chromium',
  {
    id: 'e2e/chat-features',
    script: { turns: SCRIPT, api_key: 'sk-e2e-test', models: ['gpt-4.1-mini', 'gpt-4o'] },
    page: { acceptDownloads: true },
  },
  (web) => {
    const composer = () => web.page.getByRole('textbox', { name: 'Message' });
    const replies = () => web.page.locator('.msg--assistant');
    const users = () => web.page.locator('.msg--user');
    const chatList = (p: Page = web.page) =>
      p.getByRole('region', { name: 'Chats' }).getByRole('list').first();
    const shoot = async (name: string) => {
      await shot(web.page, `${name}-light`);
      await web.page.emulateMedia({ colorScheme: 'dark' });
      await shot(web.page, `${name}-dark`);
      await web.page.emulateMedia({ colorScheme: 'light' });
    };

    it('configures the loopback provider', async () => {
      await connectProvider(web.page, web.provider.url, 'sk-e2e-test', /Connected to gpt-4\.1-mini/);
      await web.page.keyboard.press('Control+1');
      await composer().waitFor();
    });

    it('refuses an image and an oversize file in words, keeps the CSV', async () => {
      await web.page.locator('input[type=file][aria-label="Attach files"]').setInputFiles([
        { name: 'temps.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) },
        { name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47]) },
        { name: 'huge.txt', mimeType: 'text/plain', buffer: Buffer.alloc(600 * 1024, 'a') },
      ]);
      await web.page.getByText('photo.png is not a readable PNG, JPEG, GIF or WebP image.').waitFor();
      await web.page.getByText(/huge\.txt is 600 KB; files up to 512 KB can be attached/).waitFor();
      await web.page.getByRole('list', { name: 'Files to send' }).getByText('temps.csv').waitFor();
      await web.page
        .getByRole('alert')
        .filter({ hasText: 'photo.png' })
        .getByRole('button', { name: 'Dismiss' })
        .click();
    });

    it('runs CSV Statistics on the attached CSV from the / menu', async () => {
      await composer().fill('/csv');
      const menu = web.page.getByRole('listbox', { name: 'Skills' });
      await menu.getByRole('option', { name: /CSV Statistics/ }).waitFor();
      await shoot('ui-chat-slash-menu');
      await composer().press('Enter');
      const panel = web.page.getByRole('region', { name: 'Run CSV Statistics' });
      await panel.getByLabel('csv_text').waitFor();
      await panel.getByRole('button', { name: 'Use temps.csv' }).click();
      await expect.poll(() => panel.getByLabel('csv_text').inputValue()).toBe(CSV);
      await composer().fill('What is the average temperature?');
      await composer().press('Enter');
      const reply = replies().first();
      // The first Python run warms the sandbox up (Pyodide loads): allow for it on a busy machine.
      await reply.getByText(/The mean temperature is/).waitFor({ timeout: 90_000 });
      await reply
        .getByText(/CSV Statistics/)
        .first()
        .waitFor();
      await users().first().getByText('temps.csv').waitFor();
      await reply.getByText(/gpt-4\.1-mini · 300 in \/ 20 out/).waitFor();
      await web.page.locator('.chat__usage').getByText('300 in / 20 out').waitFor();
    }, 120_000);

    it('copies a reply', async () => {
      await web.page
        .context()
        .grantPermissions(['clipboard-read', 'clipboard-write'], { origin: web.app.server.url });
      await replies().first().getByRole('button', { name: 'Copy message' }).click();
      await replies().first().getByRole('button', { name: 'Copied' }).waitFor();
      await expect
        .poll(() => web.page.evaluate(() => navigator.clipboard.readText()))
        .toContain('The mean temperature is **16.67 °C**');
    });

    it('regenerates a reply and switches between the two', async () => {
      await replies().first().getByRole('button', { name: 'Regenerate reply' }).click();
      await replies().first().getByText('Second take: about 16.7 °C on average.').waitFor();
      const switcher = replies().first().getByRole('group', { name: 'reply 2 of 2' });
      await switcher.waitFor();
      await switcher.getByRole('button', { name: 'Previous reply' }).click();
      await replies()
        .first()
        .getByText(/The mean temperature is/)
        .waitFor();
      await replies().first().getByRole('group', { name: 'reply 1 of 2' }).waitFor();
      // Totals count both replies.
      await web.page.locator('.chat__usage').getByText('610 in / 32 out').waitFor();
    });

    it('edits the question and resends it as a new branch, the old one kept', async () => {
      await users().first().hover();
      await users().first().getByRole('button', { name: 'Edit message' }).click();
      const box = web.page.getByRole('textbox', { name: 'Edit message' });
      await box.fill('Which city is warmest?');
      await shoot('ui-chat-edit');
      await box.press('Enter');
      await replies().first().getByText('The warmest city is Cairo at 27 °C.').waitFor();
      await expect(users().count()).resolves.toBe(1);
      await users().first().getByText('Which city is warmest?').waitFor();
      // The file went along with the edit.
      await users().first().getByText('temps.csv').waitFor();
      const versions = users().first().getByRole('group', { name: 'version 2 of 2' });
      await versions.waitFor();
      await shoot('ui-chat-branches');
      await versions.getByRole('button', { name: 'Previous version' }).click();
      await users().first().getByText('What is the average temperature?').waitFor();
      await replies()
        .first()
        .getByText(/The mean temperature is|Second take/)
        .waitFor();
      await users().first().getByRole('group', { name: 'version 1 of 2' }).waitFor();
    });

    it('exports the chat as Markdown and JSON', async () => {
      await web.page.getByRole('button', { name: 'Export' }).click();
      const [md] = await Promise.all([
        web.page.waitForEvent('download'),
        web.page.getByRole('menuitem', { name: /Markdown/ }).click(),
      ]);
      expect(md.suggestedFilename()).toBe('what-is-the-average-temperature.md');
      const text = readFileSync((await md.path())!, 'utf8');
      expect(text).toContain('## You\n\nWhat is the average temperature?');
      expect(text).toContain('📎 temps.csv');
      await web.page.getByRole('button', { name: 'Export' }).click();
      const [json] = await Promise.all([
        web.page.waitForEvent('download'),
        web.page.getByRole('menuitem', { name: /JSON/ }).click(),
      ]);
      const doc = JSON.parse(readFileSync((await json.path())!, 'utf8'));
      // Every branch: two questions and three replies.
      expect(doc.messages).toHaveLength(5);
    });

    it('search finds a message in another chat and opens it', async () => {
      await web.page.getByRole('button', { name: 'New chat' }).click();
      await composer().fill('Where do penguins live?');
      await composer().press('Enter');
      await replies()
        .first()
        .getByText(/Southern Hemisphere/)
        .waitFor();
      const search = web.page.getByRole('searchbox', { name: 'Search chats' });
      await search.fill('warmest');
      const hits = web.page.getByRole('list', { name: 'Search results' });
      await hits.getByRole('button', { name: /Which city is warmest/ }).waitFor();
      await hits.locator('mark', { hasText: 'warmest' }).first().waitFor();
      await shoot('ui-chat-search');
      await hits
        .getByRole('button', { name: /Which city is warmest/ })
        .first()
        .click();
      // The hit is on the other branch: opening it shows that branch.
      await users().first().getByText('Which city is warmest?').waitFor();
      await search.fill('zzzz');
      await web.page.getByText(/No message has all of “zzzz”/).waitFor();
      await search.press('Escape');
      await web.page.getByRole('list', { name: 'Search results' }).waitFor({ state: 'detached' });
    });

    it('chooses a model for this chat from the provider’s list', async () => {
      await chatList().getByRole('button', { name: 'Where do penguins live?', exact: true }).click();
      await web.page.getByRole('button', { name: /OpenAI · gpt-4\.1-mini/ }).click();
      const menu = web.page.getByRole('menu', { name: 'Model for this chat' });
      await menu.getByRole('menuitemradio', { name: 'gpt-4o', exact: true }).waitFor();
      await shoot('ui-chat-model-picker');
      await menu.getByRole('menuitemradio', { name: 'gpt-4o', exact: true }).click();
      await web.page.getByRole('button', { name: /OpenAI · gpt-4o/ }).waitFor();
      await composer().fill('Which ones breed in winter?');
      await composer().press('Enter');
      await replies().nth(1).getByText('Emperor penguins breed in Antarctica.').waitFor();
      await replies()
        .nth(1)
        .getByText(/^gpt-4o ·/)
        .waitFor();
    });

    it('a chat opened mid-stream shows the reply so far', async () => {
      await web.page.getByRole('button', { name: 'New chat' }).click();
      await composer().fill('Count slowly to three');
      await composer().press('Enter');
      await replies().first().getByText('Counting one,').waitFor();
      // Another window opens the same chat while the reply is still being written.
      const other = await web.browser.newPage({ viewport: { width: 1024, height: 700 } });
      other.setDefaultTimeout(10_000);
      await other.goto(web.app.server.url);
      // Its row carries a "Replying" marker beside the title.
      await chatList(other).locator('.session__open', { hasText: 'Count slowly to three' }).click();
      await other.locator('.msg--assistant.is-streaming').getByText('Counting one,').waitFor();
      await shot(other, 'ui-chat-mid-stream-1024-light');
      await other.close();
      await web.page.getByRole('button', { name: 'Stop' }).click();
      await replies()
        .first()
        .getByText(/Stopped/)
        .waitFor();
    });

    it('looks right at 1024×700, light and dark', async () => {
      await chatList().getByRole('button', { name: 'What is the average temperature?', exact: true }).click();
      await users().first().waitFor();
      await web.page.setViewportSize({ width: 1024, height: 700 });
      await shoot('ui-chat-features-1024');
      await composer().fill('/');
      await web.page.getByRole('listbox', { name: 'Skills' }).waitFor();
      await shoot('ui-chat-slash-menu-1024');
      await composer().fill('');
      await web.page.setViewportSize({ width: 1440, height: 900 });
      await shoot('ui-chat-features-1440');
      expect(web.problems).toEqual([]);
    });
  },
);
