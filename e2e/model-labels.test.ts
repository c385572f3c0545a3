// No internal names where a model or a run is named: a run in the Composer, its trace in the list
// and in the detail name the model by the provider's label ("Alpha · alpha-small", never
// `alpha:alpha-small` or a provider id) and title the trace by skill and where it ran (never a
// UUID). Screenshots at 1440×900 and 1024×700, light and dark, under test-artifacts/e2e.
import { expect as pw } from '@playwright/test';
import { expect, it } from 'vitest';
import { describeWeb, shot } from './web-suite.js';

/** The loopback provider's one turn and its model list. */
const SCRIPT = {
  turns: [
    {
      text: 'Rain taps the window.',
      usage: { input_tokens: 40, output_tokens: 6 },
      expect: { model: 'alpha-small' },
    },
  ],
  api_key: 'sk-alpha',
  models: ['alpha-small'],
};
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

describeWeb(
  'models named by their provider, traces by skill and chat',
  {
    id: 'e2e/model-labels',
    script: SCRIPT,
    startTimeoutMs: 120_000,
    // Console errors are not counted: the Composer's editor sets inline styles the CSP refuses
    // (a known, harmless report that composer-agent also leaves out); page errors still count.
    page: { timeoutMs: 20_000, consoleErrors: false },
  },
  (web) => {
    it('names the model "Alpha · alpha-small" in a run, its trace and the trace list', async () => {
      await web.page.getByRole('button', { name: 'Pick a provider' }).click();
      await web.page.getByLabel('Provider', { exact: true }).selectOption('openai-compatible');
      await web.page.getByLabel('Name', { exact: true }).fill('Alpha');
      await web.page.getByLabel('Base URL').fill(web.provider.url);
      await web.page.getByRole('button', { name: 'Use this provider' }).click();
      await web.page.getByText('Provider saved.').waitFor();
      await web.page.getByLabel('Alpha API key').fill('sk-alpha');
      await web.page.getByRole('button', { name: 'Save key' }).click();
      await web.page.getByText('Key saved.').waitFor();
      await web.page.getByRole('button', { name: 'Test connection' }).click();
      await web.page.getByText(/Connected to/).waitFor();

      // A prompt skill run from the Composer, by keyboard where the path has keys.
      await web.page.keyboard.press('Control+3');
      await web.page.getByRole('button', { name: 'New', exact: true }).click();
      await web.page.getByRole('button', { name: /Prompt skill/ }).click();
      await web.page.getByRole('button', { name: 'Save', exact: true }).click();
      await pw(web.page.getByText(/^Saved My prompt skill/)).toBeVisible();
      await web.page.getByRole('button', { name: 'Fill variables' }).click();
      const context = web.page.getByRole('textbox', { name: 'Test context', exact: true });
      await context.click();
      await web.page.keyboard.press('Control+A');
      await web.page.keyboard.insertText('{"topic": "rain"}');
      await web.page.getByRole('button', { name: 'Run', exact: true }).click();
      const result = web.page.locator('.sc-result').first();
      await pw(result).toContainText('Rain taps the window.', { timeout: 60_000 });
      await pw(result).toContainText('Alpha · alpha-small');
      await pw(result).not.toContainText('alpha:alpha-small');
      const skill = 'My prompt skill';

      // The trace: titled by skill and where it ran, the model by its provider's label.
      await web.page.keyboard.press('Control+5');
      const rows = web.page.getByRole('listbox', { name: 'Traces' }).getByRole('option');
      await expect.poll(() => rows.count()).toBe(1);
      await pw(rows.first()).toContainText(skill);
      await pw(rows.first()).toContainText('Composer test run');
      await web.page.getByRole('listbox', { name: 'Traces' }).focus();
      await web.page.keyboard.press('Home');
      const detail = web.page.getByRole('region', { name: 'Trace detail' });
      await pw(detail.getByRole('heading', { level: 2 })).toHaveText(`${skill} · Composer test run`);
      await pw(detail).toContainText('Alpha · alpha-small');
      const text = (await web.page.locator('.traces').textContent()) ?? '';
      expect(text).not.toMatch(UUID);
      expect(text).not.toContain('alpha:alpha-small');
      // The session filter offers where runs came from in words.
      await pw(web.page.getByRole('combobox', { name: /Session|Chat/ }).first()).toContainText(
        'Composer test run',
      );

      for (const [w, h] of [
        [1440, 900],
        [1024, 700],
      ] as const) {
        await web.page.setViewportSize({ width: w, height: h });
        for (const scheme of ['light', 'dark'] as const) {
          await web.page.emulateMedia({ colorScheme: scheme });
          await shot(web.page, `model-labels-traces-${w}-${scheme}`);
        }
      }
      await web.page.emulateMedia({ colorScheme: 'light' });
      await web.page.setViewportSize({ width: 1440, height: 900 });
      expect(web.problems).toEqual([]);
    }, 180_000);
  },
);
