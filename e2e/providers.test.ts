/**
 * Providers side by side, in Chromium against web mode: two OpenAI-compatible loopback servers set up
 * in Settings → Providers (one with a key, one without), each tested by reading its `/models` (no
 * completion spent: the servers' logs say so), two chats pinned to a model of each, and both chats
 * still answered by their own server after the default provider changes. A test's "Connected"
 * line goes when the provider's base URL changes. Screenshots of Settings → Providers at 1440×900
 * and 1024×700, light and dark.
 */
import { expect as pw } from '@playwright/test';
import { expect, it } from 'vitest';
import type { LoopbackProvider } from '../electron/llm/index.js';
import { describeWeb, shot, shotSizes } from './web-suite.js';

describeWeb(
  'providers side by side (Chromium)',
  {
    id: 'e2e/providers',
    providers: {
      a: {
        turns: [
          { text: 'Alpha answers the first chat.', expect: { model: 'alpha-large' } },
          { text: 'Alpha still answers after the default changed.', expect: { model: 'alpha-large' } },
        ],
        api_key: 'sk-alpha',
        models: ['alpha-small', 'alpha-large'],
      },
      b: {
        turns: [
          { text: 'Beta answers the second chat.', expect: { model: 'beta-1' } },
          { text: 'Beta answers again.', expect: { model: 'beta-1' } },
        ],
        models: ['beta-1'],
      },
    },
    startTimeoutMs: 120_000,
  },
  (web) => {
    const composer = () => web.page.getByRole('textbox', { name: 'Message' });
    const replies = () => web.page.locator('.msg--assistant');
    const rows = () => web.page.getByRole('list', { name: 'Your providers' });
    const row = (name: string) => rows().getByRole('listitem', { name, exact: true });
    const completions = (p: LoopbackProvider) => p.requests.filter((r) => r.kind !== 'models').length;
    const openSettings = async () => {
      await web.page.getByRole('button', { name: /^Settings/ }).click();
      await web.page.getByRole('heading', { name: 'Providers', exact: true }).waitFor();
    };
    const pickModel = async (provider: string, model: string) => {
      await web.page.locator('.chat__model-menu > button').click();
      const menu = web.page.getByRole('menu', { name: 'Model for this chat' });
      const item = menu.getByRole('group', { name: new RegExp(provider) }).getByRole('menuitemradio', {
        name: model,
        exact: true,
      });
      await item.click();
      await web.page.getByRole('button', { name: `${provider} · ${model}` }).waitFor();
    };
    const send = async (text: string, answer: string) => {
      await composer().fill(text);
      await composer().press('Enter');
      await replies().last().getByText(answer).waitFor();
    };

    it('adds a keyed local server, tests it by reading /models and spends no completion', async () => {
      await web.page.getByRole('button', { name: 'Pick a provider' }).click();
      await web.page.getByLabel('Provider', { exact: true }).selectOption('openai-compatible');
      await web.page.getByLabel('Name', { exact: true }).fill('Local A');
      await web.page.getByLabel('Model', { exact: true }).fill('alpha-large');
      await web.page.getByLabel('Base URL').fill(web.providers.a.url);
      await web.page.getByRole('button', { name: 'Use this provider' }).click();
      await web.page.getByText('Provider saved.').waitFor();
      await row('Local A').getByText('Default', { exact: true }).waitFor();
      await web.page.getByLabel('Local A API key').fill('sk-alpha');
      await web.page.getByRole('button', { name: 'Save key' }).click();
      await web.page.getByText('Key saved.').waitFor();
      await web.page.getByRole('button', { name: 'Test connection' }).click();
      await row('Local A')
        .getByText('Connected to alpha-large on Local A: 2 models listed, no tokens spent')
        .waitFor();
      await row('Local A')
        .getByText(/2 models read/)
        .waitFor();
      expect(web.providers.a.requests.map((r) => `${r.method} ${r.kind}`)).toEqual(['GET models']);
      expect(completions(web.providers.a)).toBe(0);
      expect(web.providers.a.remaining()).toBe(2);
    });

    it('adds a second server beside it, without a key, that does not take the default', async () => {
      await web.page.getByRole('button', { name: 'Add a provider' }).click();
      await web.page.getByRole('heading', { name: 'Add a provider' }).waitFor();
      await web.page.getByLabel('Provider', { exact: true }).selectOption('openai-compatible');
      await web.page.getByLabel('Name', { exact: true }).fill('Local B');
      await web.page.getByLabel('Model', { exact: true }).fill('beta-1');
      await web.page.getByLabel('Base URL').fill(web.providers.b.url);
      await web.page.getByRole('button', { name: 'Add provider' }).click();
      await row('Local B').waitFor();
      await pw(row('Local B').getByText('Default', { exact: true })).toHaveCount(0);
      await row('Local B').getByRole('button', { name: 'Test Local B' }).click();
      await row('Local B')
        .getByText(/Connected to beta-1 on Local B: 1 model listed/)
        .waitFor();
      expect(completions(web.providers.b)).toBe(0);
      // The first provider's status stays its own.
      await row('Local A')
        .getByText(/Connected to alpha-large/)
        .waitFor();
      await shotSizes(web.page, 'providers-settings');
      // The app scrolls inside its pane: the foot of the card is shot scrolled to.
      await web.page.getByLabel('Name new chats from their first exchange').scrollIntoViewIfNeeded();
      await shot(web.page, 'providers-settings-1440x900-foot-light');
    });

    it('pins two chats to models of different providers; both keep working after the default changes', async () => {
      await web.page.keyboard.press('Control+1');
      await composer().waitFor();
      await pickModel('Local A', 'alpha-large');
      await send('Which server are you?', 'Alpha answers the first chat.');
      await web.page.getByRole('button', { name: 'New chat' }).click();
      await pickModel('Local B', 'beta-1');
      await send('And who are you?', 'Beta answers the second chat.');

      await openSettings();
      await row('Local B').getByRole('button', { name: 'Make Local B the default' }).click();
      await row('Local B').getByText('Default', { exact: true }).waitFor();
      await pw(row('Local A').getByText('Default', { exact: true })).toHaveCount(0);

      await web.page.keyboard.press('Control+1');
      const chats = web.page.getByRole('region', { name: 'Chats' }).getByRole('list').first();
      await chats.getByRole('button', { name: 'Which server are you?', exact: true }).click();
      await web.page.getByRole('button', { name: 'Local A · alpha-large' }).waitFor();
      await send('Still there?', 'Alpha still answers after the default changed.');
      await chats.getByRole('button', { name: 'And who are you?', exact: true }).click();
      await web.page.getByRole('button', { name: 'Local B · beta-1' }).waitFor();
      await send('Again?', 'Beta answers again.');
      expect([web.providers.a.remaining(), web.providers.b.remaining()]).toEqual([0, 0]);
      expect(web.providers.a.requests.filter((r) => r.kind !== 'models').every((r) => r.status === 200)).toBe(
        true,
      );
    });

    it('forgets a test outcome when the provider’s base URL changes', async () => {
      await openSettings();
      await row('Local A').getByRole('button', { name: 'Edit Local A' }).click();
      await web.page.getByRole('heading', { name: 'Edit Local A' }).waitFor();
      await row('Local A').getByRole('button', { name: 'Test Local A' }).click();
      await row('Local A')
        .getByText(/Connected to alpha-large/)
        .waitFor();
      await web.page.getByLabel('Base URL').fill(`${web.providers.a.url}/`);
      await web.page.getByRole('button', { name: 'Save changes' }).click();
      await web.page.getByText('Provider saved.').waitFor();
      await pw(row('Local A').getByText(/Connected to/)).toHaveCount(0);
      await row('Local A').getByText('Models not read yet').waitFor();
      expect(completions(web.providers.a)).toBe(2);
      expect(web.problems).toEqual([]);
    });
  },
);
