/**
 * What the canvas shows, built from what the chat has: a reply, a tool's result, a file. Pure
 * functions (no React, no DOM) so each choice — Markdown, code, CSV table, image — is tested alone.
 * Every text shown here came from a model, a skill or a file: it is rendered through the chat's
 * sanitising Markdown renderer or as plain text, never as HTML.
 */
import { isImageMediaType, sniffImage } from '../../../electron/contract/chat.js';
import { toCsv } from './csv.js';
import { isVegaSpec } from './vega-spec.js';

/** The content of a canvas document, by how it is shown. */
export type CanvasContent =
  | { kind: 'markdown'; text: string }
  /** Source code, highlighted by language (a highlight.js name; `plaintext` for none). */
  | { kind: 'code'; text: string; lang: string }
  | { kind: 'csv'; text: string }
  /** A Vega-Lite (or Vega) spec, drawn as an interactive chart. */
  | { kind: 'chart'; text: string }
  /** PNG, JPEG, GIF or WebP, base64. */
  | { kind: 'image'; media_type: string; data: string }
  /** A file the canvas cannot show (a PDF, a zip): offered for download. */
  | { kind: 'binary'; media_type: string; data: string };

/** One document in the canvas. */
export interface CanvasDoc {
  /** Shown as the panel's title. */
  title: string;
  /** Name a download is saved under. */
  fileName: string;
  /** Where it came from, in words ("Reply · gpt-4.1-mini", "Result of Summarize"). */
  source: string;
  content: CanvasContent;
}

/** Replies at least this long offer "Open in canvas" (shorter ones read fine in the chat). */
export const LONG_REPLY_CHARS = 1200;
/** Tool results whose readable form is at least this long offer it too. */
export const LONG_RESULT_CHARS = 600;
/** The most text the canvas shows; beyond, it says so and the download has everything. */
export const MAX_CANVAS_CHARS = 2_000_000;

const CODE_LANGS: Record<string, string> = {
  py: 'python',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  ts: 'typescript',
  tsx: 'typescript',
  json: 'json',
  jsonl: 'json',
  sh: 'bash',
  bash: 'bash',
  zsh: 'bash',
  sql: 'sql',
  yaml: 'yaml',
  yml: 'yaml',
  toml: 'ini',
  ini: 'ini',
  cfg: 'ini',
  xml: 'xml',
  html: 'xml',
  htm: 'xml',
  svg: 'xml',
  css: 'css',
  scss: 'scss',
  go: 'go',
  rs: 'rust',
  java: 'java',
  kt: 'kotlin',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  hpp: 'cpp',
  cs: 'csharp',
  rb: 'ruby',
  php: 'php',
  swift: 'swift',
  r: 'r',
  lua: 'lua',
  diff: 'diff',
  patch: 'diff',
  j2: 'django',
  jinja: 'django',
  txt: 'plaintext',
  log: 'plaintext',
};

const extOf = (name: string) => /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase() ?? '';

/** The media type a download of the document is saved with. */
export function mediaTypeOf(doc: CanvasDoc): string {
  const c = doc.content;
  if (c.kind === 'image' || c.kind === 'binary') return c.media_type;
  if (c.kind === 'markdown') return 'text/markdown';
  if (c.kind === 'csv') return extOf(doc.fileName) === 'tsv' ? 'text/tab-separated-values' : 'text/csv';
  if (c.kind === 'chart') return 'application/json';
  return c.lang === 'json' ? 'application/json' : 'text/plain';
}

/** A text file as the canvas shows it: by its extension (Markdown, CSV, code), else plain text. */
export function docFromText(fileName: string, text: string, source: string): CanvasDoc {
  const ext = extOf(fileName);
  const content: CanvasContent =
    ext === 'md' || ext === 'markdown'
      ? { kind: 'markdown', text }
      : ext === 'csv' || ext === 'tsv'
        ? { kind: 'csv', text }
        : ext === 'json' && isVegaSpec(fileName, text)
          ? { kind: 'chart', text }
          : { kind: 'code', text, lang: CODE_LANGS[ext] ?? 'plaintext' };
  return { title: fileName, fileName, source, content };
}

/** `PAR1` at both ends: a Parquet file, whatever its name says (shown as a table, never as text). */
export function isParquet(bytes: Uint8Array): boolean {
  const magic = (at: number) =>
    bytes[at] === 0x50 && bytes[at + 1] === 0x41 && bytes[at + 2] === 0x52 && bytes[at + 3] === 0x31;
  return bytes.length >= 12 && magic(0) && magic(bytes.length - 4);
}

