/**
 * Providers side by side, in Chromium against web mode: two OpenAI-compatible loopback servers set up
 * in Settings → Providers (one with a key, one without), each tested by reading its `/models` (no
 * completion spent: the servers' logs say so), two chats pinned to a model of each, and both chats
 * still answered by their own server after the default provider changes. A test's "Connected"
 * line goes when the provider's base URL changes. Screenshots of Settings → Providers at 1440×900
 * and 1024×700, light and dark.
 */
import { join } from 'node:path';
import { expect as pw } from '@playwright/test';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoopbackProvider, startLoopbackProvider } from '../electron/llm/index.js';
import { skipWithout, testArtifactsDir } from '../electron/test-support/index.js';
import { type E2eApp, findChromium, launch, openPage, startApp } from './browser.js';

const chromiumPath = findChromium();
const skip = skipWithout(!chromiumPath && 'no Chromium found (set CHROMIUM_PATH)', 'e2e/providers');
const shots = () => testArtifactsDir('e2e');

describe.skipIf(skip)('providers side by side (Chromium)', () => {
  let app: E2eApp;
  let a: LoopbackProvider;
  let b: LoopbackProvider;
  let browser: Awaited<ReturnType<typeof launch>>;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    a = await startLoopbackProvider({
      script: {
        turns: [
          { text: 'Alpha answers the first chat.', expect: { model: 'alpha-large' } },
          { text: 'Alpha still answers after the default changed.', expect: { model: 'alpha-large' } },
        ],
        api_key: 'sk-alpha',
        models: ['alpha-small', 'alpha-large'],
      },
    });
    b = await startLoopbackProvider({
      script: {
        turns: [
          { text: 'Beta answers the second chat.', expect: { model: 'beta-1' } },
          { text: 'Beta answers again.', expect: { model: 'beta-1' } },
        ],
        models: ['beta-1'],
      },
    });
    app = await startApp();
    browser = await launch(chromiumPath!);
    page = await openPage(browser, problems);
    await page.goto(app.server.url);
    await composer().waitFor();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    await a?.close();
    await b?.close();
  });

  const composer = () => page.getByRole('textbox', { name: 'Message' });
  const replies = () => page.locator('.msg--assistant');
  const rows = () => page.getByRole('list', { name: 'Your providers' });
  const row = (name: string) => rows().getByRole('listitem', { name, exact: true });
  const completions = (p: LoopbackProvider) => p.requests.filter((r) => r.kind !== 'models').length;
  const openSettings = async () => {
    await page.getByRole('button', { name: /^Settings/ }).click();
    await page.getByRole('heading', { name: 'Providers', exact: true }).waitFor();
  };
  const pickModel = async (provider: string, model: string) => {
    await page.locator('.chat__model-menu > button').click();
    const menu = page.getByRole('menu', { name: 'Model for this chat' });
    const item = menu.getByRole('group', { name: new RegExp(provider) }).getByRole('menuitemradio', {
      name: model,
      exact: true,
    });
    await item.click();
    await page.getByRole('button', { name: `${provider} · ${model}` }).waitFor();
  };
  const send = async (text: string, answer: string) => {
    await composer().fill(text);
    await composer().press('Enter');
    await replies().last().getByText(answer).waitFor();
  };

  it('adds a keyed local server, tests it by reading /models and spends no completion', async () => {
    await page.getByRole('button', { name: 'Pick a provider' }).click();
    await page.getByLabel('Provider', { exact: true }).selectOption('openai-compatible');
    await page.getByLabel('Name', { exact: true }).fill('Local A');
    await page.getByLabel('Model', { exact: true }).fill('alpha-large');
    await page.getByLabel('Base URL').fill(a.url);
    await page.getByRole('button', { name: 'Use this provider' }).click();
    await page.getByText('Provider saved.').waitFor();
    await row('Local A').getByText('Default', { exact: true }).waitFor();
    await page.getByLabel('Local A API key').fill('sk-alpha');
    await page.getByRole('button', { name: 'Save key' }).click();
    await page.getByText('Key saved.').waitFor();
    await page.getByRole('button', { name: 'Test connection' }).click();
    await row('Local A')
      .getByText('Connected to alpha-large on Local A: 2 models listed, no tokens spent')
      .waitFor();
    await row('Local A')
      .getByText(/2 models read/)
      .waitFor();
    expect(a.requests.map((r) => `${r.method} ${r.kind}`)).toEqual(['GET models']);
    expect(completions(a)).toBe(0);
    expect(a.remaining()).toBe(2);
  });

  it('adds a second server beside it, without a key, that does not take the default', async () => {
    await page.getByRole('button', { name: 'Add a provider' }).click();
    await page.getByRole('heading', { name: 'Add a provider' }).waitFor();
    await page.getByLabel('Provider', { exact: true }).selectOption('openai-compatible');
    await page.getByLabel('Name', { exact: true }).fill('Local B');
    await page.getByLabel('Model', { exact: true }).fill('beta-1');
    await page.getByLabel('Base URL').fill(b.url);
    await page.getByRole('button', { name: 'Add provider' }).click();
    await row('Local B').waitFor();
    await pw(row('Local B').getByText('Default', { exact: true })).toHaveCount(0);
    await row('Local B').getByRole('button', { name: 'Test Local B' }).click();
    await row('Local B')
      .getByText(/Connected to beta-1 on Local B: 1 model listed/)
      .waitFor();
    expect(completions(b)).toBe(0);
    // The first provider's status stays its own.
    await row('Local A')
      .getByText(/Connected to alpha-large/)
      .waitFor();
    for (const [w, h] of [
      [1440, 900],
      [1024, 700],
    ] as const) {
      await page.setViewportSize({ width: w, height: h });
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.screenshot({ path: join(shots(), `providers-settings-${w}x${h}-${scheme}.png`) });
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1440, height: 900 });
    // The app scrolls inside its pane: the foot of the card is shot scrolled to.
    await page.getByLabel('Name new chats from their first exchange').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots(), 'providers-settings-1440x900-foot-light.png') });
  });

  it('pins two chats to models of different providers; both keep working after the default changes', async () => {
    await page.keyboard.press('Control+1');
    await composer().waitFor();
    await pickModel('Local A', 'alpha-large');
    await send('Which server are you?', 'Alpha answers the first chat.');
    await page.getByRole('button', { name: 'New chat' }).click();
    await pickModel('Local B', 'beta-1');
    await send('And who are you?', 'Beta answers the second chat.');

    await openSettings();
    await row('Local B').getByRole('button', { name: 'Make Local B the default' }).click();
    await row('Local B').getByText('Default', { exact: true }).waitFor();
    await pw(row('Local A').getByText('Default', { exact: true })).toHaveCount(0);

    await page.keyboard.press('Control+1');
    const chats = page.getByRole('region', { name: 'Chats' }).getByRole('list').first();
    await chats.getByRole('button', { name: 'Which server are you?', exact: true }).click();
    await page.getByRole('button', { name: 'Local A · alpha-large' }).waitFor();
    await send('Still there?', 'Alpha still answers after the default changed.');
    await chats.getByRole('button', { name: 'And who are you?', exact: true }).click();
    await page.getByRole('button', { name: 'Local B · beta-1' }).waitFor();
    await send('Again?', 'Beta answers again.');
    expect([a.remaining(), b.remaining()]).toEqual([0, 0]);
    expect(a.requests.filter((r) => r.kind !== 'models').every((r) => r.status === 200)).toBe(true);
  });

  it('forgets a test outcome when the provider’s base URL changes', async () => {
    await openSettings();
    await row('Local A').getByRole('button', { name: 'Edit Local A' }).click();
    await page.getByRole('heading', { name: 'Edit Local A' }).waitFor();
    await row('Local A').getByRole('button', { name: 'Test Local A' }).click();
    await row('Local A')
      .getByText(/Connected to alpha-large/)
      .waitFor();
    await page.getByLabel('Base URL').fill(`${a.url}/`);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Provider saved.').waitFor();
    await pw(row('Local A').getByText(/Connected to/)).toHaveCount(0);
    await row('Local A').getByText('Models not read yet').waitFor();
    expect(completions(a)).toBe(2);
    expect(problems).toEqual([]);
  });
});
