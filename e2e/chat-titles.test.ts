/**
 * Automatic chat titles in Chromium against web mode with the loopback provider: after the first
 * reply the chat's model names the chat (one small call), the sidebar and the header show it, and
 * the header's title is renamed in place with the keyboard; a title the user sets while the model is
 * still writing one stays.
 */
import { join } from 'node:path';
import { expect as pw } from '@playwright/test';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoopbackProvider } from '../electron/llm/index.js';
import { startLoopbackProvider } from '../electron/llm/index.js';
import { skipWithout, testArtifactsDir } from '../electron/test-support/index.js';
import { connectProvider, type E2eApp, findChromium, launch, openPage, startApp } from './browser.js';

const chromiumPath = findChromium();
const skip = skipWithout(!chromiumPath && 'no Chromium found (set CHROMIUM_PATH)', 'e2e/chat-titles');
const shots = () => testArtifactsDir('e2e');

describe.skipIf(skip)('automatic chat titles (Chromium)', () => {
  let app: E2eApp;
  let provider: LoopbackProvider;
  let browser: Awaited<ReturnType<typeof launch>>;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    provider = await startLoopbackProvider({
      script: {
        turns: [
          { text: 'Most penguins live in the Southern Hemisphere.' },
          { text: 'Penguin Habitats', expect: { last_user_contains: 'where do penguins live' } },
          { text: 'Sure, 6 × 7 = 42.' },
          { text: 'Simple Multiplication', delay_ms: 1500 },
        ],
        api_key: 'sk-titles',
      },
    });
    app = await startApp({ env: { SKILLDESK_CHAT_TITLES: 'auto' } });
    browser = await launch(chromiumPath!);
    page = await openPage(browser, problems);
    await page.goto(app.server.url);
    await composer().waitFor();
    await connectProvider(page, provider.url, 'sk-titles');
    await page.keyboard.press('Control+1');
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    await provider?.close();
  });

  const composer = () => page.getByRole('textbox', { name: 'Message' });
  const chats = () => page.getByRole('region', { name: 'Chats' }).getByRole('list').first();
  const header = () => page.locator('.chat__head');
  const send = async (text: string, answer: string) => {
    await composer().fill(text);
    await composer().press('Enter');
    await page.locator('.msg--assistant').last().getByText(answer).waitFor();
  };

  it('names a new chat from its first exchange with one small call', async () => {
    await send('where do penguins live? answer briefly', 'Most penguins live in the Southern Hemisphere.');
    await chats().getByRole('button', { name: 'Penguin Habitats', exact: true }).waitFor();
    await header().getByRole('button', { name: 'Penguin Habitats' }).waitFor();
    const titleCall = provider.requests.at(-1)!.body as { max_tokens?: number; stream?: boolean };
    expect(titleCall.max_tokens).toBeLessThanOrEqual(24);
    await page.screenshot({ path: join(shots(), 'chat-auto-title-1440-light.png') });
  });

  it('renames the chat in the header with the keyboard', async () => {
    await header().getByRole('button', { name: 'Penguin Habitats' }).focus();
    await page.keyboard.press('Enter');
    const box = page.getByRole('textbox', { name: 'Chat title' });
    await pw(box).toBeFocused();
    await page.keyboard.type('Birds of the south');
    await page.keyboard.press('Enter');
    await chats().getByRole('button', { name: 'Birds of the south', exact: true }).waitFor();
    await header().getByRole('button', { name: 'Birds of the south' }).waitFor();
    // Esc keeps the title.
    await header().getByRole('button', { name: 'Birds of the south' }).click();
    await page.keyboard.type('thrown away');
    await page.keyboard.press('Escape');
    await header().getByRole('button', { name: 'Birds of the south' }).waitFor();
  });

  it('keeps a title the user sets while the model is still writing one', async () => {
    await page.getByRole('button', { name: 'New chat' }).click();
    await send('what is 6 times 7', 'Sure, 6 × 7 = 42.');
    // The title call is answered 1.5 s later; the user renames first.
    await expect.poll(() => provider.requests.length).toBe(5);
    await header().getByRole('button', { name: 'what is 6 times 7' }).click();
    await page.getByRole('textbox', { name: 'Chat title' }).fill('Times tables');
    await page.keyboard.press('Enter');
    await chats().getByRole('button', { name: 'Times tables', exact: true }).waitFor();
    await expect
      .poll(() => provider.requests.at(-1)?.client_closed ?? provider.requests.at(-1)?.status)
      .toBeTruthy();
    await pw(chats().getByRole('button', { name: 'Simple Multiplication' })).toHaveCount(0);
    await chats().getByRole('button', { name: 'Times tables', exact: true }).waitFor();
    expect(problems).toEqual([]);
  });
});
