/**
 * A chat's title from its first exchange, written by the chat's own model: one short call after the
 * first reply, in the background. Small on purpose (a few dozen output tokens, the exchange cut
 * short) so it costs next to nothing, and cancellable: renaming or deleting the chat stops it.
 */
import type { Llm } from '../llm/index.js';

/** Longest title kept (the sidebar shows about this much). */
export const MAX_AUTO_TITLE_CHARS = 60;
/** Output tokens a title may use: enough for a few words in any language. */
export const AUTO_TITLE_MAX_TOKENS = 24;
// Only the start of each message is sent: a title needs the topic, not the whole text.
const EXCERPT_CHARS = 1200;

const SYSTEM =
  'You name chat conversations. Reply with a title of 2 to 6 words in the language of the ' +
  'conversation, naming its topic. No quotes, no trailing period, nothing else.';

/**
 * The model's answer as a title: its first line, without a "Title:" prefix, quotes, Markdown marks
 * or a trailing period; null when nothing usable is left.
 */
export function cleanTitle(text: string): string | null {
  const line =
    text
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? '';
  let t = line
    .replace(/^(title|chat title)\s*:\s*/i, '')
    .replace(/^[#*_`>\s-]+|[*_`]+$/g, '')
    .replace(/[.。]+$/, '')
    .replace(/^["'“”‘’«»]+|["'“”‘’«»]+$/g, '')
    .replace(/[.。]+$/, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (t.length > MAX_AUTO_TITLE_CHARS) {
    const cut = t.slice(0, MAX_AUTO_TITLE_CHARS);
    const space = cut.lastIndexOf(' ');
    t = `${(space > 20 ? cut.slice(0, space) : cut).trimEnd()}…`;
  }
  return t || null;
}

/** Ask `llm` for a title of the exchange; null when it gave nothing usable. Throws on abort or failure. */
export async function generateTitle(
  llm: Llm,
  exchange: { user: string; reply: string },
  signal: AbortSignal,
): Promise<string | null> {
  const r = await llm.generate({
    system: SYSTEM,
    messages: [
      {
        role: 'user',
        content: `User: ${exchange.user.slice(0, EXCERPT_CHARS)}\n\nAssistant: ${exchange.reply.slice(0, EXCERPT_CHARS)}\n\nTitle:`,
      },
    ],
    maxOutputTokens: AUTO_TITLE_MAX_TOKENS,
    timeoutMs: 30_000,
    signal,
  });
  return cleanTitle(r.text);
}
