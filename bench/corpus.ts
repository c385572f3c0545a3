import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Real English for realistic benchmark text: sentences from the READMEs of the installed npm
 * packages (hundreds of authors, natural Zipf-like word frequencies), with code and markup removed.
 */
export function englishSentences(root: string, max = 60_000): string[] {
  const files: string[] = [];
  const nm = join(root, 'node_modules');
  const visit = (dir: string, depth: number) => {
    for (const name of readdirSync(dir)) {
      const abs = join(dir, name);
      if (/^readme\.md$/i.test(name)) files.push(abs);
      else if (depth < 2 && statSync(abs).isDirectory() && !name.startsWith('.')) visit(abs, depth + 1);
    }
  };
  visit(nm, 0);
  const out: string[] = [];
  for (const f of files.sort()) {
    const text = readFileSync(f, 'utf8')
      .replace(/```[\s\S]*?```/g, ' ')
      .replace(/`[^`]*`/g, ' ')
      .replace(/<[^>]+>/g, ' ')
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/https?:\/\/\S+/g, ' ')
      .replace(/[#>*_|=-]{2,}/g, ' ');
    for (const s of text.split(/(?<=[.!?])\s+|\n\s*\n/)) {
      const clean = s.replace(/\s+/g, ' ').trim();
      const words = clean.split(' ').filter((w) => /^[A-Za-z][A-Za-z'-]*[.,;:!?]?$/.test(w));
      if (words.length >= 6 && words.length <= 40 && words.length / clean.split(' ').length > 0.8)
        out.push(clean);
      if (out.length >= max) return out;
    }
  }
  return out;
}

/** A deterministic pseudo-random generator (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
