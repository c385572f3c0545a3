import { beforeAll, expect, it } from 'vitest';
import { gotoChat } from './browser.js';
import { describeWeb, shot } from './web-suite.js';

// The scripted model answers requests in this order, across the tests below.
const SCRIPT = [
  // A plain streamed reply.
  { text: ['Hello ', 'from the ', '**loopback** model.'], usage: { input_tokens: 120, output_tokens: 8 } },
  // The model applies the seed skill "Summarize"…
  {
    tool_calls: [
      {
        name: 'apply_skill',
        arguments: {
          name: 'Summarize',
          ctx: { text: 'The team agreed to ship on Friday after the security review.' },
        },
      },
    ],
  },
  // …whose prompt_template makes its own call…
  {
    text: 'Gist: the team ships Friday, after the security review.',
    expect: { last_user_contains: 'ship on Friday' },
  },
  // …and then it answers.
  { text: ['Here is the gist:\n\n', '- Ships **Friday**\n', '- After the `security` review'] },
  // A reply that stalls mid-stream, to be cancelled.
  { text: ['Counting ', 'one, ', 'two, ', 'three'], hang_after: 2 },
];

describeWeb(
  'chat in Chromium',
  {
    id: 'e2e/chat-ui',
    script: { turns: SCRIPT, api_key: 'sk-e2e-test', models: ['gpt-4.1-mini', 'gpt-4o'] },
    page: { width: 1360, height: 860 },
    open: 'none',
  },
  (web) => {
    // What the page sent over web mode's socket (the renderer's requests).
    const sent: string[] = [];

    beforeAll(async () => {
      web.page.on('websocket', (ws) => ws.on('framesent', (f) => sent.push(String(f.payload))));
      await gotoChat(web.page, web.app.server.url);
    });

    const composer = () => web.page.getByRole('textbox', { name: 'Message' });
    const replies = () => web.page.locator('.msg--assistant');

    it('teaches on first run, then configures the provider in Settings', async () => {
      await web.page.getByRole('heading', { name: 'Welcome to SkillDesk' }).waitFor();
      await web.page.getByText(/Pick a provider in Settings, or try the built-in skills/).waitFor();
      await shot(web.page, 'ui-chat-empty-light');
      await web.page.getByRole('button', { name: 'Pick a provider' }).click();
      await web.page.getByLabel('Provider', { exact: true }).selectOption('openai');
      await web.page.getByLabel('Base URL').fill(web.provider.url);
      await web.page.getByRole('button', { name: 'Use this provider' }).click();
      await web.page.getByText('Provider saved.').waitFor();
      await web.page.getByLabel('OpenAI API key').fill('sk-e2e-test');
      await web.page.getByRole('button', { name: 'Save key' }).click();
      await web.page.getByText('Key saved.').waitFor();
      await expect(web.page.getByLabel('OpenAI API key').inputValue()).resolves.toBe('');
      await web.page
        .getByText('stored in a file only you can read; the desktop app uses the OS keychain')
        .waitFor();
      await web.page.getByRole('button', { name: 'Test connection' }).click();
      await web.page.getByText(/Connected to gpt-4\.1-mini/).waitFor();
      await shot(web.page, 'ui-settings-providers-light');
      // The key never reaches the page.
      await expect(web.page.content()).resolves.not.toContain('sk-e2e-test');
    });

    it('sends a message and shows the streamed Markdown reply with its usage', async () => {
      await web.page.keyboard.press('Control+1');
      await composer().fill('Say hello');
      await composer().press('Enter');
      const reply = replies().first();
      await reply.getByText('Hello from the loopback model.').waitFor();
      await expect(reply.locator('strong').textContent()).resolves.toBe('loopback');
      await reply.getByText(/gpt-4\.1-mini · 120 in \/ 8 out/).waitFor();
      await web.page.locator('.session.is-on').getByText('Say hello').waitFor();
    });

    it('shows the skill a reply applied and opens its trace', async () => {
      await composer().fill('Summarize this: the team agreed to ship on Friday after the security review.');
      // A pause in typing prepares the draft's turn in the open chat.
      await expect
        .poll(() => sent.find((f) => f.includes('"chat/prepare"') && f.includes('ship on Friday')) ?? '')
        .toMatch(/"session_id":"[^"]+"/);
      await composer().press('Enter');
      const reply = replies().nth(1);
      const chip = reply.locator('.step__head');
      await expect.poll(() => chip.textContent()).toMatch(/Ran Summarize · Summary Prompt · [\d.]+ (ms|s)/);
      await reply.locator('li').filter({ hasText: 'Ships Friday' }).waitFor();
      await chip.click();
      await reply.getByRole('figure', { name: 'Arguments' }).waitFor();
      await reply.locator('.trace-link').first().click();
      const drawer = web.page.getByRole('dialog', { name: 'Trace' });
      await drawer.getByText('Succeeded').waitFor();
      await drawer.getByRole('heading', { name: 'Summarize' }).waitFor();
      await drawer.getByText('Gist: the team ships Friday, after the security review.').waitFor();
      await expect(drawer.getByRole('figure', { name: 'Rendered input' }).textContent()).resolves.toContain(
        'ship on Friday',
      );
      await shot(web.page, 'ui-chat-trace-light');
      await web.page.keyboard.press('Escape');
      await expect.poll(() => drawer.count()).toBe(0);
      await shot(web.page, 'ui-chat-light');
      await web.page.emulateMedia({ colorScheme: 'dark' });
      await shot(web.page, 'ui-chat-dark');
      await web.page.emulateMedia({ colorScheme: 'light' });
    });

    it('cancels a reply in flight and keeps what had arrived', async () => {
      await composer().fill('Count slowly');
      await composer().press('Enter');
      const reply = replies().nth(2);
      await reply.getByText('Counting one,').waitFor();
      await web.page.getByRole('button', { name: 'Stop' }).click();
      await reply.getByText(/Stopped/).waitFor();
      await web.page.getByRole('button', { name: 'Send' }).waitFor();
    });

    it('keeps the session after a reload', async () => {
      await web.page.reload();
      await composer().waitFor();
      await web.page.locator('.session').getByText('Say hello').click();
      await replies()
        .nth(2)
        .getByText(/Stopped/)
        .waitFor();
      await expect(replies().count()).resolves.toBe(3);
      await replies()
        .nth(1)
        .locator('.step__head')
        .getByText(/Ran Summarize/)
        .waitFor();
      await web.page.getByRole('button', { name: 'New chat' }).click();
      await web.page.getByRole('heading', { name: 'What are you working on?' }).waitFor();
      expect(web.problems).toEqual([]);
    });
  },
);
