import { deletions, type SkillIndex } from './skill-index.js';
import { STOPWORDS } from './text.js';

// Words shorter than this are not corrected: too many real words lie one edit apart.
const MIN_LENGTH = 4;
const MAX_CORRECTIONS = 2;

/**
 * Likely intended words for one that no skill contains ("powerpiont" → "powerpoint"): words of
 * the indexes one edit away, the most widely used first (ties by spelling), at most two.
 */
export function corrections(word: string, indexes: SkillIndex[]): string[] {
  if (word.length < MIN_LENGTH || /\d/.test(word) || STOPWORDS.has(word)) return [];
  const uses = new Map<string, number>();
  for (const index of indexes) {
    for (const v of deletions(word)) {
      for (const c of index.deletes.get(v) ?? []) {
        if (c === word || !plausibleTypo(word, c)) continue;
        uses.set(c, (uses.get(c) ?? 0) + (index.surface.get(c) ?? 0));
      }
    }
  }
  return [...uses.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_CORRECTIONS)
    .map(([c]) => c);
}

const ROWS = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm'];
const KEY = new Map<string, [number, number]>();
ROWS.forEach((row, r) => {
  for (let c = 0; c < row.length; c++) KEY.set(row[c]!, [r, c + r * 0.5]);
});

/** Two letters on neighbouring keys of a QWERTY keyboard. */
function adjacent(a: string, b: string): boolean {
  const x = KEY.get(a);
  const y = KEY.get(b);
  return !!x && !!y && Math.abs(x[0] - y[0]) <= 1 && Math.abs(x[1] - y[1]) <= 1;
}

/**
 * Whether `typed` is one slip away from `word`: a letter left out or doubled, two neighbours
 * swapped, or a letter replaced by one on a neighbouring key. A replacement by a distant key is
 * more often another real word ("protect" is not a misspelt "project").
 */
export function plausibleTypo(typed: string, word: string): boolean {
  if (Math.abs(typed.length - word.length) === 1) {
    const [long, short] = typed.length > word.length ? [typed, word] : [word, typed];
    for (let i = 0; i < long.length; i++) if (long.slice(0, i) + long.slice(i + 1) === short) return true;
    return false;
  }
  if (typed.length !== word.length) return false;
  const diff: number[] = [];
  for (let i = 0; i < typed.length; i++) if (typed[i] !== word[i]) diff.push(i);
  if (diff.length === 1) return adjacent(typed[diff[0]!]!, word[diff[0]!]!);
  return (
    diff.length === 2 &&
    diff[1] === diff[0]! + 1 &&
    typed[diff[0]!] === word[diff[1]!] &&
    typed[diff[1]!] === word[diff[0]!]
  );
}
