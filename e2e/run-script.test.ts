// A skill's script run by the model in the chat, in Chromium with the loopback provider: the model
// calls run_script on a real public skill (skill-creator's aggregate_benchmark.py) with arguments;
// the step says the exit code and how many files the script wrote, each file is a chip, and a click
// (or Enter on it) downloads its bytes. Screenshots light and dark.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as pw } from '@playwright/test';
import { expect, it } from 'vitest';
import { PROJECT_ROOT, runCli } from '../electron/test-support/index.js';
import { connectProvider } from './browser.js';
import { describeWeb, shotSchemes } from './web-suite.js';

const FIXTURE = join(PROJECT_ROOT, 'electron', 'tools', 'fixtures', 'skill-creator');

const SCRIPT = [
  {
    tool_calls: [
      {
        name: 'run_script',
        arguments: {
          name: 'skill-creator',
          script: 'scripts/aggregate_benchmark.py',
          args: ['scripts', '--skill-name', 'e2e-demo', '-o', 'out/benchmark.json'],
        },
      },
    ],
  },
  { text: 'The benchmark is ready to download.', expect: { tool_result_contains: 'out/benchmark.md' } },
];

describeWeb(
  'run_script in the chat (Chromium)',
  {
    id: 'e2e/run-script',
    script: SCRIPT,
    page: { timeoutMs: 30_000, acceptDownloads: true },
    setup: async (web) => {
      expect((await runCli(['--home', web.app.home, 'skills', 'import', FIXTURE])).code).toBe(0);
    },
  },
  (web) => {
    it('shows the files the script wrote as chips that download them', async () => {
      await connectProvider(web.page, web.provider.url, 'sk-e2e-scripts');
      await web.page.keyboard.press('Control+1');
      const composer = web.page.getByRole('textbox', { name: 'Message' });
      await composer.fill('Aggregate the benchmark for e2e-demo');
      await composer.press('Enter');
      await pw(web.page.getByText('The benchmark is ready to download.')).toBeVisible({ timeout: 60_000 });
      await pw(
        web.page.getByText('Ran skill-creator · scripts/aggregate_benchmark.py — exit 0 · 2 files'),
      ).toBeVisible();
      const chip = web.page.getByRole('button', { name: /^(?!Save ).*out\/benchmark\.json/ });
      await pw(chip).toBeVisible();
      await pw(web.page.getByRole('button', { name: /^(?!Save ).*out\/benchmark\.md/ })).toBeVisible();

      const [download] = await Promise.all([web.page.waitForEvent('download'), chip.click()]);
      expect(download.suggestedFilename()).toBe('benchmark.json');
      const saved = await download.path();
      expect(JSON.parse(readFileSync(saved!, 'utf8')).metadata.skill_name).toBe('e2e-demo');

      // Keyboard: the chip is a button in the tab order; Enter downloads too.
      await web.page.getByRole('button', { name: /^(?!Save ).*out\/benchmark\.md/ }).focus();
      const [md] = await Promise.all([web.page.waitForEvent('download'), web.page.keyboard.press('Enter')]);
      expect(md.suggestedFilename()).toBe('benchmark.md');

      await shotSchemes(web.page, 'run-script-files');
      expect(web.problems).toEqual([]);
    }, 180_000);
  },
);
