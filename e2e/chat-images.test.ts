/**
 * Image attachments, in Chromium against web mode with the loopback provider: a PNG
 * pasted into the composer shows as a thumbnail chip, goes to the model as an image part, shows as
 * a thumbnail in the sent message and opens larger on a click. Screenshots at 1440×900 and
 * 1024×700, light and dark.
 */

import { crc32, deflateSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { connectProvider } from './browser.js';
import { describeWeb, shotSizes } from './web-suite.js';

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

describeWeb(
  'image attachments in Chromium',
  {
    id: 'e2e/chat-images',
    script: {
      turns: [{ text: 'A soft gradient from blue to pink.' }],
      api_key: 'sk-e2e-test',
      models: ['gpt-4.1-mini', 'gpt-3.5-turbo'],
    },
  },
  (web) => {
    const composer = () => web.page.getByRole('textbox', { name: 'Message' });

    it('configures the loopback provider', async () => {
      await connectProvider(web.page, web.provider.url, 'sk-e2e-test', /Connected to gpt-4\.1-mini/);
      await web.page.keyboard.press('Control+1');
      await composer().waitFor();
    });

    it('pastes a PNG, sends it as an image part and shows its thumbnail in the sent message', async () => {
      await composer().click();
      await web.page.evaluate((b64) => {
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([bytes], 'gradient.png', { type: 'image/png' }));
        document.activeElement!.dispatchEvent(
          new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }),
        );
      }, PNG.toString('base64'));
      const chip = web.page
        .getByRole('list', { name: 'Files to send' })
        .getByRole('listitem')
        .filter({ hasText: 'gradient.png' });
      await expect.poll(() => chip.getByRole('img', { name: 'gradient.png' }).count()).toBe(1);
      await expect
        .poll(() => chip.getAttribute('title'))
        .toMatch(/the model sees this image; skills' scripts get it as inputs\/gradient\.png/);
      await composer().fill('What is in this picture?');
      await shotSizes(web.page, 'ui-chat-image-pending', { label: 'width' });
      await composer().press('Enter');
      await web.page.locator('.msg--assistant').getByText('A soft gradient from blue to pink.').waitFor();
      const body = web.provider.requests.at(-1)!.body as {
        messages: Array<{ role: string; content: unknown }>;
      };
      expect(body.messages.at(-1)!.content).toEqual([
        { type: 'text', text: 'What is in this picture?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } },
      ]);
      const sent = web.page.locator('.msg--user').first();
      const open = sent.getByRole('button', { name: 'Open gradient.png' });
      await expect.poll(() => open.getByRole('img', { name: 'gradient.png' }).count()).toBe(1);
      // The thumbnail is the picture itself, decoded by the browser.
      await expect
        .poll(() => open.locator('img').evaluate((img: HTMLImageElement) => img.naturalWidth))
        .toBe(320);
      await shotSizes(web.page, 'ui-chat-image-sent', { label: 'width' });
      await open.click();
      const box = web.page.getByRole('dialog', { name: 'gradient.png' });
      await expect.poll(() => box.isVisible()).toBe(true);
      await shotSizes(web.page, 'ui-chat-image-open', { label: 'width' });
      await web.page.keyboard.press('Escape');
      await expect.poll(() => box.isVisible()).toBe(false);
      expect(web.problems).toEqual([]);
    }, 60_000);

    it('refuses an image for a model that cannot read images, keeping the draft and the image', async () => {
      await web.page.getByRole('button', { name: /OpenAI · gpt-4\.1-mini/ }).click();
      const menu = web.page.getByRole('menu', { name: 'Model for this chat' });
      await menu.getByRole('menuitemradio', { name: 'gpt-3.5-turbo', exact: true }).click();
      await web.page.getByRole('button', { name: /OpenAI · gpt-3\.5-turbo/ }).waitFor();
      const before = web.provider.requests.length;
      await web.page
        .locator('input[type=file][aria-label="Attach files"]')
        .setInputFiles([{ name: 'gradient.png', mimeType: 'image/png', buffer: PNG }]);
      await web.page.getByRole('list', { name: 'Files to send' }).getByText('gradient.png').waitFor();
      await composer().fill('And this one?');
      await composer().press('Enter');
      await web.page
        .getByRole('alert')
        .getByText(/gpt-3\.5-turbo cannot read images; choose a model that can, e\.g\. gpt-4\.1/)
        .waitFor();
      // Nothing was lost and nothing reached the model.
      await expect.poll(() => composer().inputValue()).toBe('And this one?');
      await web.page.getByRole('list', { name: 'Files to send' }).getByText('gradient.png').waitFor();
      expect(web.provider.requests.length).toBe(before);
      await shotSizes(web.page, 'ui-chat-image-refused', { label: 'width' });
    }, 60_000);
  },
);
