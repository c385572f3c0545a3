// PDF attachments: text read by pdf.js on a worker thread from PDFs the test writes byte by byte
// (text pages, image-only "scanned" pages, a password lock), the page and character cuts said in
// the text, clear errors, and the text reaching the model through a real chat turn.
import { describe, expect, it } from 'vitest';
import { MAX_PDF_PAGES } from '../contract/attachments.js';
import type { Req, Res } from '../contract/channels.js';
import { requestSchemas } from '../contract/channels.js';
import { type AppError, isAppError } from '../contract/errors.js';
import { loopbackHost } from '../test-support/index.js';
import { makePdf } from '../test-support/make-pdf.js';
import { readPdfText } from './pdf-text.js';

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(isAppError(e), String(e)).toBe(true);
  return e as AppError;
}

const pages = (n: number, line = (i: number) => `This is page ${i}.`) =>
  Array.from({ length: n }, (_, i) => ({ lines: [line(i + 1)] }));

describe('readPdfText', () => {
  it('reads each page under a marker, after a line naming the file', async () => {
    const pdf = makePdf([
      { lines: ['Quarterly report (draft)', 'Revenue grew 42 percent.'] },
      { lines: ['Costs fell in the second half.'] },
    ]);
    const r = await readPdfText(pdf, 'report.pdf');
    expect(r).toMatchObject({
      name: 'report.pdf',
      pages: 2,
      pages_read: 2,
      pages_without_text: [],
      cut: null,
    });
    expect(r.text).toBe(
      [
        'PDF “report.pdf”, 2 pages; its text follows, page by page.',
        '--- page 1 of 2 ---',
        'Quarterly report (draft)\nRevenue grew 42 percent.',
        '--- page 2 of 2 ---',
        'Costs fell in the second half.',
      ].join('\n\n'),
    );
    expect(r.chars).toBe(
      'Quarterly report (draft)\nRevenue grew 42 percent.Costs fell in the second half.'.length,
    );
  });

  it('marks pages that are only an image, and keeps the text of the others', async () => {
    const r = await readPdfText(makePdf([{ lines: ['Cover letter'] }, { image: true }]), 'mixed.pdf');
    expect(r.pages_without_text).toEqual([2]);
    expect(r.text).toContain('--- page 2 of 2 ---\n\n[no text on this page: an image or a scanned page]');
  });

  it('refuses a scanned PDF (images, no text layer) saying so and what to do', async () => {
    const e = await refusal(readPdfText(makePdf([{ image: true }, { image: true }]), 'scan.pdf'));
    expect(e.code).toBe('INVALID_INPUT');
    expect(e.details).toMatchObject({ reason: 'no_text', pages: 2 });
    expect(e.message).toMatch(/^scan\.pdf has no text — it looks scanned/);
    expect(e.message).toMatch(/OCR/);
  });

  it('refuses a password-protected PDF', async () => {
    const e = await refusal(
      readPdfText(makePdf([{ lines: ['secret'] }], { userPassword: 'pw' }), 'locked.pdf'),
    );
    expect(e.code).toBe('INVALID_INPUT');
    expect(e.details).toMatchObject({ reason: 'encrypted' });
    expect(e.message).toMatch(/locked\.pdf is protected with a password/);
  });

  it('refuses a broken PDF', async () => {
    const e = await refusal(readPdfText(new TextEncoder().encode('%PDF-1.4\nnothing else'), 'half.pdf'));
    expect(e.details).toMatchObject({ reason: 'unreadable' });
    expect(e.message).toMatch(/^half\.pdf is not a readable PDF/);
  });

  it('reads at most the page limit and says where it stopped', async () => {
    const r = await readPdfText(makePdf(pages(5)), 'long.pdf', { maxPages: 3 });
    expect(r).toMatchObject({ pages: 5, pages_read: 3 });
    expect(r.cut).toBe(
      'Only the first 3 pages of 5 were read (SkillDesk reads at most 3 pages of a PDF). Attach the rest as a separate, smaller PDF.',
    );
    expect(r.text).toContain('This is page 3.');
    expect(r.text).not.toContain('This is page 4.');
    expect(r.text.endsWith(`[${r.cut}]`)).toBe(true);
  });

  it('cuts at the character limit and says in which page', async () => {
    const r = await readPdfText(makePdf(pages(4, (i) => `Page ${i} ${'x'.repeat(40)}`)), 'wide.pdf', {
      maxChars: 60,
    });
    expect(r.chars).toBe(60);
    expect(r.pages_read).toBe(2);
    expect(r.cut).toMatch(/^The text was cut at 60 characters, in page 2 of 4\./);
    expect(r.text).not.toContain('Page 3');
  });

  it('keeps the default page limit of the contract', async () => {
    expect(MAX_PDF_PAGES).toBe(100);
    const r = await readPdfText(makePdf(pages(MAX_PDF_PAGES + 2)), 'many.pdf');
    expect(r.pages_read).toBe(MAX_PDF_PAGES);
    expect(r.cut).toMatch(/first 100 pages of 102/);
  });

  it('stops a read that takes too long', async () => {
    const e = await refusal(readPdfText(makePdf(pages(50)), 'slow.pdf', { timeoutMs: 1 }));
    expect(e.code).toBe('TOO_LARGE');
    expect(e.details).toMatchObject({ reason: 'timeout' });
  });
});

