import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ReadPdfRes } from '../contract/attachments.js';
import { type AttachmentInput, sniffImage } from '../contract/chat.js';
import { AppError } from '../contract/errors.js';
import type { CoreClient } from '../transport/index.js';

/** What `chat --attach` read from one file, for the user (stderr) or `--json`'s `attachment` line. */
export interface AttachedFile {
  name: string;
  media_type: string;
  bytes: number;
  /** A PDF's pages, those read, and what was cut (null: nothing). */
  pages?: number;
  pages_read?: number;
  cut?: string | null;
}

const TEXT_TYPES: Record<string, string> = {
  csv: 'text/csv',
  md: 'text/markdown',
  markdown: 'text/markdown',
};

/**
 * One `--attach FILE` as the chat sends it: a PDF's text read by the host (as the app's composer
 * does), an image as base64 checked by its bytes, anything else as UTF-8 text. The size limits are
 * those of `chat/send-message`, checked where the request is validated.
 */
export async function readCliAttachment(
  c: CoreClient,
  path: string,
): Promise<{ attachment: AttachmentInput; info: AttachedFile }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (e) {
    throw new AppError(
      'INVALID_INPUT',
      `--attach ${path}: cannot read it (${(e as NodeJS.ErrnoException).code ?? String(e)}). Check the path.`,
    );
  }
  const name = basename(path);
  const head = bytes.subarray(0, 1024).toString('latin1');
  if (/\.pdf$/i.test(name) || head.startsWith('%PDF-')) {
    const r: ReadPdfRes = await c.invoke('attachments/read-pdf', { name, data: bytes.toString('base64') });
    return {
      attachment: { name, media_type: 'application/pdf', text: r.text },
      info: {
        name,
        media_type: 'application/pdf',
        bytes: bytes.length,
        pages: r.pages,
        pages_read: r.pages_read,
        cut: r.cut,
      },
    };
  }
  const image = sniffImage(bytes);
  if (image)
    return {
      attachment: { name, media_type: image, data: bytes.toString('base64') },
      info: { name, media_type: image, bytes: bytes.length },
    };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    text = '\u0000';
  }
  if (text.includes('\u0000'))
    throw new AppError(
      'INVALID_INPUT',
      `--attach ${path}: not UTF-8 text, a PDF or a PNG, JPEG, GIF or WebP image. Attach a text export of it.`,
    );
  const media_type = TEXT_TYPES[name.split('.').pop()?.toLowerCase() ?? ''] ?? 'text/plain';
  return { attachment: { name, media_type, text }, info: { name, media_type, bytes: bytes.length } };
}
