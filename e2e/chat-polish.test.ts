/**
 * The rough edges found trying the chat as a new user would, each a
 * check in Chromium against web mode, with screenshots at 1440×900 and 1024×700, light and dark.
 */
import { expect, it } from 'vitest';
import { describeWeb, shot } from './web-suite.js';

const MARKDOWN = [
  '| Tool | Use |\n|---|---|\n| **grep** | search |\n| sed | edit |\n\n',
  'This is ~~wrong~~ right.\n\n',
  '- [x] done\n- [ ] todo\n\n',
  'Euler: $e^{i\\pi} + 1 = 0$\n\n',
  '```python\ndef f(x):\n    return x * 2\n```\n',
];
const LONG_WORDS = 20_000;
const LONG_CHUNKS = Array.from({ length: 400 }, (_, i) => {
  const words = Array.from({ length: LONG_WORDS / 400 }, (_, j) => `w${i * 50 + j}`).join(' ');
  return i % 10 === 9 ? `${words}\n\n` : `${words} `;
});
const LONG_INPUT = `The team agreed to ship on Friday after the security review. ${'x'.repeat(1500)}`;

const SCRIPT = [
  { text: MARKDOWN },
  { text: LONG_CHUNKS },
  {
    tool_calls: [
      { name: 'search_skills', arguments: { query: 'summarize' } },
      { name: 'read_skill', arguments: { name: 'Nonexistent Skill' } },
      { name: 'apply_skill', arguments: { name: 'Summarize', ctx: { text: LONG_INPUT } } },
    ],
  },
  { text: 'Gist: the team ships Friday.', expect: { last_user_contains: 'ship on Friday' } },
  { text: 'Here is the gist: ships Friday.' },
  { status: 401, error: { message: 'Incorrect API key provided: sk-e2e***', type: 'invalid_request_error' } },
  { text: 'Recovered after a retry.' },
  { text: ['never shown'], hang_after: 0 },
];

