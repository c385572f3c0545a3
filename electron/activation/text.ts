import { stemmer } from 'stemmer';

/** How many characters of a message are looked at (a pasted document says little about intent). */
export const MAX_MESSAGE_CHARS = 4000;
/** How many distinct content words of a message are used. */
export const MAX_TOKENS = 32;

// Words too common to say anything about which skill fits.
export const STOPWORDS = new Set(
  `a about above after again against all am an and any are as at be because been before being below between both but by
  can could did do does doing down during each few for from further had has have having he her here hers herself him
  himself his how i if in into is it its itself just let me more most my myself no nor not now of off on once only or
  other our ours ourselves out over own please same she should so some such than that the their theirs them themselves
  then there these they this those through to too under until up very was we were what when where which while who whom
  why will with would you your yours yourself yourselves can't don't i'm it's thanks thank hi hello hey`.split(
    /\s+/,
  ),
);

/**
 * Lower-case letters and digits without accents, split into words. Chinese, Japanese and Korean
 * text, which does not put spaces between words, becomes overlapping pairs of characters (as
 * Lucene's CJK analyzer makes them), split from any Latin, Cyrillic or other run it touches: "この
 * PDFファイルを結合して" gives "この", "pdf", "ファ", "ァイ", … Before, each unspaced run was one
 * "word", so such a request matched nothing by words, not even the "PDF" it names, and a skill
 * written in those languages could only match a request that repeated a whole run of it.
 * (Trigger phrases are compared separately, by `normalizePhrase`.)
 */
export function words(text: string): string[] {
  const lower = text.toLowerCase();
  // Plain ASCII (most text) needs no Unicode normalisation: the same words, several times faster.
  if (ASCII.test(lower)) return lower.match(/[a-z0-9]+/g) ?? [];
  let plain = lower.normalize('NFKD').replace(/\p{M}/gu, '');
  if (!CJK.test(plain)) return plain.match(/[\p{L}\p{N}]+/gu) ?? [];
  // NFKD splits Hangul syllables into jamo; put them back, so a pair is two syllables.
  if (JAMO.test(plain)) plain = plain.normalize('NFC');
  const out: string[] = [];
  for (const part of plain.match(CJK_PARTS) ?? []) {
    if (!CJK.test(part)) {
      out.push(part);
      continue;
    }
    const cs = [...part];
    if (cs.length === 1) out.push(part);
    for (let i = 0; i + 1 < cs.length; i++) out.push(cs[i]! + cs[i + 1]!);
  }
  return out;
}

const ASCII = /^[\x00-\x7f]*$/;
// Scripts written without spaces between words (Han, kana with the prolonged sound mark, Hangul).
const CJK_CLASS = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\u30fc';
const CJK = new RegExp(`[${CJK_CLASS}]`, 'u');
// A run of letters and digits of those scripts, or a run of other letters and digits.
const CJK_PARTS = new RegExp(
  `(?:(?=[${CJK_CLASS}])[\\p{L}\\p{N}])+|(?:(?![${CJK_CLASS}])[\\p{L}\\p{N}])+`,
  'gu',
);
const JAMO = /[\u1100-\u11ff]/;

const stems = new Map<string, string>();

/** The Porter stem of a lower-case word (cached; digits and short words are kept as they are). */
export function stem(word: string): string {
  let s = stems.get(word);
  if (s === undefined) {
    s = word.length <= 2 || /\d/.test(word) ? word : stemmer(word);
    if (stems.size > 200_000) stems.clear();
    stems.set(word, s);
  }
  return s;
}

/** The distinct content words of a message, in order, at most {@link MAX_TOKENS}. */
export function contentWords(message: string, extraStop?: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const w of words(message.slice(0, MAX_MESSAGE_CHARS))) {
    if (STOPWORDS.has(w) || extraStop?.has(w) || out.includes(w)) continue;
    out.push(w);
    if (out.length >= MAX_TOKENS) break;
  }
  return out;
}

/** Stems of every word of a text, stopwords included (index side: positions do not matter). */
export function stemsOf(text: string): string[] {
  return words(text).map(stem);
}

// Words of a request that say it is a request, not what it is about ("make me…", "help me
// write…"). They still count, at this fraction of their weight: a catalog where few skills use
// them would otherwise treat them as rare and decisive.
export const GENERIC_WEIGHT = 0.3;
export const GENERIC_WORDS = new Set(
  `make makes making made create creates creating created build builds building help helps need needs want wants
  like would could get gets give show tell use using used do does try find put take set turn work works working
  new good nice better best great something anything thing things way ways stuff lot lots really also just
  able sure maybe possible quick quickly simple simply some every one two three four five six seven eight nine ten
  first second third`.split(/\s+/),
);
