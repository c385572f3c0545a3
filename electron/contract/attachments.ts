/**
 * The `attachments/*` slice of the API contract: files a message carries that need the main
 * process before a model can read them. A PDF is untrusted input; its text is extracted in the
 * main process (on a worker thread, never in the renderer) and comes back as the text the model is
 * sent, which the composer then attaches like any text file.
 */
import { z } from 'zod';

/** Largest PDF read (bytes of the file; as base64 it stays well under the transport's 24 MiB). */
export const MAX_PDF_BYTES = 12 * 1024 * 1024;
/** Most pages of a PDF whose text is read; later pages are left out and the text says so. */
export const MAX_PDF_PAGES = 100;
/**
 * Most characters of a PDF's text sent (about 50,000 tokens); the rest is cut and the text says
 * so. Kept under the 512 KiB a text attachment may hold, whatever the script.
 */
export const MAX_PDF_CHARS = 150_000;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** `attachments/read-pdf`: the text of a PDF, ready to attach. */
export const ReadPdfReqSchema = z
  .object({
    /** The file's name, shown to the model with its text. */
    name: z.string().trim().min(1, 'must not be empty').max(255),
    /** The file, base64. */
    data: z
      .string()
      .max(Math.ceil((MAX_PDF_BYTES * 4) / 3) + 4, `is larger than ${MAX_PDF_BYTES / 1024 / 1024} MiB`)
      .refine((s) => s.length % 4 === 0 && BASE64.test(s), 'is not valid base64'),
  })
  .strict();
/** Request of `attachments/read-pdf`. */
export type ReadPdfReq = z.infer<typeof ReadPdfReqSchema>;

/** Reply of `attachments/read-pdf`. */
export interface ReadPdfRes {
  name: string;
  /** What the model is sent: the file's name, then each page's text under a page marker. */
  text: string;
  /** Pages in the file. */
  pages: number;
  /** Pages whose text was read (at most {@link MAX_PDF_PAGES}; fewer when the character cut came first). */
  pages_read: number;
  /** Pages with no text (images only, as scanned pages are). */
  pages_without_text: number[];
  /** Characters of page text sent (markers not counted). */
  chars: number;
  /** Why the text is shorter than the file, in words for the user; null when nothing was cut. */
  cut: string | null;
  /** The PDF itself, kept for scripts: attach it as the attachment's `file`. */
  file: string;
}

/** Largest file kept by `attachments/store-file` (bytes; as base64 it stays under the transport's 24 MiB). */
export const MAX_STORED_ATTACHMENT_BYTES = 16 * 1024 * 1024;

/**
 * `attachments/store-file`: keep a file of any type as itself, for the skills' scripts a message
 * runs (`inputs/<name>`); the reply's `file` goes into the attachment.
 */
export const StoreFileReqSchema = z
  .object({
    name: z.string().trim().min(1, 'must not be empty').max(255),
    data: z
      .string()
      .max(
        Math.ceil((MAX_STORED_ATTACHMENT_BYTES * 4) / 3) + 4,
        `is larger than ${MAX_STORED_ATTACHMENT_BYTES / 1024 / 1024} MiB`,
      )
      .refine((s) => s.length % 4 === 0 && BASE64.test(s), 'is not valid base64'),
  })
  .strict();
/** Request of `attachments/store-file`. */
export type StoreFileReq = z.infer<typeof StoreFileReqSchema>;
/** Reply of `attachments/store-file`. */
export interface StoreFileRes {
  name: string;
  /** The file's SHA-256: the attachment's `file`. */
  file: string;
  size: number;
}

/** The `attachments/*` channels. */
export interface AttachmentsChannels {
  'attachments/read-pdf': { req: ReadPdfReq; res: ReadPdfRes };
  'attachments/store-file': { req: StoreFileReq; res: StoreFileRes };
}

/** Request schemas of the `attachments/*` channels. */
export const attachmentsRequestSchemas = {
  'attachments/read-pdf': ReadPdfReqSchema,
  'attachments/store-file': StoreFileReqSchema,
};
