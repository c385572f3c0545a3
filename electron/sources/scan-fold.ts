/**
 * What the scan's rules read: a skill's text as Python and a model read it, not as its bytes
 * spell it. A rule written as `exec(` or "ignore previous instructions" must also see `ｅｘｅｃ(`
 * (Python folds identifiers with NFKC), "іgnоrе" with Cyrillic letters (a model reads it as the
 * English word), a word broken by a zero-width space, and a payload cut into string pieces. Each
 * view keeps, for every one of its characters, where it came from, so a finding still points at
 * (and quotes) what is really in the file.
 */
import { createRequire } from 'node:module';

/** A text as the rules read it, with the index in the original of each of its UTF-16 units. */
export interface FoldedText {
  text: string;
  /** `origin[i]` is the index in the original text of the character `text[i]` came from. */
  origin: Int32Array;
}

// Invisible characters: every format character (bidi controls and marks, zero-width characters,
// soft hyphen, tags, interlinear annotations, …) and every other default-ignorable code point
// (Hangul fillers, variation selectors, the combining grapheme joiner), all of which a renderer
// draws as nothing while a model still reads them.
const HIDDEN_SOURCE = '[\\p{Cf}\\p{Default_Ignorable_Code_Point}]';
const HIDDEN_ONE = new RegExp(`^${HIDDEN_SOURCE}$`, 'u');
const HIDDEN_ALL = new RegExp(HIDDEN_SOURCE, 'gu');
const PICTOGRAPH = /\p{Extended_Pictographic}|\p{Emoji_Modifier}|\p{Regional_Indicator}/u;
const IDEOGRAPH = /\p{Ideographic}/u;
const MARK = /\p{M}/u;
const UPPER = /\p{Lu}/u;

/** Whether `c` is invisible: a format or default-ignorable character. */
export function isHiddenChar(c: string): boolean {
  return HIDDEN_ONE.test(c);
}

/**
 * Where the first invisible character of `text` that hides something is, or -1. Emoji need some
 * of them to draw at all (a variation selector after a pictograph, a zero-width joiner between two,
 * an ideographic variation selector after a CJK ideograph), and a byte-order mark opens many
 * files: those are not counted.
 */
export function firstHidden(text: string): number {
  HIDDEN_ALL.lastIndex = 0;
  for (let m = HIDDEN_ALL.exec(text); m; m = HIDDEN_ALL.exec(text)) {
    const i = m.index;
    const c = m[0];
    const cp = c.codePointAt(0)!;
    if (cp === 0xfeff && i === 0) continue;
    const before = previousBase(text, i);
    if ((cp === 0xfe0e || cp === 0xfe0f) && before && PICTOGRAPH.test(before)) continue;
    if (cp >= 0xe0100 && cp <= 0xe01ef && before && IDEOGRAPH.test(before)) continue;
    if (cp === 0x200d && before && PICTOGRAPH.test(before)) {
      const after = String.fromCodePoint(text.codePointAt(i + 1) ?? 0x20);
      if (PICTOGRAPH.test(after)) continue;
    }
    return i;
  }
  return -1;
}

/** The character before index `i`, skipping the variation selectors and modifiers of an emoji. */
function previousBase(text: string, i: number): string | undefined {
  let j = i;
  while (j > 0) {
    const lo = text.charCodeAt(j - 1);
    const start = lo >= 0xdc00 && lo <= 0xdfff && j >= 2 ? j - 2 : j - 1;
    const c = String.fromCodePoint(text.codePointAt(start)!);
    const cp = c.codePointAt(0)!;
    if (cp === 0xfe0f || cp === 0xfe0e || /\p{Emoji_Modifier}/u.test(c)) {
      j = start;
      continue;
    }
    return c;
  }
  return undefined;
}

/** Invisible and bidi characters written as `<U+XXXX>`, so a report shows what is there. */
export function showInvisible(s: string): string {
  return s.replace(HIDDEN_ALL, (c) => `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`);
}

// Unicode's confusables.txt (UTS #39), as the `unhomoglyph` package ships it: each code point
// that looks like another, mapped to its prototype (the skeleton's letter). Loaded on first use.
let confusables: Map<string, string> | null = null;
function prototypeOf(c: string): string | undefined {
  if (!confusables) {
    const data = createRequire(import.meta.url)('unhomoglyph/data.json') as Record<string, string>;
    confusables = new Map(Object.entries(data));
  }
  return confusables.get(c);
}

/**
 * What a reader takes a non-ASCII character (already NFKC-folded, marks removed) to be.
 * The skeleton merges a few ASCII letters with each other ('I', 'l', '1' and '|' all become 'l';
 * 'm' becomes 'rn'); the rules are ASCII patterns that tell those apart, so the merge is undone the
 * way a reader would: an upper-case letter that looks like 'l' is an 'I', and what looks like
 * 'rn' is an 'm'.
 */
