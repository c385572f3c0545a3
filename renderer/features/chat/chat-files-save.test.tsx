// @vitest-environment jsdom
// The chat's Files panel: each file saves where the user picks (the engine's save dialog) with its
// bytes read from the real host, and downloads under its own name and media type.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import { createStores, StoresProvider } from '../../stores.js';
import { inProcessClient } from '../../test-support.js';
import { ChatFiles } from './ChatFiles.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe('ChatFiles', () => {
  it('saves a chat file to the place chosen, and downloads it by name', async () => {
    const { client, host } = inProcessClient();
    const w = window as unknown as { showSaveFilePicker?: unknown };
    const click = HTMLAnchorElement.prototype.click;
    try {
      const { session_id } = await client.invoke('chat/send-message', { message: 'hello' });
      await client.invoke('chat/upload-file', {
        session_id,
        name: 'report.csv',
        data_base64: Buffer.from('a,b\n1,2\n').toString('base64'),
      });
      const stores = createStores(client);
      stores.chat.setState({ activeId: session_id });
      const el = document.createElement('div');
      document.body.append(el);
      const root = createRoot(el);
      await act(async () => {
        root.render(
          <StoresProvider stores={stores}>
            <ChatFiles />
          </StoresProvider>,
        );
      });
      const toggle = await expect
        .poll(() => el.querySelector<HTMLButtonElement>('button[aria-expanded]'))
        .not.toBeNull()
        .then(() => el.querySelector<HTMLButtonElement>('button[aria-expanded]')!);
      await act(async () => toggle.click());

      const written: Blob[] = [];
      const asked: string[] = [];
      w.showSaveFilePicker = async (o: { suggestedName: string }) => {
        asked.push(o.suggestedName);
        return {
          createWritable: async () => ({
            write: async (b: Blob) => void written.push(b),
            close: async () => {},
          }),
        };
      };
      const saveTo = el.querySelector<HTMLButtonElement>('button[aria-label="Save report.csv to…"]');
      expect(saveTo).not.toBeNull();
      await act(async () => saveTo!.click());
      await expect.poll(() => written.length).toBe(1);
      expect(asked).toEqual(['report.csv']);
      expect(await written[0]!.text()).toBe('a,b\n1,2\n');

      const downloads: Array<{ name: string; blob: Blob }> = [];
      let last: Blob | null = null;
      URL.createObjectURL = (b: Blob) => {
        last = b;
        return 'blob:test';
      };
      URL.revokeObjectURL = () => {};
      HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
        downloads.push({ name: this.download, blob: last! });
      };
      await act(async () =>
        el.querySelector<HTMLButtonElement>('button[aria-label="Download report.csv"]')!.click(),
      );
      await expect.poll(() => downloads.length).toBe(1);
      expect(downloads[0]!.name).toBe('report.csv');
      expect(downloads[0]!.blob.type).toMatch(/^text\/csv/);
      root.unmount();
    } finally {
      delete w.showSaveFilePicker;
      HTMLAnchorElement.prototype.click = click;
      await host.dispose();
    }
  }, 60_000);
});
