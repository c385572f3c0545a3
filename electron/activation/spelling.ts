import type { SkillIndex } from './skill-index.js';
import { STOPWORDS } from './text.js';

// Words shorter than this are not corrected: too many real words lie one edit apart.
const MIN_LENGTH = 5;
const MAX_CORRECTIONS = 2;

interface Deletes {
  generation: number;
  /** A word with one letter removed (or the word itself) → the vocabulary words it comes from. */
  map: Map<string, string[]>;
}

const cache = new WeakMap<SkillIndex, Deletes>();

function variants(w: string): string[] {
  const out = [w];
  for (let i = 0; i < w.length; i++) out.push(w.slice(0, i) + w.slice(i + 1));
  return out;
}

// Built on the first misspelt word after a change (the symmetric-delete method: two words one
// insertion, deletion, substitution or transposition apart share a one-letter deletion).
function deletesOf(index: SkillIndex): Map<string, string[]> {
  const had = cache.get(index);
  if (had && had.generation === index.generation) return had.map;
  const map = new Map<string, string[]>();
  for (const w of index.surface.keys()) {
    if (w.length < MIN_LENGTH - 1 || /\d/.test(w)) continue;
    for (const v of variants(w)) {
      const l = map.get(v);
      if (!l) map.set(v, [w]);
      else if (!l.includes(w)) l.push(w);
    }
  }
  cache.set(index, { generation: index.generation, map });
  return map;
}

/**
 * Likely intended words for one that no skill contains ("powerpiont" → "powerpoint"): words of
 * the indexes one edit away, the most widely used first (ties by spelling), at most two.
 */
export function corrections(word: string, indexes: SkillIndex[]): string[] {
  if (word.length < MIN_LENGTH || /\d/.test(word) || STOPWORDS.has(word)) return [];
  const uses = new Map<string, number>();
  for (const index of indexes) {
    const map = deletesOf(index);
    for (const v of variants(word)) {
      for (const c of map.get(v) ?? []) {
        if (c === word || Math.abs(c.length - word.length) > 1) continue;
        uses.set(c, (uses.get(c) ?? 0) + (index.surface.get(c) ?? 0));
      }
    }
  }
  return [...uses.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_CORRECTIONS)
    .map(([c]) => c);
}
