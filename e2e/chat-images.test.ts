/**
 * Image attachments, in Chromium against web mode with the loopback provider: a PNG
 * pasted into the composer shows as a thumbnail chip, goes to the model as an image part, shows as
 * a thumbnail in the sent message and opens larger on a click. Screenshots at 1440×900 and
 * 1024×700, light and dark.
 */

import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoopbackProvider } from '../electron/llm/index.js';
import { skipWithout, testArtifactsDir } from '../electron/test-support/index.js';
import {
  connectProvider,
  type E2eApp,
  type E2eSuite,
  findChromium,
  openPage,
  startSuite,
} from './browser.js';

const chromiumPath = findChromium();
const skip = skipWithout(!chromiumPath && 'no Chromium found (set CHROMIUM_PATH)', 'e2e/chat-images');
const shots = () => testArtifactsDir('e2e');

/** A w×h RGB PNG: a diagonal gradient, so a thumbnail is visibly an image. */
function gradientPng(w: number, h: number): Buffer {
  const rows = Buffer.alloc((w * 3 + 1) * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const o = y * (w * 3 + 1) + 1 + x * 3;
      rows[o] = Math.round((255 * x) / w);
      rows[o + 1] = Math.round((180 * y) / h);
      rows[o + 2] = 220;
    }
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const PNG = gradientPng(320, 200);

describe.skipIf(skip)('image attachments in Chromium', () => {
  let suite: E2eSuite;
  let browser: Browser;
  let app: E2eApp;
  let provider: LoopbackProvider;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    suite = await startSuite(chromiumPath!, {
      script: {
        turns: [{ text: 'A soft gradient from blue to pink.' }],
        api_key: 'sk-e2e-test',
        models: ['gpt-4.1-mini', 'gpt-3.5-turbo'],
      },
    });
    ({ app, browser } = suite);
    provider = suite.provider!;
    page = await openPage(browser, problems);
    await page.goto(app.server.url);
    await composer().waitFor();
  });
  afterAll(() => suite?.close());

  const composer = () => page.getByRole('textbox', { name: 'Message' });
  const shoot = async (name: string) => {
    for (const [w, h] of [
      [1440, 900],
      [1024, 700],
    ] as const) {
      await page.setViewportSize({ width: w, height: h });
      await page.emulateMedia({ colorScheme: 'light' });
      await page.screenshot({ path: join(shots(), `${name}-${w}-light.png`) });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.screenshot({ path: join(shots(), `${name}-${w}-dark.png`) });
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.emulateMedia({ colorScheme: 'light' });
  };

  it('configures the loopback provider', async () => {
    await connectProvider(page, provider.url, 'sk-e2e-test', /Connected to gpt-4\.1-mini/);
    await page.keyboard.press('Control+1');
    await composer().waitFor();
  });

  it('pastes a PNG, sends it as an image part and shows its thumbnail in the sent message', async () => {
    await composer().click();
    await page.evaluate((b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], 'gradient.png', { type: 'image/png' }));
      document.activeElement!.dispatchEvent(
        new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }),
      );
    }, PNG.toString('base64'));
    const chip = page
      .getByRole('list', { name: 'Files to send' })
      .getByRole('listitem')
      .filter({ hasText: 'gradient.png' });
    await expect.poll(() => chip.getByRole('img', { name: 'gradient.png' }).count()).toBe(1);
    await expect
      .poll(() => chip.getAttribute('title'))
      .toMatch(/the model sees this image; skills' scripts get it as inputs\/gradient\.png/);
    await composer().fill('What is in this picture?');
    await shoot('ui-chat-image-pending');
    await composer().press('Enter');
    await page.locator('.msg--assistant').getByText('A soft gradient from blue to pink.').waitFor();
    const body = provider.requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> };
    expect(body.messages.at(-1)!.content).toEqual([
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } },
    ]);
    const sent = page.locator('.msg--user').first();
    const open = sent.getByRole('button', { name: 'Open gradient.png' });
    await expect.poll(() => open.getByRole('img', { name: 'gradient.png' }).count()).toBe(1);
    // The thumbnail is the picture itself, decoded by the browser.
    await expect
      .poll(() => open.locator('img').evaluate((img: HTMLImageElement) => img.naturalWidth))
      .toBe(320);
    await shoot('ui-chat-image-sent');
    await open.click();
    const box = page.getByRole('dialog', { name: 'gradient.png' });
    await expect.poll(() => box.isVisible()).toBe(true);
    await shoot('ui-chat-image-open');
    await page.keyboard.press('Escape');
    await expect.poll(() => box.isVisible()).toBe(false);
    expect(problems).toEqual([]);
  }, 60_000);

  it('refuses an image for a model that cannot read images, keeping the draft and the image', async () => {
    await page.getByRole('button', { name: /OpenAI · gpt-4\.1-mini/ }).click();
    const menu = page.getByRole('menu', { name: 'Model for this chat' });
    await menu.getByRole('menuitemradio', { name: 'gpt-3.5-turbo', exact: true }).click();
    await page.getByRole('button', { name: /OpenAI · gpt-3\.5-turbo/ }).waitFor();
    const before = provider.requests.length;
    await page
      .locator('input[type=file][aria-label="Attach files"]')
      .setInputFiles([{ name: 'gradient.png', mimeType: 'image/png', buffer: PNG }]);
    await page.getByRole('list', { name: 'Files to send' }).getByText('gradient.png').waitFor();
    await composer().fill('And this one?');
    await composer().press('Enter');
    await page
      .getByRole('alert')
      .getByText(/gpt-3\.5-turbo cannot read images; choose a model that can, e\.g\. gpt-4\.1/)
      .waitFor();
    // Nothing was lost and nothing reached the model.
    await expect.poll(() => composer().inputValue()).toBe('And this one?');
    await page.getByRole('list', { name: 'Files to send' }).getByText('gradient.png').waitFor();
    expect(provider.requests.length).toBe(before);
    await shoot('ui-chat-image-refused');
  }, 60_000);
});
