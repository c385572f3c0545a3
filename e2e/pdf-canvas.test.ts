/**
 * PDF attachments and the canvas, in Chromium against web mode with the loopback provider: a PDF
 * picked in the composer is read by the main process and its text (name, page markers) reaches the
 * model; a scanned PDF is refused in words; a long reply and a tool's result open in the canvas
 * beside the chat (rendered Markdown, a table), which resizes from the keyboard, downloads, and
 * closes with Esc. Screenshots at 1440×900 and 1024×700, light and dark.
 */

import { expect, it } from 'vitest';
import { makePdf } from '../electron/test-support/make-pdf.js';
import { connectProvider } from './browser.js';
import { describeWeb, shotSizes } from './web-suite.js';

const MINUTES = makePdf([
  { lines: ['Board minutes, 12 May 2026', 'Present: Ana, Ben, Chloe.'] },
  { lines: ['Decision: ship version 2 in June.', 'Budget approved: 48,000 EUR.'] },
]);
const SCAN = makePdf([{ image: true }]);

const LONG_REPLY = [
  '# Board minutes: summary',
  '',
  'The board met on **12 May 2026** with Ana, Ben and Chloe present. The minutes run to two pages;',
  'the first records who attended, the second the decisions. Below is what was decided, what it',
  'costs, and what follows from it for the team over the coming weeks.',
  '',
  '## Decisions',
  '',
  '| Item | Decision | Owner | When |',
  '| --- | --- | --- | --- |',
  '| Version 2 | Ship | Ana | June |',
  '| Budget | Approved, 48,000 EUR | Ben | Now |',
  '| Hiring | Deferred to the next meeting | Chloe | July |',
  '',
  '## What follows',
  '',
  '1. Freeze the feature list by the end of May, so testing has the first two weeks of June.',
  '2. Book the release review with the board for the second week of June.',
  '3. Send the approved budget to finance, with the split between contractors and licences.',
  '4. Draft the hiring brief for July so it can be approved without another round.',
  '',
  '## A check you can run',
  '',
  '```python',
  'budget = 48_000',
  'spent = [12_500, 9_800, 7_300]',
  'print(f"left: {budget - sum(spent):,} EUR")',
  '```',
  '',
  '> Nothing in the minutes says who signs off the release itself; worth asking before June.',
  '',
  '## Open questions',
  '',
  '- Who signs off the release, and by when must the sign-off happen to keep the June date?',
  '- Does the approved budget cover the contractors for June, or only until the end of May?',
  '',
  'If you want, I can turn the list above into tasks with dates, or draft the note to finance.',
].join('\n');