/** Bytes of a file (base64), as the canvas shows them: an image, UTF-8 text, a table, or a download. */
export function docFromFile(fileName: string, mediaType: string, data: string, source: string): CanvasDoc {
  const bytes = Uint8Array.from(atob(data), (ch) => ch.charCodeAt(0));
  const image = sniffImage(bytes.subarray(0, 16));
  if (image && (isImageMediaType(mediaType) || mediaType === '' || mediaType === 'application/octet-stream'))
    return { title: fileName, fileName, source, content: { kind: 'image', media_type: image, data } };
  if (isParquet(bytes))
    return {
      title: fileName,
      fileName,
      source,
      content: { kind: 'binary', media_type: 'application/vnd.apache.parquet', data },
    };
  let text: string | null = null;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    text = null;
  }
  // An SVG is shown as an image: drawn by an <img>, which runs none of its scripts and loads
  // nothing it links to.
  if (
    text !== null &&
    (extOf(fileName) === 'svg' || mediaType === 'image/svg+xml') &&
    /<svg[\s>]/i.test(text)
  )
    return {
      title: fileName,
      fileName,
      source,
      content: { kind: 'image', media_type: 'image/svg+xml', data },
    };
  if (text === null || text.includes('\u0000'))
    return {
      title: fileName,
      fileName,
      source,
      content: { kind: 'binary', media_type: mediaType || 'application/octet-stream', data },
    };
  return docFromText(fileName, text, source);
}

/** A file name from a title: letters, digits and dashes, at most 60 characters. */
export function slug(title: string): string {
  return (
    title
      .normalize('NFKD')
      .replace(/[^\w\s-]/g, '')
      .trim()
      .toLowerCase()
      .replace(/[\s_-]+/g, '-')
      .slice(0, 60)
      .replace(/-+$/, '') || 'document'
  );
}

/** A reply, as Markdown; named after the chat (`reply.md` without one). */
export function docFromReply(
  text: string,
  opts: { chatTitle?: string | null; model?: string | null },
): CanvasDoc {
  const name = opts.chatTitle ? `${slug(opts.chatTitle)}.md` : 'reply.md';
  return {
    title: opts.chatTitle || 'Reply',
    fileName: name,
    source: opts.model ? `Reply · ${opts.model}` : 'Reply',
    content: { kind: 'markdown', text },
  };
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);
const isScalar = (x: unknown) => x === null || typeof x !== 'object';
/** Rows of a table: plain objects whose values are scalars or lists of scalars. */
const isRows = (v: unknown): v is Rec[] =>
  Array.isArray(v) &&
  v.length > 0 &&
  v.every(
    (r) => isRec(r) && Object.values(r).every((x) => isScalar(x) || (Array.isArray(x) && x.every(isScalar))),
  );

/**
 * The readable text of a tool's result, if it has one: a string, `{text}`, a skill run's text
 * outputs, a script's standard output. Null when the result is data.
 */
function resultText(result: unknown): string | null {
  if (typeof result === 'string') return result;
  if (!isRec(result)) return null;
  const keys = Object.keys(result);
  if (typeof result.text === 'string' && keys.length === 1) return result.text;
  if (Array.isArray(result.outputs)) {
    const texts = result.outputs.filter(isRec).flatMap((o) => (typeof o.text === 'string' ? [o] : []));
    if (texts.length === 1) return texts[0]!.text as string;
    if (texts.length > 1)
      return texts.map((o) => `## ${String(o.artifact ?? '')}\n\n${o.text as string}`).join('\n\n');
  }
  if (typeof result.stdout === 'string' && result.stdout.trim() !== '') return result.stdout;
  return null;
}

/**
 * A tool's result as a document: its text as Markdown, rows of plain objects as a CSV table (a
 * skill run's data output too), anything else as JSON. `label` names the step ("Summarize").
 */
export function docFromResult(result: unknown, label: string): CanvasDoc {
  const source = `Result of ${label}`;
  const base = slug(label);
  const text = resultText(result);
  if (text !== null)
    return { title: label, fileName: `${base}.md`, source, content: { kind: 'markdown', text } };
  // A skill run's data output, or an answer that is one list under one key (`{skills: [...]}`).
  const keys = isRec(result) ? Object.keys(result) : [];
  const data =
    isRec(result) && Array.isArray(result.outputs)
      ? result.outputs.filter(isRec).find((o) => o.data !== undefined)?.data
      : isRec(result) && keys.length === 1
        ? result[keys[0]!]
        : result;
  if (isRows(data))
    return { title: label, fileName: `${base}.csv`, source, content: { kind: 'csv', text: toCsv(data) } };
  return {
    title: label,
    fileName: `${base}.json`,
    source,
    content: { kind: 'code', lang: 'json', text: JSON.stringify(result, null, 2) ?? String(result) },
  };
}

/** How long the readable form of a result is (to decide whether to offer the canvas). */
export function resultLength(result: unknown): number {
  const text = resultText(result);
  if (text !== null) return text.length;
  try {
    return JSON.stringify(result)?.length ?? 0;
  } catch {
    return 0;
  }
}

/** The text a document's Copy puts on the clipboard (null for images and binary files). */
export function docText(doc: CanvasDoc): string | null {
  const c = doc.content;
  return c.kind === 'image' || c.kind === 'binary' ? null : c.text;
}

/** A code fence around `text` that no backtick run inside it can close. */
export function fenced(text: string, lang: string): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${text}\n${fence}`;
}
