// "New skill with AI" when the model cannot write one: a loopback model that answers with broken
// JSON every round. The dialog keeps the description (also across closing it), says what went wrong
// in words (no parser messages), offers the configured models and a hint to try a stronger one,
// never highlights "Accept" when nothing valid came back, and a retry with the other model works.
// Keyboard throughout; screenshots at 1440×900 and 1024×700, light and dark.
import { expect as pw } from '@playwright/test';
import { beforeAll, expect, it } from 'vitest';
import { connectProvider } from './browser.js';
import { describeWeb, shot, shotSizes } from './web-suite.js';

const BROKEN = 'Sure! Here is the skill you asked for: {"package": {"name": "Notes Tidier", "artifacts": [';
const VALID = JSON.stringify({
  package: {
    name: 'Notes Tidier',
    description: 'Turns meeting notes into decisions and action items with owners.',
    version: '1.0.0',
    source: 'user',
    tags: ['writing'],
    intent_patterns: ['tidy meeting notes'],
    trigger_phrases: ['tidy these notes'],
    requires: ['llm'],
    artifacts: [
      {
        kind: 'prompt_template',
        name: 'Tidy',
        ordinal: 0,
        content: 'List the decisions and actions in:\n\n{{ input }}',
      },
    ],
  },
  evals: {
    threshold: 0.8,
    evals: [
      { id: 1, prompt: 'We agreed to ship Friday. Ann writes the notes.', assertions: [] },
      { id: 2, prompt: 'Bo books the room.', assertions: [] },
      { id: 3, prompt: 'tidy these notes please', should_trigger: true },
    ],
  },
});
const DESCRIPTION = 'a skill that turns meeting notes into decisions and action items with owners';

describeWeb(
  '"New skill with AI" after failed rounds',
  {
    id: 'e2e/composer-ai-failure',
    script: {
      turns: [
        ...Array.from({ length: 4 }, () => ({ text: BROKEN, expect: { model: 'a-small' } })),
        { text: VALID, expect: { model: 'b-large' } },
      ],
      api_key: 'sk-e2e-fail',
      // Chats default to the first model listed: the weak one here.
      models: ['a-small', 'b-large'],
    },
    page: { timeoutMs: 30_000, consoleErrors: false },
    startTimeoutMs: 120_000,
  },
  (web) => {
    beforeAll(async () => {
      await connectProvider(web.page, web.provider.url, 'sk-e2e-fail');
    }, 120_000);

    it('keeps the description, explains the failure, offers a stronger model and retries', async () => {
      await web.page.keyboard.press('Control+3');
      await web.page.locator('.sc-blank').getByRole('button', { name: 'New skill with AI' }).click();
      const dialog = web.page.getByRole('dialog', { name: 'New skill with AI' });
      const describeBox = dialog.getByLabel('Describe what the skill should do');
      await pw(describeBox).toBeFocused();
      await describeBox.fill(DESCRIPTION);
      await web.page.keyboard.press('Control+Enter');

      const failure = dialog.locator('.ag-failed');
      await pw(dialog.locator('.btn--primary')).toHaveText(/Try again/, { timeout: 60_000 });
      await pw(failure).toContainText('No valid skill yet');
      await pw(failure).toContainText('cut off or not JSON');
      await pw(failure).toContainText('try a stronger model');
      await pw(failure).toContainText('OpenAI · a-small');
      // Words, not the parser's messages.
      await pw(dialog).not.toContainText(/Unexpected|JSON\.parse|position \d+/);
      await pw(dialog.getByRole('list', { name: 'Rounds' }).locator(':scope > li')).toHaveCount(4);
      // Nothing valid: no Accept, and the highlighted button tries again.
      await pw(dialog.getByRole('button', { name: /Accept/ })).toHaveCount(0);
      await pw(dialog.locator('.btn--primary')).toHaveText(/Try again/);
      await pw(describeBox).toHaveValue(DESCRIPTION);
      await pw(describeBox).toBeFocused();
      const picker = dialog.getByLabel('Model', { exact: true });
      await pw(picker.locator('option')).toHaveText([
        'Default: OpenAI · a-small',
        'OpenAI · a-small',
        'OpenAI · b-large',
      ]);

      await shotSizes(web.page, 'composer-ai-failure', { label: 'width' });

      // Closing the dialog loses nothing.
      await web.page.keyboard.press('Escape');
      await pw(dialog).toBeHidden();
      await web.page.locator('.sc-blank').getByRole('button', { name: 'New skill with AI' }).click();
      await pw(dialog.getByLabel('Describe what the skill should do')).toHaveValue(DESCRIPTION);

      // A stronger model, by keyboard: pick it, then Ctrl+Enter from the description.
      await picker.focus();
      await picker.selectOption({ label: 'OpenAI · b-large' });
      await dialog.getByLabel('Describe what the skill should do').focus();
      await web.page.keyboard.press('Control+Enter');
      await pw(dialog.getByRole('region', { name: 'Review' })).toContainText('Notes Tidier', {
        timeout: 60_000,
      });
      await pw(dialog.getByRole('region', { name: 'Review' })).toContainText('OpenAI · b-large');
      await pw(dialog.locator('.btn--primary')).toHaveText('Accept and open in the editor');
      await shot(web.page, 'composer-ai-retry-1440-light');
      await pw(dialog.locator('.btn--primary')).toBeFocused();
      await web.page.keyboard.press('Enter');
      await pw(web.page.getByRole('heading', { level: 2, name: 'Notes Tidier' })).toBeVisible();
      expect(web.provider.remaining()).toBe(0);
      expect(web.problems).toEqual([]);
    }, 180_000);
  },
);
