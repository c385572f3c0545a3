import {
  MAX_PDF_BYTES,
  MAX_STORED_ATTACHMENT_BYTES,
  type ReadPdfRes,
  type StoreFileRes,
} from '../../../electron/contract/attachments.js';
import {
  type AttachmentInput,
  base64Bytes,
  isImageMediaType,
  MAX_ATTACHMENT_BYTES,
  MAX_ATTACHMENTS,
  MAX_ATTACHMENTS_TOTAL_BYTES,
  MAX_IMAGE_BYTES,
  MAX_IMAGES_TOTAL_BYTES,
  sniffImage,
} from '../../../electron/contract/chat.js';

// Text files without a text/* type that browsers often report as '' or application/*.
const TEXT_EXTENSIONS =
  /\.(txt|md|markdown|csv|tsv|json|jsonl|ya?ml|toml|ini|xml|html?|css|js|mjs|cjs|ts|tsx|jsx|py|rb|go|rs|java|kt|c|h|cc|cpp|hpp|cs|swift|sh|bash|zsh|sql|log|tex|rst|org|env|cfg|conf|j2|jinja)$/i;
const TEXT_TYPES =
  /^(text\/|application\/(json|x-ndjson|xml|x-yaml|yaml|toml|javascript|typescript|x-sh|sql))/;

/** What a file is, as far as attaching goes. */
export function attachKind(file: { name: string; type: string }): 'text' | 'image' | 'pdf' | 'other' {
  if (file.type.startsWith('image/')) return 'image';
  if (file.type === 'application/pdf' || /\.pdf$/i.test(file.name)) return 'pdf';
  if (TEXT_TYPES.test(file.type) || TEXT_EXTENSIONS.test(file.name)) return 'text';
  return 'other';
}

