// A chat's first Python run on a cold sandbox: the running tool card says the sandbox is starting
// and for how long, then the card shows the result. Screenshots at 1440 and 1024, light and dark.
import { expect as pw } from '@playwright/test';
import { expect, it } from 'vitest';
import { describeWeb, shotSizes } from './web-suite.js';

const SCRIPT = {
  api_key: 'sk-e2e-cold',
  turns: [
    {
      tool_calls: [
        { name: 'apply_skill', arguments: { name: 'CSV Statistics', ctx: { csv_text: 'a,b\n1,2\n3,4\n' } } },
      ],
    },
    { text: 'Column **a** averages 2.' },
  ],
};

describeWeb(
  'cold start inside the tool card (Chromium)',
  { id: 'e2e/cold-start-card', script: SCRIPT, page: { timeoutMs: 20_000 } },
  (web) => {
    it('says the sandbox is starting while the first Python run waits, then shows the result', async () => {
      await web.page.getByRole('button', { name: /^Settings/ }).click();
      await web.page.getByLabel('Provider', { exact: true }).selectOption('openai');
      await web.page.getByLabel('Base URL').fill(web.provider.url);
      await web.page.getByRole('button', { name: 'Use this provider' }).click();
      await web.page.getByText('Provider saved.').waitFor();
      await web.page.getByLabel('OpenAI API key').fill('sk-e2e-cold');
      await web.page.getByRole('button', { name: 'Save key' }).click();
      await web.page.getByText('Key saved.').waitFor();
      await web.page.keyboard.press('Control+1');
      // Words that match no Python skill: nothing starts the sandbox before the model asks for it.
      const box = web.page.getByRole('textbox', { name: 'Message' });
      await box.fill('hello there');
      await box.press('Enter');
      const line = web.page.locator('.step--running .step__progress');
      await pw(line).toContainText('Starting the Python sandbox…', { timeout: 60_000 });
      await shotSizes(web.page, 'cold-start-card', { dir: 'chat', label: 'width', animations: 'disabled' });
      await pw(web.page.locator('.step--ok')).toContainText('CSV Statistics', { timeout: 120_000 });
      await pw(line).toHaveCount(0);
      expect(web.problems).toEqual([]);
    }, 240_000);
  },
);
