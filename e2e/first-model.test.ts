// The first message on a correct setup, in Chromium over web mode, against loopback servers that
// answer 404 for a model they do not serve (as Ollama does). A model server running on this
// machine is offered on the new-chat screen with its models: one click to use it, and the first
// message is answered by a model it lists (no model name typed: clicks counted). A provider
// saved without a model gets the first one its server lists; Test connection that finds the
// saved model missing is amber, not green, and offers the served models in one click.
// A reply's single newlines stay line breaks (a haiku keeps its three lines).
// Screenshots at 1440×900 and 1024×700, light and dark.
import { expect as pw } from '@playwright/test';
import { beforeAll, expect, it } from 'vitest';
import { E2E_ENV } from './browser.js';
import { describeWeb, shotSizes } from './web-suite.js';

describeWeb(
  'a model that answers the first message (Chromium)',
  {
    id: 'e2e/first-model',
    providers: {
      ollama: {
        turns: [
          {
            text: 'Cherry blossoms fall\nPetals drift on quiet streams\nSpring whispers goodbye',
            expect: { model: 'gemma3:1b' },
          },
        ],
        models: ['qwen3:4b', 'gemma3:1b'],
        strict_models: true,
      },
      proxy: {
        turns: [{ text: 'Alpha answers.', expect: { model: 'alpha-large' } }],
        models: ['alpha-small', 'alpha-large'],
        api_key: 'sk-alpha',
        strict_models: true,
      },
    },
    env: (web) => ({ ...E2E_ENV, SKILLDESK_LOCAL_SERVERS: `Ollama=${web.providers.ollama.url}` }),
    page: { timeoutMs: 15_000 },
    open: 'none',
    startTimeoutMs: 120_000,
  },
  (web) => {
    let clicks = 0;

    beforeAll(async () => {
      // Every click of the walk to the first answer is counted.
      await web.page.exposeFunction('__countClick', () => {
        clicks++;
      });
      await web.page.addInitScript(() => {
        document.addEventListener(
          'click',
          () => (window as unknown as { __countClick(): void }).__countClick(),
          true,
        );
      });
      await web.page.goto(web.app.server.url);
      await composer().waitFor();
    });

    const composer = () => web.page.getByRole('textbox', { name: 'Message' });
    const replies = () => web.page.locator('.msg--assistant');
    const rows = () => web.page.getByRole('list', { name: 'Your providers' });
    const row = (name: string) => rows().getByRole('listitem', { name, exact: true });
    const shoot = (name: string) => shotSizes(web.page, name, { animations: 'disabled' });

    it('offers the local server on the new-chat screen and answers the first message in two clicks', async () => {
      const found = web.page.getByRole('region', { name: 'Model servers on this computer' });
      const offer = found.getByRole('listitem', { name: 'Ollama' });
      await offer.getByText('2 models').waitFor();
      // Its models as the server lists them, the first chosen: nothing to type.
      await pw(offer.getByLabel('Model of Ollama')).toHaveValue('gemma3:1b');
      await pw(offer.getByLabel('Model of Ollama').locator('option')).toHaveText(['gemma3:1b', 'qwen3:4b']);
      await shoot('first-model-offer');
      const t0 = Date.now();
      await offer.getByRole('button', { name: 'Use Ollama' }).click();
      await web.page.getByRole('button', { name: 'Ollama · gemma3:1b' }).waitFor();
      await composer().fill('Write a haiku');
      await web.page.getByRole('button', { name: 'Send', exact: true }).click();
      await replies()
        .last()
        .getByText(/Cherry blossoms fall/)
        .waitFor();
      const seconds = (Date.now() - t0) / 1000;
      expect(clicks).toBeLessThanOrEqual(3);
      console.info(`first answer: ${clicks} clicks, ${seconds.toFixed(1)} s after the first click`);
      expect(web.providers.ollama.requests.filter((r) => r.kind !== 'models').map((r) => r.status)).toEqual([
        200,
      ]);
      // The haiku keeps its three lines: a single newline is a line break, as the model meant it.
      await pw(replies().last().locator('p br')).toHaveCount(2);
      const lines = await replies().last().locator('p').first().innerText();
      expect(lines.split('\n')).toEqual([
        'Cherry blossoms fall',
        'Petals drift on quiet streams',
        'Spring whispers goodbye',
      ]);
      await shoot('first-model-answered');
    });

    it('gives a provider saved without a model the first one its server lists', async () => {
      await web.page.getByRole('button', { name: /^Settings/ }).click();
      await web.page.getByRole('heading', { name: 'Providers', exact: true }).waitFor();
      await row('Ollama').getByText('gemma3:1b').waitFor();
      // The server set up is no longer offered.
      await pw(web.page.getByRole('region', { name: 'Model servers on this computer' })).toHaveCount(0);
      await web.page.getByRole('button', { name: 'Add a provider' }).click();
      await web.page.getByLabel('Provider', { exact: true }).selectOption('openai-compatible');
      await web.page.getByLabel('Name', { exact: true }).fill('Alpha');
      await web.page.getByLabel('Base URL').fill(web.providers.proxy.url);
      await web.page.getByRole('button', { name: 'Add provider' }).click();
      await row('Alpha').waitFor();
      await web.page.getByLabel('Alpha API key').fill('sk-alpha');
      await web.page.getByRole('button', { name: 'Save key' }).click();
      await web.page.getByText('Key saved.').waitFor();
      await web.page.getByRole('button', { name: 'Test connection' }).click();
      // Its list could not be read before the key was saved: the test reads it and says what it
      // picked (alpha-large sorts first in the list it gives).
      await row('Alpha').getByText('Chats use alpha-large, the first it serves').waitFor();
      await pw(row('Alpha').locator('.provider-row__status')).toHaveClass(/is-ok/);
    });

    it('says in amber, not green, that the saved model is not served, and offers the served ones', async () => {
      await web.page.getByLabel('Model', { exact: true }).fill('llama3.2');
      await web.page.getByRole('button', { name: 'Save changes' }).click();
      await web.page.getByText('Provider saved.').waitFor();
      await web.page.getByRole('button', { name: 'Test connection' }).click();
      const status = row('Alpha').locator('.provider-row__status');
      await pw(status).toHaveText(/does not serve llama3\.2: messages would fail/);
      await pw(status).toHaveClass(/is-warn/);
      await row('Alpha').getByLabel('Model for Alpha').focus();
      await shoot('first-model-missing');
      // Keyboard: the pick and its button are reachable and work with Enter.
      await web.page.keyboard.press('Tab');
      await pw(row('Alpha').getByRole('button', { name: 'Use this model' })).toBeFocused();
      await web.page.keyboard.press('Enter');
      await web.page.getByText('alpha-large is its model now.').waitFor();
      await row('Alpha').getByText('· alpha-large').waitFor();
      await web.page.getByRole('button', { name: 'Test connection' }).click();
      await pw(row('Alpha').locator('.provider-row__status')).toHaveClass(/is-ok/);
      expect(web.problems).toEqual([]);
    });
  },
);
