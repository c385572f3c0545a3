// In Chromium: an MCP server's tool in chat with the loopback provider. The model calls
// server-everything's echo, the approval card appears with tool, server and arguments; "always
// allow" runs it and is remembered after the app restarts (no card the second time); "deny" reaches
// the model as a tool error. Settings → Tools lists the server, tests the connection and revokes.
// Screenshots of the approval card and Settings → Tools, light and dark, at 1440×900 and 1024×700.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as pw } from '@playwright/test';
import { expect, it } from 'vitest';
import { describeWeb, everythingServerEntry, shot, shotSizes, withEverythingServer } from './web-suite.js';

const everything = everythingServerEntry();

const SCRIPT = [
  // 1: the model calls the MCP tool (which must be offered under its namespaced name)…
  {
    tool_calls: [{ name: 'everything__echo', arguments: { message: 'hello from chat' } }],
    expect: { tools: ['everything__echo', 'everything__get-sum', 'apply_skill'] },
  },
  // …and answers from its result, once the user allowed it.
  { text: 'The server echoed it back.', expect: { tool_result_contains: 'Echo: hello from chat' } },
  // 2: a call the user denies reaches the model as a tool error.
  { tool_calls: [{ name: 'everything__get-sum', arguments: { a: 2, b: 3 } }] },
  { text: 'Understood, I will not add them.', expect: { tool_result_contains: 'user denied' } },
  // 3 (after a restart): the always-allowed tool runs without asking.
  { tool_calls: [{ name: 'everything__echo', arguments: { message: 'again' } }] },
  { text: 'It ran without asking.', expect: { tool_result_contains: 'Echo: again' } },
  // 4: a message with a resource of the server attached (its text reaches the model).
  { text: 'I read the architecture notes.' },
];