describeWeb(
  'chat polish in Chromium',
  { id: 'e2e/chat-polish', script: { turns: SCRIPT, api_key: 'sk-e2e-test' } },
  (web) => {
    const composer = () => web.page.getByRole('textbox', { name: 'Message' });
    const replies = () => web.page.locator('.msg--assistant');
    const send = async (text: string) => {
      await composer().fill(text);
      await composer().press('Enter');
    };

    it('without a model, replies in the app’s words (no command-line flags)', async () => {
      await send('Summarize this long conversation about shipping dates and the security review please');
      const reply = replies().first();
      await reply.getByText(/No model is configured/).waitFor();
      await expect.poll(() => reply.textContent()).toMatch(/Settings → Providers/);
      expect(await reply.textContent()).not.toMatch(/--provider|--model|command line/);
    });

    it('fits chat rows in the sidebar with an ellipsis and visible rename/delete on hover', async () => {
      const row = web.page.locator('.session').first();
      const sidebar = await web.page.locator('.sidebar').boundingBox();
      await expect
        .poll(async () => (await row.boundingBox())?.width ?? 999)
        .toBeLessThanOrEqual(sidebar!.width);
      const title = row.locator('.session__title');
      expect(await title.evaluate((el) => getComputedStyle(el).textOverflow)).toBe('ellipsis');
      expect(await title.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
      await row.hover();
      for (const name of [/^Rename/, /^Delete/]) {
        const btn = row.getByRole('button', { name });
        await expect.poll(() => btn.isVisible()).toBe(true);
        const box = (await btn.boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(sidebar!.x + sidebar!.width);
      }
    });

    it('keeps a draft per chat across reloads, and Esc clears with an undo', async () => {
      await composer().fill('a draft for the first chat');
      await web.page.getByRole('button', { name: 'New chat' }).click();
      await expect.poll(() => composer().inputValue()).toBe('');
      await composer().fill('a draft for a new chat');
      await web.page.reload();
      await composer().waitFor();
      await expect.poll(() => composer().inputValue()).toBe('a draft for a new chat');
      await web.page.locator('.session__open').first().click();
      await expect.poll(() => composer().inputValue()).toBe('a draft for the first chat');
      await composer().press('Escape');
      await expect.poll(() => composer().inputValue()).toBe('');
      await web.page.getByRole('button', { name: 'Undo' }).click();
      await expect.poll(() => composer().inputValue()).toBe('a draft for the first chat');
      await composer().fill('');
    });

    it('shows the activation hint only once a draft says something', async () => {
      await web.page.getByRole('button', { name: 'New chat' }).click();
      const hint = web.page.getByRole('region', { name: 'Skills that would activate' });
      await composer().fill('sum');
      await expect.poll(() => composer().inputValue()).toBe('sum');
      await expect.poll(() => hint.count()).toBe(0);
      await composer().fill('please summarize these meeting notes');
      await hint.waitFor();
      await composer().fill('');
    });

    it('keeps unsaved provider edits when settings reload, and shows the provider in use as a state', async () => {
      await web.page.getByRole('button', { name: /^Settings/ }).click();
      await web.page.getByLabel('Provider', { exact: true }).selectOption('openai');
      await web.page.getByLabel('Base URL').fill(web.provider.url);
      await web.page.getByRole('button', { name: 'Use this provider' }).click();
      await web.page.getByText('Provider saved.').waitFor();
      await web.page.getByText('In use').waitFor();
      expect(await web.page.getByRole('button', { name: /In use/ }).count()).toBe(0);
      // An unsaved edit, then a change that reloads the settings (saving the key).
      await web.page.getByLabel('Model', { exact: true }).fill('gpt-unsaved-edit');
      await web.page.getByLabel('OpenAI API key').fill('sk-e2e-test');
      await web.page.getByRole('button', { name: 'Save key' }).click();
      await web.page.getByText('Key saved.').waitFor();
      await expect
        .poll(() => web.page.getByLabel('Model', { exact: true }).inputValue())
        .toBe('gpt-unsaved-edit');
      await web.page.getByLabel('Model', { exact: true }).fill('');
      await web.page.getByText('In use').waitFor();
      await shot(web.page, 'polish-settings-1440-light');
    });

    it('renders GFM tables, strikethrough, task lists, math and code without figure margins', async () => {
      await web.page.keyboard.press('Control+1');
      await web.page.getByRole('button', { name: 'New chat' }).click();
      await send('Show me some Markdown');
      const reply = replies().last();
      await reply.locator('table').waitFor();
      expect(await reply.locator('th').allTextContents()).toEqual(['Tool', 'Use']);
      await expect.poll(() => reply.locator('td strong').textContent()).toBe('grep');
      expect(await reply.locator('del').textContent()).toBe('wrong');
      expect(await reply.locator('input[type=checkbox]').count()).toBe(2);
      await reply.locator('.katex').first().waitFor();
      expect(await reply.locator('figure').count()).toBe(0);
      const code = reply.locator('.md-code');
      expect(await code.evaluate((el) => getComputedStyle(el).marginLeft)).toBe('0px');
      expect(await reply.locator('.md-code .hljs-keyword').first().textContent()).toBe('def');
      await shot(web.page, 'polish-markdown-1440-light');
    });

    it('displays a 20,000-word reply quickly', { timeout: 60_000 }, async () => {
      const t0 = Date.now();
      await send('Write a very long text');
      const reply = replies().last();
      await reply.getByText(`w${LONG_WORDS - 1}`).waitFor({ timeout: 20_000 });
      await reply.locator('.msg__usage').waitFor({ timeout: 20_000 });
      const took = Date.now() - t0;
      expect(took).toBeLessThan(6000);
      // The web.page still answers at once.
      const t1 = Date.now();
      await composer().fill('still responsive');
      expect(Date.now() - t1).toBeLessThan(1000);
      await composer().fill('');
    });

    it('describes skill activity in words, expandable, with failures and their reason', async () => {
      await web.page.getByRole('button', { name: 'New chat' }).click();
      await send('Summarize this: the team agreed to ship on Friday after the security review.');
      const reply = replies().last();
      // The turn runs skills in the sandbox: a first run on a loaded machine takes longer than a page action.
      await reply.getByText('Here is the gist: ships Friday.').waitFor({ timeout: 90_000 });
      const steps = reply.locator('.step');
      await expect.poll(() => steps.count()).toBe(3);
      await expect
        .poll(() => steps.nth(0).locator('.step__text').textContent())
        .toMatch(/^Searched skills for ‘summarize’ — \d+ found$/);
      expect(await steps.nth(1).locator('.step__text').textContent()).toBe('Couldn’t read Nonexistent Skill');
      expect(await steps.nth(1).locator('.step__reason').textContent()).toMatch(
        /no skill named "Nonexistent Skill"/,
      );
      await expect
        .poll(() => steps.nth(2).locator('.step__text').textContent())
        .toMatch(/^Ran Summarize · Summary Prompt · [\d.]+ (ms|s)( · \d+\/\d+ checks passed)?$/);
      expect(await reply.textContent()).not.toMatch(/⚙|apply_skill|read_skill/);
      await steps.nth(1).locator('.step__head').click();
      await steps.nth(1).getByRole('figure', { name: 'Arguments' }).waitFor();
      // The result reads in words first; its JSON is one click away.
      await expect
        .poll(() => steps.nth(1).locator('.result__error').textContent())
        .toMatch(/no skill named "Nonexistent Skill"/);
      await steps.nth(1).getByRole('button', { name: 'JSON' }).click();
      await expect
        .poll(() => steps.nth(1).getByRole('figure', { name: 'Result' }).textContent())
        .toMatch(/error/);
      await steps.nth(2).locator('.step__head').click();
      await steps.nth(2).locator('.trace-link').first().click();
      const drawer = web.page.getByRole('dialog', { name: 'Trace' });
      await drawer.getByText('Succeeded').waitFor();
      const body = drawer.locator('.drawer__body');
      await expect.poll(() => body.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(1);
      await shot(web.page, 'polish-activity-trace-1440-light');
      await web.page.emulateMedia({ colorScheme: 'dark' });
      await shot(web.page, 'polish-activity-trace-1440-dark');
      await web.page.emulateMedia({ colorScheme: 'light' });
      await web.page.keyboard.press('Escape');
      await expect.poll(() => drawer.count()).toBe(0);
    });

    it('says what a provider error means, with Retry and Open Settings, and no usage line', async () => {
      await send('This one fails');
      const reply = replies().last();
      const alert = reply.getByRole('alert');
      await alert.getByText('OpenAI refused the API key').waitFor();
      await alert.getByRole('button', { name: 'Open Settings' }).waitFor();
      expect(await reply.locator('.msg__usage').count()).toBe(0);
      await shot(web.page, 'polish-error-1440-light');
      await alert.getByRole('button', { name: 'Retry' }).click();
      await replies().last().getByText('Recovered after a retry.').waitFor();
    });

    it('says plainly when a reply was stopped before any text arrived', async () => {
      await send('Stop me at once');
      const reply = replies().last();
      await web.page.getByRole('button', { name: 'Stop' }).click();
      await reply.getByText('Stopped before the reply began').waitFor();
      expect(await reply.textContent()).not.toMatch(/the reply above/);
    });

    it('adapts to 1024 px: titles stay clear of buttons, badges in a row', async () => {
      await web.page.setViewportSize({ width: 1024, height: 700 });
      const title = web.page.locator('.chat__title');
      const pill = web.page.locator('.chat__head .pill');
      const overlap = async () => {
        const a = (await title.boundingBox())!;
        const b = (await pill.boundingBox())!;
        return a.x + a.width - b.x;
      };
      await expect.poll(overlap).toBeLessThanOrEqual(0);
      await shot(web.page, 'polish-chat-1024-light');
      await web.page.emulateMedia({ colorScheme: 'dark' });
      await shot(web.page, 'polish-chat-1024-dark');
      await web.page.emulateMedia({ colorScheme: 'light' });
      await web.page.getByRole('button', { name: /^Skills/ }).click();
      await web.page
        .getByRole('listbox', { name: 'Skills' })
        .getByRole('option', { name: /Consistency Checker/ })
        .click();
      const heading = web.page.getByRole('heading', { level: 2, name: 'Consistency Checker' });
      await heading.waitFor();
      const h = (await heading.boundingBox())!;
      for (const btn of await web.page.locator('.detail__actions button').all()) {
        const b = (await btn.boundingBox())!;
        const apart =
          b.y >= h.y + h.height || b.x >= h.x + h.width || b.x + b.width <= h.x || b.y + b.height <= h.y;
        expect(apart).toBe(true);
      }
      const tops = await web.page
        .locator('.detail__badges > *')
        .evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().top)));
      expect(new Set(tops).size).toBe(1);
      await shot(web.page, 'polish-skills-1024-light');
      await web.page.emulateMedia({ colorScheme: 'dark' });
      await shot(web.page, 'polish-skills-1024-dark');
      await web.page.emulateMedia({ colorScheme: 'light' });
      await web.page.setViewportSize({ width: 1440, height: 900 });
      await shot(web.page, 'polish-skills-1440-light');
      await web.page.emulateMedia({ colorScheme: 'dark' });
      await shot(web.page, 'polish-skills-1440-dark');
      await web.page.emulateMedia({ colorScheme: 'light' });
      expect(web.problems).toEqual([]);
    });

    it('says plainly where the user looks when it cannot reach SkillDesk', async () => {
      const offline = await web.browser.newPage({ viewport: { width: 1440, height: 900 } });
      offline.setDefaultTimeout(10_000);
      try {
        // Every WebSocket to the app is closed at once: the window never gets through.
        await offline.routeWebSocket(/\/api/, (ws) => ws.close());
        await offline.goto(web.app.server.url);
        const banner = offline.getByRole('alert').filter({ hasText: /connect/i });
        await banner.getByText(/can’t reach SkillDesk/).waitFor();
        await offline.getByRole('button', { name: /^Skills/ }).click();
        // The catalog says it waits for the connection (or, once the calls give up, that it failed).
        await offline
          .getByText(/Skills will load when SkillDesk is reachable again|The catalog could not be loaded/)
          .waitFor();
        expect(await offline.locator('.skeleton').count()).toBe(0);
        await shot(offline, 'polish-offline-1440-light');
      } finally {
        await offline.close();
      }
    });
  },
);
