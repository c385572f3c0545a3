/**
 * The text of a PDF, read with Mozilla's pdf.js (`pdfjs-dist`, its legacy build for Node).
 *
 * A PDF is untrusted: it comes from anywhere and its parser is large. So it is read on a worker
 * thread of its own, with a heap cap and a time limit, and the thread goes away with everything it
 * parsed; a file built to hang or exhaust the parser costs that thread, never the main process
 * that serves every window. pdf.js runs no PDF JavaScript unless a viewer loads its scripting
 * sandbox, which this never does; XFA forms, eval-compiled fonts and system fonts are off, and
 * fonts, CMaps and colour data are read from the installed package, never fetched.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { MAX_PDF_CHARS, MAX_PDF_PAGES, type ReadPdfRes } from '../contract/attachments.js';
import { AppError } from '../contract/errors.js';

/** Limits of one PDF read (tests lower them). */
export interface PdfLimits {
  maxPages: number;
  maxChars: number;
  /** Wall-clock limit of the read. */
  timeoutMs: number;
  /** Heap of the reading thread (MB). */
  heapMb: number;
}

const DEFAULT_LIMITS: PdfLimits = {
  maxPages: MAX_PDF_PAGES,
  maxChars: MAX_PDF_CHARS,
  timeoutMs: 30_000,
  heapMb: 384,
};

type WorkerReply =
  | { ok: true; pages: number; texts: string[] }
  | { ok: false; name: string; message: string };

const require = createRequire(import.meta.url);

