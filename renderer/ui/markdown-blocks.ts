/**
 * Splitting a Markdown text into top-level blocks so a streamed reply re-renders only its last
 * block: every earlier block is a stable string, memoised by the component that renders it.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const MATH_FENCE = /^ {0,3}\$\$/;
/** A line that continues the block above it even after a blank line (list items, indented text). */
const CONTINUES = /^(?:\s|[-*+] |\d{1,9}[.)] )/;
/** Constructs that refer across blocks (reference links, footnotes): such a text stays whole. */
const CROSS_BLOCK = /^ {0,3}\[[^\]]+\]:|\[\^[^\]]+\]/m;

/**
 * The text cut at blank lines that end a block: never inside a fenced code or math block, never
 * between a list and its next item or an indented continuation. Joining the parts with "\n\n"
 * gives back text that renders the same; a text with reference links or footnotes is one part.
 */
export function splitBlocks(text: string): string[] {
  if (CROSS_BLOCK.test(text)) return [text];
  const lines = text.split('\n');
  const blocks: string[] = [];
  let current: string[] = [];
  let fence: string | null = null;
  let inMath = false;
  let blankBefore = false;
  const flush = () => {
    while (current.length > 0 && current[current.length - 1]!.trim() === '') current.pop();
    if (current.length > 0) blocks.push(current.join('\n'));
    current = [];
  };
  for (const line of lines) {
    if (fence !== null) {
      current.push(line);
      const m = FENCE.exec(line);
      if (m && m[1]![0] === fence[0] && m[1]!.length >= fence.length && line.trim() === m[1]) fence = null;
      continue;
    }
    if (inMath) {
      current.push(line);
      if (MATH_FENCE.test(line)) inMath = false;
      continue;
    }
    if (line.trim() === '') {
      blankBefore = current.length > 0;
      if (current.length > 0) current.push(line);
      continue;
    }
    if (blankBefore && !CONTINUES.test(line)) flush();
    blankBefore = false;
    const f = FENCE.exec(line);
    if (f) fence = f[1]!;
    // "$$ x $$" on one line opens and closes; a lone "$$" opens a display block.
    else if (MATH_FENCE.test(line)) inMath = !line.trim().slice(2).includes('$$');
    current.push(line);
  }
  flush();
  return blocks;
}