function skeletonChar(c: string): string {
  const p = prototypeOf(c);
  if (p === undefined) return c;
  if (p === 'l' && UPPER.test(c)) return 'I';
  if (p === 'rn') return 'm';
  return p;
}

/**
 * Fold `text` the way the rules read it: invisible characters dropped (reported on their own),
 * each character NFKC-normalised (as Python normalises identifiers, so `ｅｘｅｃ` is `exec`),
 * combining marks removed, and each non-ASCII character replaced by its confusables prototype
 * (so Cyrillic `а` reads as `a`). ASCII stays as written: it is what the rules are written in.
 */
export function foldText(text: string): FoldedText {
  const out: string[] = [];
  const origin = new Origins(text.length);
  const NON_ASCII = /[^\x00-\x7f]/gu;
  let last = 0;
  for (let m = NON_ASCII.exec(text); m; m = NON_ASCII.exec(text)) {
    // ASCII between two non-ASCII characters is copied as it stands.
    out.push(text.slice(last, m.index));
    for (let k = last; k < m.index; k++) origin.push(k);
    const folded = foldChar(m[0]);
    out.push(folded);
    for (let k = 0; k < folded.length; k++) origin.push(m.index);
    last = m.index + m[0].length;
  }
  out.push(text.slice(last));
  for (let k = last; k < text.length; k++) origin.push(k);
  return { text: out.join(''), origin: origin.done() };
}