const size = (n: number) =>
  n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(n / 1024)} KB`;

/** The media type sent with a text file (browsers leave CSV or Markdown empty at times). */
function mediaType(file: { name: string; type: string }): string {
  if (file.type) return file.type;
  const ext = file.name.split('.').pop()?.toLowerCase();
  return ext === 'csv' ? 'text/csv' : ext === 'md' || ext === 'markdown' ? 'text/markdown' : 'text/plain';
}

/** Base64 of bytes, in chunks (a 5 MB image at once would overflow the call stack). */
function toBase64(b: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < b.length; i += 0x8000) bin += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(bin);
}

/** Read an image the host will accept (PNG, JPEG, GIF, WebP by its bytes), or say why not. */
async function readImage(
  file: File,
  list: AttachmentInput[],
): Promise<{ list: AttachmentInput[] } | { error: string }> {
  if (!isImageMediaType(file.type))
    return {
      error: `${file.name}: only PNG, JPEG, GIF and WebP images can be sent. Convert it to PNG first.`,
    };
  if (file.size > MAX_IMAGE_BYTES)
    return {
      error: `${file.name} is ${size(file.size)}; images up to ${size(MAX_IMAGE_BYTES)} can be sent. Send a smaller or cropped image.`,
    };
  const rest = list.filter((a) => a.name !== file.name);
  if (rest.length >= MAX_ATTACHMENTS)
    return { error: `${file.name}: a message can carry ${MAX_ATTACHMENTS} files at most.` };
  const b = new Uint8Array(await file.arrayBuffer());
  const sniffed = sniffImage(b);
  if (!sniffed) return { error: `${file.name} is not a readable PNG, JPEG, GIF or WebP image.` };
  return { list: [...rest, { name: file.name, media_type: sniffed, data: toBase64(b) }] };
}

/**
 * The main process's reading of a PDF (`attachments/read-pdf`): its text, or a rejection whose
 * message says what to do.
 */
export type ReadPdf = (name: string, data: string) => Promise<ReadPdfRes>;

/**
 * A PDF's text, read by the main process (pdf.js never runs in the renderer, which is as untrusted
 * as the file), attached as a text file the model reads with its name and page markers.
 */
async function readPdfFile(
  file: File,
  list: AttachmentInput[],
  readPdf: ReadPdf | undefined,
): Promise<{ list: AttachmentInput[]; note: string | null } | { error: string }> {
  if (!readPdf) return { error: `${file.name}: PDFs cannot be attached here.` };
  if (file.size > MAX_PDF_BYTES)
    return {
      error: `${file.name} is ${size(file.size)}; PDFs up to ${size(MAX_PDF_BYTES)} can be attached. Attach the pages you need as a smaller PDF.`,
    };
  const rest = list.filter((a) => a.name !== file.name);
  if (rest.length >= MAX_ATTACHMENTS)
    return { error: `${file.name}: a message can carry ${MAX_ATTACHMENTS} files at most.` };
  try {
    const r = await readPdf(file.name, toBase64(new Uint8Array(await file.arrayBuffer())));
    return {
      list: [...rest, { name: file.name, media_type: 'application/pdf', text: r.text, file: r.file }],
      note: r.cut ? `${file.name}: ${r.cut}` : null,
    };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

/** The main process keeping a file as itself (`attachments/store-file`), for the skills' scripts. */
export type StoreFile = (name: string, data: string) => Promise<StoreFileRes>;

/**
 * A file with no text to read here (a workbook, a document, an archive), kept by the main process
 * as itself: the model is told it is there, and a skill's script gets it as `inputs/<name>`.
 */
async function storeOtherFile(
  file: File,
  list: AttachmentInput[],
  storeFile: StoreFile,
): Promise<{ list: AttachmentInput[] } | { error: string }> {
  if (file.size > MAX_STORED_ATTACHMENT_BYTES)
    return {
      error: `${file.name} is ${size(file.size)}; files up to ${size(MAX_STORED_ATTACHMENT_BYTES)} can be attached here. For larger files run the script from the command line: skilldesk skills run-script NAME SCRIPT --file PATH.`,
    };
  const rest = list.filter((a) => a.name !== file.name);
  if (rest.length >= MAX_ATTACHMENTS)
    return { error: `${file.name}: a message can carry ${MAX_ATTACHMENTS} files at most.` };
  try {
    const r = await storeFile(file.name, toBase64(new Uint8Array(await file.arrayBuffer())));
    return {
      list: [...rest, { name: file.name, media_type: file.type || 'application/octet-stream', file: r.file }],
    };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * Check files against the limits the host enforces and read the ones that fit: each refusal is a
 * sentence naming the file and what to do instead; `notes` say what was left out of a file that
 * was attached (a long PDF's later pages). A file already attached under the same name is replaced.
 */
export async function readAttachments(
  files: ReadonlyArray<File>,
  current: ReadonlyArray<AttachmentInput>,
  readPdf?: ReadPdf,
  storeFile?: StoreFile,
): Promise<{ attachments: AttachmentInput[]; errors: string[]; notes: string[] }> {
  const errors: string[] = [];
  const notes: string[] = [];
  let list = [...current];
  const bytes = (l: AttachmentInput[]) =>
    l.reduce((n, a) => n + (a.data === undefined ? new TextEncoder().encode(a.text ?? '').length : 0), 0);
  const imageBytes = (l: AttachmentInput[]) =>
    l.reduce((n, a) => n + (a.data === undefined ? 0 : base64Bytes(a.data)), 0);
  for (const file of files) {
    const kind = attachKind(file);
    if (kind === 'image') {
      const r = await readImage(file, list);
      if ('error' in r) errors.push(r.error);
      else if (imageBytes(r.list) > MAX_IMAGES_TOTAL_BYTES)
        errors.push(
          `${file.name}: together the images would pass ${size(MAX_IMAGES_TOTAL_BYTES)}. Remove one or send a smaller image.`,
        );
      else list = r.list;
      continue;
    }
    if (kind === 'pdf') {
      const r = await readPdfFile(file, list, readPdf);
      if ('error' in r) errors.push(r.error);
      else if (bytes(r.list) > MAX_ATTACHMENTS_TOTAL_BYTES)
        errors.push(
          `${file.name}: together the files would pass ${size(MAX_ATTACHMENTS_TOTAL_BYTES)}. Remove one or attach less.`,
        );
      else {
        list = r.list;
        if (r.note) notes.push(r.note);
      }
      continue;
    }
    if (kind === 'other' && storeFile) {
      const r = await storeOtherFile(file, list, storeFile);
      if ('error' in r) errors.push(r.error);
      else list = r.list;
      continue;
    }
    if (kind === 'other') {
      errors.push(
        `${file.name}: only text files, PDFs and images can be attached (CSV, Markdown, code, JSON…).`,
      );
      continue;
    }
    if (file.size > MAX_ATTACHMENT_BYTES) {
      errors.push(
        `${file.name} is ${size(file.size)}; files up to ${size(MAX_ATTACHMENT_BYTES)} can be attached. Attach an excerpt instead.`,
      );
      continue;
    }
    const rest = list.filter((a) => a.name !== file.name);
    if (rest.length >= MAX_ATTACHMENTS) {
      errors.push(`${file.name}: a message can carry ${MAX_ATTACHMENTS} files at most.`);
      continue;
    }
    const text = await file.text();
    if (text.includes('\u0000')) {
      errors.push(`${file.name} looks binary: only text files can be attached.`);
      continue;
    }
    const next = [...rest, { name: file.name, media_type: mediaType(file), text }];
    if (bytes(next) > MAX_ATTACHMENTS_TOTAL_BYTES) {
      errors.push(
        `${file.name}: together the files would pass ${size(MAX_ATTACHMENTS_TOTAL_BYTES)}. Remove one or attach less.`,
      );
      continue;
    }
    list = next;
  }
  return { attachments: list, errors, notes };
}
