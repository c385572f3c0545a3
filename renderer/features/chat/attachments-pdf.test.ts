// @vitest-environment jsdom
// The composer's PDF path: a picked PDF goes to the main process (a real host) and comes back
// attached as its text; the cut of a long one becomes a note, a scanned one a refusal in words, and
// one over the size limit is refused before anything is read.
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_PDF_BYTES } from '../../../electron/contract/attachments.js';
import { makePdf } from '../../../electron/test-support/make-pdf.js';
import { inProcessClient } from '../../test-support.js';
import { attachKind, type ReadPdf, readAttachments } from './attachments.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function reader(): { readPdf: ReadPdf; calls: () => number } {
  const { client, host } = inProcessClient();
  cleanups.push(() => host.dispose());
  let n = 0;
  return {
    readPdf: (name, data) => {
      n++;
      return client.invoke('attachments/read-pdf', { name, data });
    },
    calls: () => n,
  };
}

const pdfFile = (name: string, bytes: Uint8Array) =>
  new File([bytes.slice()], name, { type: 'application/pdf' });

describe('attaching PDFs in the composer', () => {
  it('knows a PDF by its type or its name', () => {
    expect(attachKind({ name: 'a.pdf', type: '' })).toBe('pdf');
    expect(attachKind({ name: 'a', type: 'application/pdf' })).toBe('pdf');
    expect(attachKind({ name: 'a.PDF', type: 'application/octet-stream' })).toBe('pdf');
  });

  it('attaches a PDF as its text, notes a cut, and refuses a scanned one in words', async () => {
    const { readPdf } = reader();
    const long = makePdf(Array.from({ length: 102 }, (_, i) => ({ lines: [`Page ${i + 1}`] })));
    const r = await readAttachments(
      [
        pdfFile('minutes.pdf', makePdf([{ lines: ['Decision: ship in June.'] }])),
        pdfFile('long.pdf', long),
        pdfFile('scan.pdf', makePdf([{ image: true }])),
      ],
      [],
      readPdf,
    );
    expect(r.attachments.map((a) => [a.name, a.media_type])).toEqual([
      ['minutes.pdf', 'application/pdf'],
      ['long.pdf', 'application/pdf'],
    ]);
    expect(r.attachments[0]!.text).toContain('--- page 1 of 1 ---\n\nDecision: ship in June.');
    expect(r.notes).toEqual([
      'long.pdf: Only the first 100 pages of 102 were read (SkillDesk reads at most 100 pages of a PDF). Attach the rest as a separate, smaller PDF.',
    ]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatch(/^scan\.pdf has no text — it looks scanned/);
  }, 60_000);

  it('refuses a PDF over the size limit without reading it', async () => {
    const { readPdf, calls } = reader();
    const big = new File([new Uint8Array(MAX_PDF_BYTES + 1)], 'huge.pdf', { type: 'application/pdf' });
    const r = await readAttachments([big], [], readPdf);
    expect(r.attachments).toEqual([]);
    expect(r.errors[0]).toMatch(/^huge\.pdf is 12\.0 MB; PDFs up to 12\.0 MB can be attached/);
    expect(calls()).toBe(0);
  });
});