describe('attachments/read-pdf through the host', () => {
  async function setup() {
    const { host, provider } = await loopbackHost([{ text: 'The report says revenue grew.' }], {
      provider: 'openai',
      model: 'gpt-4.1-mini',
    });
    const call = async <C extends keyof typeof requestSchemas>(channel: C, req: Req<C>): Promise<Res<C>> =>
      (await host.handlers[channel](requestSchemas[channel].parse(req) as never, {
        transport: 'in-process',
      })) as Res<C>;
    return { host, provider, call };
  }

  it('checks the request at the edge', () => {
    const bad = requestSchemas['attachments/read-pdf'].safeParse({ name: 'a.pdf', data: 'not base64!' });
    expect(bad.success).toBe(false);
    const huge = requestSchemas['attachments/read-pdf'].safeParse({
      name: 'a.pdf',
      data: 'A'.repeat(17 * 1024 * 1024),
    });
    expect(huge.success).toBe(false);
    expect(JSON.stringify(huge.error?.issues)).toMatch(/larger than 12 MiB/);
  });

  it('refuses a file that is not a PDF', async () => {
    const { call } = await setup();
    const e = await refusal(
      call('attachments/read-pdf', { name: 'notes.pdf', data: Buffer.from('just text').toString('base64') }),
    );
    expect(e.details).toMatchObject({ reason: 'not_pdf' });
    expect(e.message).toMatch(/^notes\.pdf is not a PDF/);
  });

  it("sends the PDF's text to the model with its name and page markers", async () => {
    const { host, provider, call } = await setup();
    const pdf = makePdf([{ lines: ['Revenue grew 42 percent in 2026.'] }, { lines: ['Appendix A'] }]);
    const read = await call('attachments/read-pdf', {
      name: 'q3.pdf',
      data: Buffer.from(pdf).toString('base64'),
    });
    const finished = new Promise((resolve) => {
      const off = host.events.subscribe('chat/turn-finished', (p) => {
        off();
        resolve(p);
      });
    });
    await call('chat/send-message', {
      message: 'What does the report say?',
      attachments: [{ name: read.name, media_type: 'application/pdf', text: read.text }],
    });
    await finished;
    const body = provider.requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> };
    const user = JSON.stringify(body.messages.filter((m) => m.role === 'user').at(-1)!.content);
    expect(user).toContain('<attachment name=\\"q3.pdf\\">');
    expect(user).toContain('--- page 1 of 2 ---');
    expect(user).toContain('Revenue grew 42 percent in 2026.');
    expect(user).toContain('--- page 2 of 2 ---\\n\\nAppendix A');
  });
});
