/**
 * A small Markdown parser for model replies, which are untrusted: it produces a tree that
 * `Markdown.tsx` renders as React elements (never HTML strings), and links only to http(s)
 * and mailto. Covers what chat replies use: paragraphs, headings, fenced code (an unclosed
 * fence while streaming still renders as code), lists, quotes, rules, bold, italic, inline
 * code and links.
 */

/** Inline content. */
export type Inline =
  | { t: 'text'; v: string }
  | { t: 'code'; v: string }
  | { t: 'strong'; c: Inline[] }
  | { t: 'em'; c: Inline[] }
  | { t: 'link'; href: string; c: Inline[] }
  | { t: 'br' };

/** Block content. */
export type Block =
  | { t: 'p'; c: Inline[] }
  | { t: 'h'; level: number; c: Inline[] }
  | { t: 'code'; lang: string; v: string }
  | { t: 'list'; ordered: boolean; start: number; items: Block[][] }
  | { t: 'quote'; c: Block[] }
  | { t: 'hr' };

/** The URL when it is safe to open (http, https, mailto), else null. */
export function safeHref(url: string): string | null {
  const u = url.trim();
  return /^(https?:\/\/|mailto:)[^\s]+$/i.test(u) ? u : null;
}

const INLINE =
  /(`+)([\s\S]*?[^`])\1(?!`)|\[([^\]\n]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)|\*\*(?=\S)([\s\S]*?\S)\*\*|__(?=\S)([\s\S]*?\S)__|\*(?=[^\s*])([\s\S]*?[^\s*])\*(?!\*)|(?<![\p{L}\p{N}_])_(?=[^\s_])([\s\S]*?[^\s_])_(?![\p{L}\p{N}_])|(https?:\/\/[^\s<>()]+[^\s<>().,:;!?"'\]])|\n/gu;

/** Parse inline Markdown. */
export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  const push = (v: string) => {
    if (!v) return;
    const last = out.at(-1);
    if (last?.t === 'text') last.v += v;
    else out.push({ t: 'text', v });
  };
  let at = 0;
  for (const m of text.matchAll(INLINE)) {
    push(text.slice(at, m.index));
    at = m.index + m[0].length;
    if (m[1] !== undefined) out.push({ t: 'code', v: m[2]!.replace(/^ (.*) $/, '$1') });
    else if (m[3] !== undefined) {
      const href = safeHref(m[4]!);
      if (href) out.push({ t: 'link', href, c: parseInline(m[3]) });
      else push(m[3]);
    } else if (m[5] !== undefined || m[6] !== undefined)
      out.push({ t: 'strong', c: parseInline(m[5] ?? m[6]!) });
    else if (m[7] !== undefined || m[8] !== undefined) out.push({ t: 'em', c: parseInline(m[7] ?? m[8]!) });
    else if (m[9] !== undefined) out.push({ t: 'link', href: m[9], c: [{ t: 'text', v: m[9] }] });
    else out.push({ t: 'br' });
  }
  push(text.slice(at));
  return out;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const HR = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const BULLET = /^( {0,3})([-*+])\s+(.*)$/;
const ORDERED = /^( {0,3})(\d{1,9})[.)]\s+(.*)$/;
const QUOTE = /^ {0,3}>\s?(.*)$/;

/** Parse block Markdown. */
export function parseMarkdown(text: string): Block[] {
  return parseLines(text.replace(/\r\n?/g, '\n').split('\n'));
}

function parseLines(lines: string[]): Block[] {
  const blocks: Block[] = [];
  let i = 0;
  const isBlockStart = (l: string) =>
    FENCE.test(l) || HEADING.test(l) || HR.test(l) || BULLET.test(l) || ORDERED.test(l) || QUOTE.test(l);
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1]!;
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trimStart().startsWith(marker)) body.push(lines[i++]!);
      i++; // the closing fence (or the end while streaming)
      blocks.push({ t: 'code', lang: fence[2] ?? '', v: body.join('\n') });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({ t: 'h', level: heading[1]!.length, c: parseInline(heading[2]!) });
      i++;
      continue;
    }
    if (HR.test(line)) {
      blocks.push({ t: 'hr' });
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i]!)) body.push(QUOTE.exec(lines[i++]!)![1]!);
      blocks.push({ t: 'quote', c: parseLines(body) });
      continue;
    }
    const first = BULLET.exec(line) ?? ORDERED.exec(line);
    if (first) {
      const ordered = !BULLET.test(line);
      const itemRe = ordered ? ORDERED : BULLET;
      const items: string[][] = [];
      while (i < lines.length) {
        const l = lines[i]!;
        const m = itemRe.exec(l);
        if (m && m[1]!.length <= first[1]!.length) {
          items.push([m[3]!]);
          i++;
        } else if (l.trim() === '') {
          // A blank line ends the list unless the next line continues it.
          const next = lines[i + 1];
          if (next !== undefined && (itemRe.test(next) || /^\s{2,}\S/.test(next))) {
            items.at(-1)!.push('');
            i++;
          } else break;
        } else if (/^\s+\S/.test(l) || !isBlockStart(l)) {
          // Indented lines (nested lists, code) and lazy continuation lines belong to the item.
          items.at(-1)!.push(l.replace(/^ {1,4}/, ''));
          i++;
        } else break;
      }
      blocks.push({
        t: 'list',
        ordered,
        start: ordered ? Number(first[2]) : 1,
        items: items.map((item) => parseLines(item)),
      });
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== '' && (para.length === 0 || !isBlockStart(lines[i]!))) {
      para.push(lines[i++]!);
    }
    blocks.push({ t: 'p', c: parseInline(para.join('\n')) });
  }
  return blocks;
}