describeWeb(
  'MCP tools in chat (Chromium)',
  {
    id: 'e2e/mcp-tools',
    script: { turns: SCRIPT, api_key: 'sk-e2e-mcp' },
    prepareHome: withEverythingServer,
    page: { timeoutMs: 15_000, consoleErrors: false },
  },
  (web) => {
    const composer = () => web.page.getByRole('textbox', { name: 'Message' });
    // Let the colour transitions finish before a screenshot (only transitions: spinners loop forever).
    const settle = () =>
      web.page.evaluate(() =>
        Promise.all(
          document
            .getAnimations()
            .filter((a) => a instanceof CSSTransition)
            .map((a) => a.finished.catch(() => {})),
        ),
      );
    const card = () => web.page.locator('section.approval');

    const configureProvider = async () => {
      await web.page.getByRole('button', { name: /^Settings/ }).click();
      await web.page.getByLabel('Provider', { exact: true }).selectOption('openai');
      await web.page.getByLabel('Base URL').fill(web.provider.url);
      await web.page.getByRole('button', { name: 'Use this provider' }).click();
      await web.page.getByText('Provider saved.').waitFor();
      await web.page.getByLabel('OpenAI API key').fill('sk-e2e-mcp');
      await web.page.getByRole('button', { name: 'Save key' }).click();
      await web.page.getByText('Key saved.').waitFor();
    };

    const openChat = async () => {
      await web.page.keyboard.press('Control+1');
      await composer().waitFor();
    };

    it('asks before the model runs an MCP tool; always allow runs it; deny reaches the model', async () => {
      await configureProvider();
      await openChat();
      await composer().fill('Echo something through the MCP server');
      await composer().press('Enter');

      await pw(card()).toBeVisible({ timeout: 20_000 });
      await pw(card()).toContainText('echo');
      await pw(card()).toContainText('everything');
      await pw(card().locator('.approval__args')).toContainText('"message": "hello from chat"');
      // The card leaves focus in the message box (typing there never answers it).
      await pw(composer()).toBeFocused();
      await shotSizes(web.page, 'ui-mcp-approval', { settle });
      await card()
        .getByRole('button', { name: /Always allow/ })
        .click();
      await pw(card()).toHaveCount(0);
      await pw(web.page.locator('.msg--assistant').last()).toContainText('The server echoed it back.', {
        timeout: 20_000,
      });
      // The tool card names the tool in words with its server as a badge, and its result reads as
      // text with the JSON one click away.
      const step = web.page.locator('.msg--assistant').last().locator('.step').first();
      await pw(step.locator('.step__text')).toHaveText(/^Ran Echo/);
      await pw(step.locator('.step__server')).toHaveText('everything');
      await step.locator('.step__head').click();
      await pw(step.locator('.result__body')).toContainText('Echo: hello from chat');
      await pw(step.locator('.result__body')).not.toContainText('"text"');
      await shotSizes(web.page, 'ui-mcp-tool-card', { settle });
      await step.getByRole('button', { name: 'JSON' }).click();
      await pw(step.getByRole('figure', { name: 'Result' })).toContainText('"text"');

      await composer().fill('Now add two and three');
      await composer().press('Enter');
      await pw(card()).toBeVisible({ timeout: 20_000 });
      await pw(card()).toContainText('get-sum');
      // Keyboard: Ctrl . denies.
      await web.page.keyboard.press('Control+.');
      await pw(card()).toHaveCount(0);
      await pw(web.page.locator('.msg--assistant').last()).toContainText('Understood, I will not add them.', {
        timeout: 20_000,
      });
    }, 120_000);

    it('remembers "always allow" after a restart, and Settings → Tools shows and revokes it', async () => {
      await web.restart();
      await openChat();
      await composer().fill('Echo again please');
      await composer().press('Enter');
      await pw(web.page.locator('.msg--assistant').last()).toContainText('It ran without asking.', {
        timeout: 30_000,
      });
      expect(await card().count()).toBe(0);

      await web.page.getByRole('button', { name: /^Settings/ }).click();
      const tools = web.page.locator('section', {
        has: web.page.getByRole('heading', { name: 'Tools (MCP servers)' }),
      });
      await pw(tools.locator('.tool-server__name')).toHaveText(['everything']);
      await pw(tools.locator('.tool-status--ok')).toContainText('Running');
      await tools.getByRole('button', { name: 'Test connection' }).click();
      await pw(tools.getByText(/Connected to/)).toBeVisible({ timeout: 20_000 });
      await pw(tools.locator('.tool-test__list code', { hasText: 'get-sum' })).toBeVisible();
      const approvals = web.page.locator('section', {
        has: web.page.getByRole('heading', { name: 'Tool approvals' }),
      });
      await pw(approvals.locator('.tool-approval')).toContainText('echo');
      await tools.scrollIntoViewIfNeeded();
      for (const [w, h] of [
        [1440, 900],
        [1024, 700],
      ] as const) {
        await web.page.setViewportSize({ width: w, height: h });
        for (const scheme of ['light', 'dark'] as const) {
          await web.page.emulateMedia({ colorScheme: scheme });
          await settle();
          await tools.scrollIntoViewIfNeeded();
          await shot(web.page, `ui-mcp-settings-${w}x${h}-${scheme}`);
        }
      }
      await web.page.emulateMedia({ colorScheme: 'light' });
      await approvals.getByRole('button', { name: 'Revoke' }).click();
      await pw(approvals.getByText(/No tool is always allowed/)).toBeVisible();

      // Add a server from the form: test the draft, save it, then disable it.
      await tools.getByRole('button', { name: 'Add server' }).click();
      const form = tools.getByRole('form', { name: 'MCP server' });
      await form.getByLabel('Name', { exact: true }).fill('second');
      await form.getByLabel('Command', { exact: true }).fill(process.execPath);
      await form.getByLabel('Arguments (one per line)').fill(`${everything}\nstdio`);
      await form.getByRole('button', { name: 'Test connection' }).click();
      await pw(form.getByText(/Connected to/)).toBeVisible({ timeout: 20_000 });
      await shot(web.page, 'ui-mcp-settings-add-1024x700-light');
      await form.getByRole('button', { name: 'Save' }).click();
      await pw(tools.locator('.tool-server__name')).toHaveText(['everything', 'second']);
      await tools.getByRole('checkbox', { name: 'Enable second' }).uncheck();
      await pw(tools.locator('.tool-server').nth(1)).toContainText('Disabled');
      const saved = JSON.parse(readFileSync(join(web.app.home, 'mcp.json'), 'utf8'));
      expect(saved.mcpServers.second).toEqual({
        command: process.execPath,
        args: [everything, 'stdio'],
        disabled: true,
      });
      expect(web.problems).toEqual([]);
    }, 120_000);

    it('attaches a resource from an MCP server to a message, from the keyboard, and sends its text', async () => {
      await openChat();
      const attachMcp = web.page.getByRole('button', { name: 'Attach from MCP server' });
      await attachMcp.focus();
      await web.page.keyboard.press('Enter');
      const picker = web.page.getByRole('dialog', { name: 'Attach from an MCP server' });
      await pw(picker.getByRole('option', { name: /architecture\.md/ })).toBeVisible({ timeout: 20_000 });
      await pw(picker.getByRole('option', { name: /architecture\.md/ })).toContainText(
        'demo://resource/static/document/architecture.md',
      );
      await pw(picker.getByRole('option', { name: /architecture\.md/ })).toContainText('text/markdown');
      const search = picker.getByRole('searchbox', { name: 'Search resources' });
      await pw(search).toBeFocused();
      await search.fill('archi');
      await pw(picker.getByRole('option')).toHaveCount(1);
      await shotSizes(web.page, 'ui-mcp-resource-picker', { settle });
      await web.page.keyboard.press('Enter');
      await pw(picker).toHaveCount(0);
      await pw(attachMcp).toBeFocused();
      await pw(web.page.locator('.attach-chip', { hasText: 'architecture.md' })).toBeVisible();
      await composer().fill('Summarize the attached architecture notes');
      await composer().press('Enter');
      await pw(web.page.locator('.msg--assistant').last()).toContainText('I read the architecture notes.', {
        timeout: 30_000,
      });
      const sent = JSON.stringify(web.provider.requests.at(-1)!.body);
      expect(sent).toContain('Everything Server');
      expect(sent).toContain('Startup Process');
      expect(web.problems).toEqual([]);
    }, 120_000);
  },
);
