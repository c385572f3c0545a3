/**
 * A server resource as a message attachment: text parts (and base64 blobs of a text
 * type that decode to UTF-8 text) become one text attachment within the attachment limits; a PNG,
 * JPEG, GIF or WebP image becomes an image attachment (checked by its bytes); any other binary
 * content is refused with a sentence saying what to do instead.
 */
import { AttachmentInputSchema } from '../contract/chat.js';
import { AppError } from '../contract/errors.js';
import type { ReadResourceRes } from '../contract/tools.js';
import type { ResourceContents } from './hub.js';

const TEXT_TYPES =
  /^(text\/|application\/(json|ld\+json|x-ndjson|xml|x-yaml|yaml|toml|javascript|typescript|x-sh|sql|graphql))/i;

/** Whether a media type is text (no type: the server did not say, and the bytes decide). */
function isText(mime: string | null): boolean {
  return mime === null || TEXT_TYPES.test(mime) || /\+(json|xml)$/i.test(mime);
}

/** The UTF-8 text of a base64 blob, or null when it is not text. */
function blobText(blob: string): string | null {
  const bytes = Buffer.from(blob, 'base64');
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return text.includes('\u0000') ? null : text;
  } catch {
    return null;
  }
}

/** The name an attachment of `uri` gets when the server gave none. */
export function resourceName(uri: string): string {
  const end =
    uri
      .replace(/[?#].*$/, '')
      .replace(/\/+$/, '')
      .split('/')
      .pop() || uri;
  try {
    return decodeURIComponent(end).slice(0, 255);
  } catch {
    return end.slice(0, 255);
  }
}

/**
 * Map what `resources/read` returned to an attachment, or throw `INVALID_INPUT` naming the
 * resource and saying why it cannot be attached.
 */
export function resourceAttachment(
  res: { server: string; uri: string; name?: string },
  contents: ResourceContents[],
): ReadResourceRes {
  const name = res.name ?? resourceName(res.uri);
  if (contents.length === 0)
    throw new AppError(
      'NOT_FOUND',
      `${name}: the MCP server ${res.server} returned no content for ${res.uri}`,
    );
  // One image part (a PNG, JPEG, GIF or WebP blob) is an image attachment, checked by its bytes.
  const only = contents.length === 1 ? contents[0]! : null;
  if (only?.blob !== undefined && only.mime_type?.startsWith('image/')) {
    const parsed = AttachmentInputSchema.safeParse({ name, media_type: only.mime_type, data: only.blob });
    if (!parsed.success) throw refusal(name, parsed.error.issues[0]?.message);
    return { name, media_type: only.mime_type, data: only.blob };
  }
  const texts: string[] = [];
  for (const part of contents) {
    if (part.text !== undefined) {
      texts.push(part.text);
      continue;
    }
    const mime = part.mime_type;
    const text = part.blob !== undefined && isText(mime) ? blobText(part.blob) : null;
    if (text !== null) {
      texts.push(text);
      continue;
    }
    throw new AppError(
      'INVALID_INPUT',
      mime?.startsWith('image/')
        ? `${name} holds several parts with an image (${mime}); only a single image can be attached. Pick a text resource or attach the image file.`
        : `${name} is binary (${mime ?? 'unknown type'}); only text resources and PNG, JPEG, GIF or WebP images can be attached.`,
    );
  }
  const first = contents[0]!.mime_type;
  const media_type = first && isText(first) ? first : 'text/plain';
  const text = texts.join('\n');
  const parsed = AttachmentInputSchema.safeParse({ name, media_type, text });
  if (!parsed.success) throw refusal(name, parsed.error.issues[0]?.message);
  return { name, media_type, text };
}

/** The attachment schema's complaint as a sentence that names the resource. */
function refusal(name: string, message: string | undefined): AppError {
  const why = message ?? 'cannot be attached';
  return new AppError(
    'INVALID_INPUT',
    why.startsWith(`${name}`) ? why : `${name} ${why.startsWith('is ') ? why : `: ${why}`}`,
  );
}