// The worker's source is a string: the main process and the CLI are bundled into one file each,
// with no worker file beside them to point at.
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { pdfjs, data, fonts, cmaps, wasm, maxPages, maxChars } = workerData;
  let doc;
  try {
    const { getDocument } = await import(pdfjs);
    doc = await getDocument({
      data,
      isEvalSupported: false,
      enableXfa: false,
      disableFontFace: true,
      useSystemFonts: false,
      useWorkerFetch: false,
      isOffscreenCanvasSupported: false,
      standardFontDataUrl: fonts,
      cMapUrl: cmaps,
      cMapPacked: true,
      wasmUrl: wasm,
      stopAtErrors: false,
      verbosity: 0,
    }).promise;
    const texts = [];
    let chars = 0;
    for (let n = 1; n <= Math.min(doc.numPages, maxPages) && chars <= maxChars; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items) {
        if (typeof item.str !== 'string') continue;
        text += item.str;
        if (item.hasEOL) text += '\\n';
      }
      texts.push(text);
      chars += text.length;
      page.cleanup();
    }
    parentPort.postMessage({ ok: true, pages: doc.numPages, texts });
  } catch (e) {
    parentPort.postMessage({ ok: false, name: String((e && e.name) || 'Error'), message: String((e && e.message) || e) });
  } finally {
    if (doc) await doc.destroy().catch(() => {});
  }
})();
`;

/** pdf.js's own files: the module, and the font, CMap and wasm data it reads from disk. */
function pdfjsFiles() {
  const module = require.resolve('pdfjs-dist/legacy/build/pdf.mjs');
  const root = join(dirname(module), '..', '..');
  // pdf.js in Node reads these with fs and wants folder paths ending in a separator.
  const folder = (name: string) => `${join(root, name)}/`;
  return {
    pdfjs: pathToFileURL(module).href,
    fonts: folder('standard_fonts'),
    cmaps: folder('cmaps'),
    wasm: folder('wasm'),
  };
}

function readOnThread(bytes: Uint8Array, name: string, limits: PdfLimits): Promise<WorkerReply> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerSource, {
      eval: true,
      workerData: { ...pdfjsFiles(), data: bytes, maxPages: limits.maxPages, maxChars: limits.maxChars },
      resourceLimits: { maxOldGenerationSizeMb: limits.heapMb, maxYoungGenerationSizeMb: 32 },
      stdout: true,
      stderr: true,
    });
    // pdf.js prints warnings about fonts or missing canvas support: not the user's business.
    worker.stdout.resume();
    worker.stderr.resume();
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      f();
      void worker.terminate();
    };
    const timer = setTimeout(
      () =>
        settle(() =>
          reject(
            new AppError(
              'TOO_LARGE',
              `${name}: reading its text took longer than ${limits.timeoutMs / 1000} s. Attach a smaller PDF or copy the part you need as text.`,
              { reason: 'timeout' },
            ),
          ),
        ),
      limits.timeoutMs,
    );
    worker.once('message', (m: WorkerReply) => settle(() => resolve(m)));
    worker.once('error', (e: Error & { code?: string }) =>
      settle(() =>
        reject(
          e.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new AppError(
                'TOO_LARGE',
                `${name}: reading its text needed more than ${limits.heapMb} MB of memory. Attach a smaller PDF or copy the part you need as text.`,
                { reason: 'memory' },
              )
            : new AppError('INVALID_INPUT', `${name} could not be read as a PDF (${e.message}).`, {
                reason: 'unreadable',
              }),
        ),
      ),
    );
    worker.once('exit', (code) =>
      settle(() => reject(new Error(`the PDF reading thread exited (${code}) without an answer`))),
    );
  });
}

/** Tidy one page's text: no trailing blanks on lines, at most one empty line in a row. */
function tidy(text: string): string {
  return text
    .replace(/[ \t\u00a0]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/**
 * Read the text of a PDF (`bytes`) for a model: a line naming the file and its pages, then each
 * page's text under a `--- page N of M ---` marker; pages past `maxPages` and characters past
 * `maxChars` are cut, and a last line says where and why.
 *
 * Throws {@link AppError} `INVALID_INPUT` for a file that is not a PDF, is locked with a password
 * (`details.reason: 'encrypted'`) or has no text at all (`'no_text'`: scanned pages), and
 * `TOO_LARGE` when the read passes its time or memory limit.
 */
export async function readPdfText(
  bytes: Uint8Array,
  name: string,
  limits: Partial<PdfLimits> = {},
): Promise<Omit<ReadPdfRes, 'file'>> {
  const lim = { ...DEFAULT_LIMITS, ...limits };
  const reply = await readOnThread(bytes, name, lim);
  if (!reply.ok) {
    if (reply.name === 'PasswordException')
      throw new AppError(
        'INVALID_INPUT',
        `${name} is protected with a password, so its text cannot be read. Open it in a PDF viewer, save or print a copy without the password, and attach that.`,
        { reason: 'encrypted' },
      );
    throw new AppError(
      'INVALID_INPUT',
      `${name} is not a readable PDF (${reply.message}). Check that the file is complete, or export it again as PDF.`,
      { reason: 'unreadable' },
    );
  }
  const pages = reply.texts.map(tidy);
  const withText = pages.filter((t) => t !== '').length;
  if (withText === 0)
    throw new AppError(
      'INVALID_INPUT',
      `${name} has no text — it looks scanned (its ${reply.pages === 1 ? 'page is an image' : 'pages are images'}). SkillDesk reads the text inside a PDF and does no OCR: run it through OCR first (for example ocrmypdf), or attach the pages as images to a model that reads images.`,
      { reason: 'no_text', pages: reply.pages },
    );

  const parts: string[] = [];
  const without: number[] = [];
  let chars = 0;
  let cutAtChars = false;
  let read = 0;
  for (const [i, page] of pages.entries()) {
    if (chars >= lim.maxChars) break;
    const n = i + 1;
    read = n;
    parts.push(`--- page ${n} of ${reply.pages} ---`);
    if (page === '') {
      without.push(n);
      parts.push('[no text on this page: an image or a scanned page]');
      continue;
    }
    const room = lim.maxChars - chars;
    const kept = page.length > room ? page.slice(0, room) : page;
    if (kept.length < page.length) cutAtChars = true;
    parts.push(kept);
    chars += kept.length;
  }
  if (chars >= lim.maxChars && read < pages.length) cutAtChars = true;

  let cut: string | null = null;
  if (cutAtChars)
    cut = `The text was cut at ${lim.maxChars.toLocaleString('en-US')} characters, in page ${read} of ${reply.pages}. Attach the pages you need as a smaller PDF for the rest.`;
  else if (read < reply.pages)
    cut = `Only the first ${plural(read, 'page')} of ${reply.pages} were read (SkillDesk reads at most ${lim.maxPages} pages of a PDF). Attach the rest as a separate, smaller PDF.`;

  const head = `PDF “${name}”, ${plural(reply.pages, 'page')}; its text follows, page by page.`;
  const text = [head, ...parts, ...(cut ? [`[${cut}]`] : [])].join('\n\n');
  return { name, text, pages: reply.pages, pages_read: read, pages_without_text: without, chars, cut };
}