/** A growing list of indices (a fold can lengthen a text: `ﬁ` is two letters). */
class Origins {
  private a: Int32Array;
  private n = 0;
  constructor(capacity: number) {
    this.a = new Int32Array(Math.max(16, capacity));
  }
  push(i: number): void {
    if (this.n === this.a.length) {
      const b = new Int32Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = i;
  }
  done(): Int32Array {
    return this.a.subarray(0, this.n);
  }
}

const foldCache = new Map<string, string>();
/** One non-ASCII character as the rules read it (see {@link foldText}). */
function foldChar(c: string): string {
  let r = foldCache.get(c);
  if (r !== undefined) return r;
  r = '';
  if (!isHiddenChar(c)) {
    for (const n of c.normalize('NFKC').normalize('NFD')) {
      if (n.charCodeAt(0) < 0x80) r += n;
      else if (!MARK.test(n) && !isHiddenChar(n)) r += skeletonChar(n);
    }
  }
  foldCache.set(c, r);
  return r;
}

// Between two pieces of one string: the close of a literal, what may join it to the next
// (whitespace and line breaks, `+`, a backslash line continuation, a comment of any of the usual
// forms) and the opening of the next literal with the same quote (with an optional Python string
// prefix). Python joins adjacent literals, inside parentheses across lines; JavaScript joins with
// `+`.
const LITERAL_JOIN =
  /(['"`])(?:\s|\+|\\\r?\n|#[^\n]*\n|\/\/[^\n]*\n|\/\*[\s\S]*?\*\/)*(?:\s|\+|\\\r?\n)[bBrRuUfF]{0,2}\1|(['"`])[bBrRuUfF]{0,2}\2/g;
// A line that ends inside a run of base64 or hex and a next line that goes on with one, even after
// a comment marker or a quote: a payload cut into lines (in a comment, a here-document or a
// triple-quoted string).
const LINE_JOIN =
  /(?=['"`\t \\,+\r\n])(?<=[A-Za-z0-9+/=]{16})['"`]?[ \t]*[\\,+]?[ \t]*\r?\n[ \t]*(?:#+|\/\/|\*|--|;|['"`])?[ \t]*(?=[A-Za-z0-9+/]{4})/g;

/** `f` with the characters matched by `re` removed, the origins kept for what remains. */
function removeMatches(f: FoldedText, re: RegExp, keep: (m: RegExpExecArray) => string): FoldedText {
  const parts: string[] = [];
  const origin = new Origins(f.text.length);
  let changed = false;
  let last = 0;
  re.lastIndex = 0;
  for (let m = re.exec(f.text); m; m = re.exec(f.text)) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    parts.push(f.text.slice(last, m.index));
    for (let k = last; k < m.index; k++) origin.push(f.origin[k]!);
    const kept = keep(m);
    if (kept !== m[0]) changed = true;
    parts.push(kept);
    for (let k = 0; k < kept.length; k++) origin.push(f.origin[m.index]!);
    last = m.index + m[0].length;
  }
  if (!changed) return f;
  parts.push(f.text.slice(last));
  for (let k = last; k < f.text.length; k++) origin.push(f.origin[k]!);
  return { text: parts.join(''), origin: origin.done() };
}

/**
 * The folded text with the pieces of split strings put back together: adjacent string literals
 * joined (`'ab' 'cd'`, `"ab" + "cd"`, pieces on several lines, with comments between) and runs of
 * base64 or hex that go on from one line to the next joined, so a payload or a name built from
 * pieces (`"ev" + "al"`) reads whole. The same object when nothing was joined.
 */
export function joinPieces(f: FoldedText): FoldedText {
  // An empty literal ('' or "") is left alone: it is a value, not a seam between pieces.
  const joined = removeMatches(f, LITERAL_JOIN, (m) => (m[2] ? m[0] : ''));
  return removeMatches(joined, LINE_JOIN, () => '');
}

/** Bits per character of `s`: random base64 is near 6, English words about 4. */
export function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

// Scripts whose letters are mistaken for Latin ones (and for each other); a word that mixes them
// with a letter that passes for another script's is written to be misread.
const SCRIPTS: Array<[string, RegExp]> = [
  ['Latin', /\p{Script=Latin}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Greek', /\p{Script=Greek}/u],
  ['Armenian', /\p{Script=Armenian}/u],
  ['Cherokee', /\p{Script=Cherokee}/u],
  ['Coptic', /\p{Script=Coptic}/u],
  ['Georgian', /\p{Script=Georgian}/u],
  ['Lisu', /\p{Script=Lisu}/u],
  ['Canadian Aboriginal', /\p{Script=Canadian_Aboriginal}/u],
  ['Tifinagh', /\p{Script=Tifinagh}/u],
];

/** A word that mixes scripts with look-alike letters. */
export interface MixedWord {
  index: number;
  word: string;
  scripts: string[];
  /** The letters not of the word's main script that read as ASCII, with their code points. */
  disguised: string[];
}

/**
 * The first word of `text` that mixes letters of two scripts where a letter of one passes for a
 * Latin letter (Latin `p` with Cyrillic `а`), as UTS #39's mixed-script confusables. Words whose
 * other letters look like nothing Latin (`μs`, a Greek mu before a Latin s) are not counted.
 */
export function firstMixedScriptWord(text: string): MixedWord | null {
  const NON_ASCII_LETTER = /[^\x00-\x7f]/gu;
  const LETTER = /[\p{L}\p{M}]/u;
  const checked = new Set<string>();
  for (let m = NON_ASCII_LETTER.exec(text); m; m = NON_ASCII_LETTER.exec(text)) {
    if (!LETTER.test(m[0])) continue;
    // The whole word around the first non-ASCII letter: a word is checked once, however often
    // it occurs.
    let start = m.index;
    while (start > 0 && LETTER.test(charBefore(text, start))) start -= charBefore(text, start).length;
    let end = m.index;
    while (end < text.length && LETTER.test(String.fromCodePoint(text.codePointAt(end)!)))
      end += String.fromCodePoint(text.codePointAt(end)!).length;
    NON_ASCII_LETTER.lastIndex = end;
    const word = text.slice(start, end);
    if (checked.has(word)) continue;
    checked.add(word);
    const found = mixedScripts(word);
    if (found) return { index: start, word, ...found };
  }
  return null;
}

function charBefore(text: string, i: number): string {
  const lo = text.charCodeAt(i - 1);
  return lo >= 0xdc00 && lo <= 0xdfff && i >= 2 ? text.slice(i - 2, i) : text.slice(i - 1, i);
}

const scriptCache = new Map<string, string | null>();
function scriptOf(c: string): string | null {
  let s = scriptCache.get(c);
  if (s === undefined) {
    s = SCRIPTS.find(([, re]) => re.test(c))?.[0] ?? null;
    scriptCache.set(c, s);
  }
  return s;
}

/** The scripts of `word` and its disguised letters, when it mixes look-alikes; else null. */
function mixedScripts(word: string): Pick<MixedWord, 'scripts' | 'disguised'> | null {
  const byScript = new Map<string, string[]>();
  for (const c of word.normalize('NFKC')) {
    const s = scriptOf(c);
    if (s) byScript.set(s, [...(byScript.get(s) ?? []), c]);
  }
  if (byScript.size < 2) return null;
  const disguised: string[] = [];
  for (const [script, letters] of byScript) {
    if (script === 'Latin') continue;
    for (const c of letters) {
      const base = c.normalize('NFD').replace(/\p{M}/gu, '');
      if (/^[A-Za-z]+$/.test(skeletonChar(base)) && !disguised.some((d) => d.startsWith(c)))
        disguised.push(`${c} U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} ${script}`);
    }
  }
  if (disguised.length === 0) return null;
  return { scripts: SCRIPTS.map(([s]) => s).filter((s) => byScript.has(s)), disguised };
}
