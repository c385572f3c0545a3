import type { HandlersFor } from '../contract/channels.js';
import { AppError } from '../contract/errors.js';
import type { FileStore } from '../store/index.js';
import { readPdfText } from './pdf-text.js';

/** `%PDF-` within the first KiB, where readers look for it (some files start with junk). */
function looksLikePdf(b: Uint8Array): boolean {
  const head = Buffer.from(b.subarray(0, 1024)).toString('latin1');
  return head.includes('%PDF-');
}

/**
 * The `attachments/*` handlers: a PDF's text read in the main process, never in the renderer, and
 * every attached file kept as itself in the user's file store (`files`) for the skills' scripts.
 */
export function createAttachmentsHandlers(deps: { files: FileStore }) {
  return {
    'attachments/read-pdf': async (req) => {
      const bytes = new Uint8Array(Buffer.from(req.data, 'base64'));
      if (!looksLikePdf(bytes))
        throw new AppError(
          'INVALID_INPUT',
          `${req.name} is not a PDF (it does not start as one). Attach the PDF itself, or a text file.`,
          { reason: 'not_pdf' },
        );
      // Kept before the text is read: the reader may take the bytes to its thread.
      const file = deps.files.put(bytes).sha256;
      return { ...(await readPdfText(bytes, req.name)), file };
    },
    'attachments/store-file': (req) => {
      const { sha256, size } = deps.files.put(new Uint8Array(Buffer.from(req.data, 'base64')));
      return { name: req.name, file: sha256, size };
    },
  } satisfies HandlersFor<'attachments'>;
}