describeWeb(
  'PDF attachments and the canvas in Chromium',
  {
    id: 'e2e/pdf-canvas',
    script: {
      // One exchange holds all: a tool call (its result goes to the canvas), then the long
      // reply. Whatever the app asks the model after it (a chat title) takes nothing scripted.
      turns: [{ tool_calls: [{ name: 'list_skills', arguments: {} }] }, { text: LONG_REPLY }],
      api_key: 'sk-e2e-test',
      models: ['gpt-4.1-mini'],
    },
    page: { acceptDownloads: true },
  },
  (web) => {
    const composer = () => web.page.getByRole('textbox', { name: 'Message' });
    const canvas = () => web.page.locator('aside.canvas');

    it('configures the loopback provider', async () => {
      await connectProvider(web.page, web.provider.url, 'sk-e2e-test', /Connected to gpt-4\.1-mini/);
      await web.page.keyboard.press('Control+1');
      await composer().waitFor();
    });

    it('attaches a PDF as its text, refuses a scanned one, and the text reaches the model', async () => {
      await web.page.locator('input[type=file][aria-label="Attach files"]').setInputFiles([
        { name: 'minutes.pdf', mimeType: 'application/pdf', buffer: Buffer.from(MINUTES) },
        { name: 'scan.pdf', mimeType: 'application/pdf', buffer: Buffer.from(SCAN) },
      ]);
      const chip = web.page
        .getByRole('list', { name: 'Files to send' })
        .getByRole('listitem')
        .filter({ hasText: 'minutes.pdf' });
      await chip.waitFor();
      await expect.poll(() => chip.getAttribute('title')).toMatch(/its text, page by page/);
      await web.page
        .getByRole('alert')
        .getByText(/scan\.pdf has no text — it looks scanned .*run it through OCR first/)
        .waitFor();
      await composer().fill('Summarize the minutes');
      await shotSizes(web.page, 'ui-pdf-attached', { label: 'width' });
      await composer().press('Enter');
      await web.page.getByRole('heading', { name: 'Board minutes: summary' }).waitFor();
      // The turn's first completion request (the connection test's /models came before it).
      const first = web.provider.requests.find((r) =>
        JSON.stringify(r.body ?? '').includes('Summarize the minutes'),
      );
      const body = first!.body as { messages: Array<{ role: string; content: unknown }> };
      const sent = JSON.stringify(body.messages.filter((m) => m.role === 'user').at(-1)!.content);
      expect(sent).toContain('Summarize the minutes');
      expect(sent).toContain('<attachment name=\\"minutes.pdf\\">');
      expect(sent).toContain('PDF “minutes.pdf”, 2 pages');
      expect(sent).toContain(
        '--- page 1 of 2 ---\\n\\nBoard minutes, 12 May 2026\\nPresent: Ana, Ben, Chloe.',
      );
      expect(sent).toContain('--- page 2 of 2 ---\\n\\nDecision: ship version 2 in June.');
      expect(sent).not.toContain('scan.pdf');
      // The sent message lists the PDF it carried.
      await web.page.locator('.msg--user').getByText('minutes.pdf').waitFor();
    }, 90_000);

    it('opens the long reply in the canvas beside the chat, and Esc closes it', async () => {
      const open = web.page.locator('.msg--assistant').last().getByRole('button', { name: 'Open in canvas' });
      await open.click();
      await expect.poll(() => canvas().getAttribute('aria-label')).toBe('Canvas: Board minutes: summary');
      // Rendered as the chat renders Markdown: the table and the highlighted code.
      await canvas().getByRole('cell', { name: 'Approved, 48,000 EUR' }).waitFor();
      await expect.poll(() => canvas().locator('code.hljs.language-python').count()).toBe(1);
      await expect.poll(() => canvas().getByText('Reply · gpt-4.1-mini').count()).toBe(1);
      // Beside the chat, not over it, at 1440.
      const [chatBox, canvasBox] = await Promise.all([
        web.page.locator('.chat').boundingBox(),
        canvas().boundingBox(),
      ]);
      expect(chatBox!.x + chatBox!.width).toBeLessThanOrEqual(canvasBox!.x + 1);
      expect(canvasBox!.width).toBeGreaterThan(400);
      // Focus went into the canvas; ← on its edge widens it.
      await expect
        .poll(() => web.page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
        .toBe('Close canvas');
      await canvas().getByRole('separator', { name: 'Resize the canvas' }).focus();
      await web.page.keyboard.press('ArrowLeft');
      await web.page.keyboard.press('ArrowLeft');
      await expect
        .poll(async () => (await canvas().boundingBox())!.width)
        .toBeGreaterThan(canvasBox!.width + 50);
      await web.page.keyboard.press('Home');
      await expect
        .poll(async () => Math.round((await canvas().boundingBox())!.width))
        .toBe(Math.round(canvasBox!.width));
      // Dragging the edge 120 px to the left widens it by as much; a double-click puts it back.
      const edge = (await canvas().getByRole('separator').boundingBox())!;
      await web.page.mouse.move(edge.x + edge.width / 2, edge.y + 200);
      await web.page.mouse.down();
      await web.page.mouse.move(edge.x + edge.width / 2 - 60, edge.y + 200);
      await web.page.mouse.move(edge.x + edge.width / 2 - 120, edge.y + 200);
      await web.page.mouse.up();
      await expect
        .poll(async () => Math.round((await canvas().boundingBox())!.width - canvasBox!.width))
        .toBeGreaterThanOrEqual(115);
      await canvas().getByRole('separator').dblclick();
      await expect
        .poll(async () => Math.round((await canvas().boundingBox())!.width))
        .toBe(Math.round(canvasBox!.width));
      await shotSizes(web.page, 'ui-canvas-reply', { label: 'width' });
      const download = web.page.waitForEvent('download');
      await canvas().getByRole('button', { name: 'Download' }).click();
      expect((await download).suggestedFilename()).toBe('board-minutes-summary.md');
      await web.page.keyboard.press('Escape');
      await expect.poll(() => canvas().count()).toBe(0);
      // Focus is back where the canvas was opened from.
      await expect
        .poll(() => web.page.evaluate(() => document.activeElement?.textContent?.trim()))
        .toBe('Open in canvas');
    }, 90_000);

    it('opens a tool’s result in the canvas as a table', async () => {
      const step = web.page.locator('.msg--assistant').last().locator('.step').first();
      await step.locator('.step__head').click();
      await step.getByRole('button', { name: 'Open in canvas' }).click();
      await expect.poll(() => canvas().getAttribute('aria-label')).toBe('Canvas: List skills');
      await canvas().getByRole('columnheader', { name: 'name' }).waitFor();
      await canvas().getByRole('columnheader', { name: 'description' }).waitFor();
      await expect.poll(() => canvas().getByRole('row').count()).toBeGreaterThan(2);
      await canvas().getByRole('button', { name: 'Source' }).click();
      await expect.poll(() => canvas().locator('pre').textContent()).toMatch(/^name,description/);
      await canvas().getByRole('button', { name: 'Table' }).click();
      await shotSizes(web.page, 'ui-canvas-result', { label: 'width' });
      const download = web.page.waitForEvent('download');
      await canvas().getByRole('button', { name: 'Download' }).click();
      expect((await download).suggestedFilename()).toBe('list-skills.csv');
      await canvas().getByRole('button', { name: 'Close canvas' }).click();
      await expect.poll(() => canvas().count()).toBe(0);
      expect(web.problems).toEqual([]);
    }, 90_000);
  },
);
