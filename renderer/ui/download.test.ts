// @vitest-environment jsdom
// "Save to…": the engine's save dialog when there is one, a download with the file's name and media
// type when there is none or it is refused, nothing when the user closes the dialog.
import { afterEach, describe, expect, it } from 'vitest';
import { downloadBlob, saveBlobTo } from './download.js';

const w = window as unknown as { showSaveFilePicker?: unknown };
const click = HTMLAnchorElement.prototype.click;
afterEach(() => {
  delete w.showSaveFilePicker;
  HTMLAnchorElement.prototype.click = click;
});

/** Downloads as the page starts them: the anchor's file name and the blob behind its URL. */
function captureDownloads() {
  const got: Array<{ name: string; blob: Blob }> = [];
  const blobs = new Map<string, Blob>();
  URL.createObjectURL = (b: Blob) => {
    const url = `blob:test/${blobs.size}`;
    blobs.set(url, b);
    return url;
  };
  URL.revokeObjectURL = () => {};
  HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
    got.push({ name: this.download, blob: blobs.get(this.href)! });
  };
  return got;
}

const pdf = () => new Blob(['%PDF-1.4'], { type: 'application/pdf' });

describe('saveBlobTo', () => {
  it('writes the bytes where the save dialog says, under the suggested name', async () => {
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
    const downloads = captureDownloads();
    expect(await saveBlobTo('form.pdf', async () => pdf())).toBe('saved');
    expect(asked).toEqual(['form.pdf']);
    expect(await written[0]!.text()).toBe('%PDF-1.4');
    expect(downloads).toEqual([]);
  });

  it('downloads with the name and media type where there is no dialog or it is refused', async () => {
    const downloads = captureDownloads();
    expect(await saveBlobTo('form.pdf', async () => pdf())).toBe('downloaded');
    w.showSaveFilePicker = async () => {
      throw new DOMException('not allowed', 'NotAllowedError');
    };
    expect(await saveBlobTo('again.pdf', async () => pdf())).toBe('downloaded');
    expect(downloads.map((d) => [d.name, d.blob.type])).toEqual([
      ['form.pdf', 'application/pdf'],
      ['again.pdf', 'application/pdf'],
    ]);
    expect(await downloads[0]!.blob.text()).toBe('%PDF-1.4');
  });

  it('does nothing, not even fetch the bytes, when the user closes the dialog', async () => {
    w.showSaveFilePicker = async () => {
      throw new DOMException('closed', 'AbortError');
    };
    const downloads = captureDownloads();
    let fetched = 0;
    expect(
      await saveBlobTo('form.pdf', async () => {
        fetched++;
        return pdf();
      }),
    ).toBe('cancelled');
    expect(fetched).toBe(0);
    expect(downloads).toEqual([]);
  });

  it('downloadBlob names the file', () => {
    const downloads = captureDownloads();
    downloadBlob('notes.txt', new Blob(['n'], { type: 'text/plain' }));
    expect(downloads.map((d) => [d.name, d.blob.type])).toEqual([['notes.txt', 'text/plain']]);
  });
});
