import type { SkillCatalog } from '../skills/index.js';
import type { Scope } from '../store/index.js';
import { normalizePhrase, skillNameKey } from '../store/index.js';
import { SemanticSpace } from './semantic.js';
import { INDEX_FIELDS, type IndexField, lowerBound, type SkillIndex, skillIndex } from './skill-index.js';
import { corrections } from './spelling.js';
import { expandSynonyms } from './synonyms.js';
import { contentWords, GENERIC_WEIGHT, GENERIC_WORDS, MAX_MESSAGE_CHARS, stem, words } from './text.js';

/**
 * Which field of a skill a message matched. `exact_trigger`: a trigger phrase occurs verbatim.
 * (`when` counts as `description`; matches in the instructions show in {@link explainMatch}.)
 * `meaning`: no field shares a word with the message; the semantic recall stage found the skill.
 */
export type MatchField =
  | 'exact_trigger'
  | 'name'
  | 'description'
  | 'tags'
  | 'intent_patterns'
  | 'trigger_phrases'
  | 'meaning';

/** One ranked skill for a message. */
export interface SkillMatch {
  name: string;
  scope: Scope;
  /** Relevance: [0, 1) from BM25, [1, 2) when a trigger phrase occurs verbatim. Higher ranks first. */
  score: number;
  matched_on: MatchField[];
}

/** Where a query term came from: the message, a synonym of one of its words, or a spelling fix. */
export type TermSource = 'message' | 'synonym' | 'spelling';

/** One term of the query phase 1 ran for a message. */
export interface QueryTerm {
  /** The stem looked up. */
  term: string;
  source: TermSource;
  /** The message's word (or, for a synonym, its stem or stem pair) this term stands for. */
  from: string;
  /** Multiplier on the term's BM25 contribution (1 for the message's own words). */
  weight: number;
  /** Skills containing it, over both stores. */
  df: number;
}

/** Why one candidate scored as it did. */
export interface CandidateExplanation {
  name: string;
  scope: Scope;
  rank: number;
  score: number;
  /** The BM25F sum before squashing into [0, 1). */
  bm25: number;
  /** Cosine similarity of the message's and the skill's static embeddings (null without one). */
  semantic: number | null;
  /** The trigger phrase found verbatim in the message, if any. */
  exact_trigger: string | null;
  /** Matched stems per indexed field (`instructions` is the skill's body). */
  fields: Partial<Record<IndexField, string[]>>;
}

/** Why a named skill was or was not among the matches. */
export interface SkillVerdict {
  name: string;
  scope: Scope | null;
  /** 1-based rank among every skill with any overlap; null when it has none. */
  rank: number | null;
  score: number | null;
  /**
   * `matched`: within the limit; `lower_score`: ranked below `above` others; `no_term_overlap`:
   * shares no term (nor synonym) with the message; `overridden`: an account skill hidden by the
   * workspace skill of the same name; `not_found`: no such skill.
   */
  reason: 'matched' | 'lower_score' | 'no_term_overlap' | 'overridden' | 'not_found';
  /** How many skills ranked above it. */
  above: number | null;
}

/** The full account of a phase-1 match. */
export interface MatchExplanation {
  matches: SkillMatch[];
  query_terms: QueryTerm[];
  candidates: CandidateExplanation[];
  skill?: SkillVerdict;
}

/** Options of {@link matchSkills}. */
export interface MatchOptions {
  limit?: number;
  /** false: rank lexically alone, as where no embedding ships (to measure what fusion adds). */
  semantic?: boolean;
  /** Fusion parameters other than the shipped ones (for the retrieval harness's tuning runs). */
  fusion?: Partial<Fusion>;
}

/** How the lexical and semantic rankings are fused (see {@link FUSION}). */
export interface Fusion {
  /** The lexical candidates fused: the best `max(limit, lexicalPool)`. */
  lexicalPool: number;
  /** The semantic candidates fused: the `semanticK` nearest skills of the whole catalog. */
  semanticK: number;
  weight: number;
  floor: number;
  /**
   * The least cosine at which a skill sharing no word with the message is a match at all: below
   * it, messages that ask for no skill ("thanks, that is great") would match something by meaning.
   */
  meaningMin: number;
}

const MAX_NGRAM = 12;
const K1 = 1.2;
/** A misspelt word's correction counts this much. */
const SPELLING_WEIGHT = 0.8;
/** How much a skill gains when the message names all of it (scaled by the share squared). */
const NAME_BOOST = 0.5;
/**
 * Hybrid ranking: the best lexical candidates and the skills nearest the message by meaning over
 * the whole catalog (the semantic recall stage, {@link SemanticSpace}) are ranked together by
 * `(lexical + weight · max(0, cosine − floor)) / (1 + weight · (1 − floor))`, lexical being
 * BM25F squashed into [0, 1) (computed exactly for a skill meaning alone brought in, zero when it
 * shares no word with the message) and cosine that of the catalog-centred embeddings. A trigger
 * phrase found verbatim still ranks first. Chosen on the harness's tuning split only, at 1,000
 * and 10,000 skills (weight 0.01–0.25, floor 0–0.3, lexical pool 5–30; reciprocal-rank fusion
 * with k 1–10 did no better): the largest MRR with no lexical top-5 match lost at either size
 * (MRR 0.768 → 0.777 at 1k, 0.769 → 0.780 at 10k, recall@5 unchanged; weight 0.04 gained more
 * at 10k but lost two lexical matches at 1k). The static embedding alone puts the target in its
 * top 5 for only a third of requests, so meaning decides between close lexical calls (a lexical
 * top-5 skill gives way only to one whose lexical score is within `weight · (1 − floor)`, 0.014,
 * of its own) and fills the places words leave empty; it does not outvote a clear lexical match.
 */
const FUSION: Fusion = { lexicalPool: 5, semanticK: 20, weight: 0.02, floor: 0.3, meaningMin: 0.45 };

/** The distinct content words of a message as quoted FTS5 terms (at most 32). */
export function queryTerms(message: string): string[] {
  return contentWords(message).map((w) => `"${w}"`);
}

/** The FTS5 query for a message: its distinct content words, quoted, OR-ed. Empty when none. */
export function buildFtsQuery(message: string): string {
  return queryTerms(message).join(' OR ');
}

/** Every run of 1..12 consecutive normalised words of the message (candidate trigger phrases). */
function ngrams(message: string): string[] {
  const ws = normalizePhrase(message.slice(0, MAX_MESSAGE_CHARS)).split(' ').filter(Boolean);
  const out = new Set<string>();
  for (let i = 0; i < ws.length; i++) {
    let phrase = '';
    for (let n = 0; n < MAX_NGRAM && i + n < ws.length; n++) {
      phrase = n === 0 ? ws[i]! : `${phrase} ${ws[i + n]}`;
      out.add(phrase);
    }
  }
  return [...out];
}

interface Part {
  scope: Scope;
  index: SkillIndex;
  /** Skip this slot (an account skill hidden by the workspace). */
  hidden: (slot: number) => boolean;
}

interface Scored {
  part: Part;
  slot: number;
  name: string;
  scope: Scope;
  bm25: number;
  exactWords: number;
  exactPhrase: string | null;
  /** Cosine of the embeddings, once re-ranked (null: no embedding). */
  semantic: number | null;
  /** The fused relevance in [0, 1): lexical alone until re-ranked. */
  fused: number;
}

/** The query for a message: its stems, their synonyms and spelling fixes, with weights and dfs. */
function buildQuery(message: string, parts: Part[]): QueryTerm[] {
  const known = (s: string) => parts.some((p) => p.index.postings.has(s));
  const dfSkills = (s: string) => parts.reduce((a, p) => a + (p.index.df.get(s) ?? 0), 0);
  const terms = new Map<string, QueryTerm>();
  const add = (term: string, source: TermSource, from: string, weight: number) => {
    const had = terms.get(term);
    if (had && had.weight >= weight) return;
    terms.set(term, { term, source, from, weight, df: 0 });
  };
  const content = contentWords(message);
  const fixes = new Map<string, string>();
  for (const w of content) {
    const s = stem(w);
    const weight = GENERIC_WORDS.has(w) ? GENERIC_WEIGHT : 1;
    if (known(s)) add(s, 'message', w, weight);
    else {
      // Unknown to every skill: perhaps misspelt.
      const fixed = corrections(
        w,
        parts.map((p) => p.index),
      );
      for (const c of fixed) add(stem(c), 'spelling', w, SPELLING_WEIGHT);
      if (fixed[0]) fixes.set(w, fixed[0]);
      add(s, 'message', w, weight);
    }
  }
  const own = new Set(content.map(stem));
  // Synonyms of the message's words, as corrected ("wrod document" is a Word document).
  const all = words(message.slice(0, MAX_MESSAGE_CHARS)).map((w) => stem(fixes.get(w) ?? w));
  const weightOf = (s: string) => terms.get(s)?.weight ?? 1;
  for (const x of expandSynonyms(all, own, weightOf)) add(x.stem, 'synonym', x.from, x.weight);
  const out: QueryTerm[] = [];
  for (const t of terms.values()) {
    t.df = dfSkills(t.term);
    if (t.df > 0) out.push(t);
  }
  return out;
}

/**
 * Bring both stores' in-memory indexes up to date (a process's first call builds them). A match
 * does this itself; calling it first lets a caller time the two apart.
 */
export function syncSkillIndexes(catalog: SkillCatalog): void {
  for (const store of catalog.stores()) skillIndex(store.db);
  // A process's first matches run the matcher's code unoptimised; run a few here, with the
  // index's build, so the caller's first match is not timed through the interpreter.
  if (!primed) {
    primed = true;
    for (let i = 0; i < 4; i++) for (const m of PRIMING) matchSkills(catalog, m);
  }
}

let primed = false;
const PRIMING = [
  'prime the matcher: extract text from slides, spreadsheets and pdfs',
  'write a short update for the team about the new release',
  'test the login page of my web app and fix the failing button',
  'design a poster with bold colours and nice fonts',
];

function parts(catalog: SkillCatalog): Part[] {
  const ws = catalog.workspace ? skillIndex(catalog.workspace.db) : null;
  const out: Part[] = [];
  if (ws && catalog.workspace) out.push({ scope: 'workspace', index: ws, hidden: () => false });
  const acc = skillIndex(catalog.account.db);
  out.push({
    scope: 'account',
    index: acc,
    hidden: ws ? (slot) => ws.byKey.has(acc.docs[slot]!.key) : () => false,
  });
  return out;
}

interface PartScores {
  part: Part;
  /** BM25F per slot (valid for `touched` slots). */
  acc: Float64Array;
  touched: number[];
  /** Slot → the longest trigger phrase of that skill found verbatim in the message. */
  exact: Map<number, string>;
  /** The query's terms with their idf, as scored. */
  weighted: WeightedTerm[];
}

interface WeightedTerm {
  t: QueryTerm;
  idf: number;
  ub: number;
}

const buffers = new WeakMap<SkillIndex, { acc: Float64Array; pt: Float64Array; named: Float64Array }>();

function buffersOf(index: SkillIndex) {
  let b = buffers.get(index);
  if (!b || b.acc.length < index.docs.length) {
    const n = Math.max(16, index.docs.length * 2);
    b = { acc: new Float64Array(n), pt: new Float64Array(n), named: new Float64Array(n) };
    buffers.set(index, b);
  }
  return b;
}

/**
 * Score every skill sharing a term with the query (BM25F with both stores' statistics). The
 * per-slot sums live in reusable buffers; call {@link release} once the ranking is read.
 */
function scoreAll(ps: Part[], terms: QueryTerm[], grams: string[], k: number): PartScores[] {
  const n = ps.reduce((a, p) => a + p.index.live, 0);
  // Rarest (most informative) terms first; `ub` bounds what a term can add to any score, the
  // name boost included, since BM25's saturation keeps (k1 + 1)·x / (k1 + x) below k1 + 1.
  const weighted = terms
    .map((t) => {
      const idf = Math.log(1 + (n - t.df + 0.5) / (t.df + 0.5)) * t.weight;
      return { t, idf, ub: idf * (K1 + 1) * (1 + NAME_BOOST) };
    })
    .sort((a, b) => b.ub - a.ub || (a.t.term < b.t.term ? -1 : 1));
  return ps.map((part) => {
    const { nameLengths, postings } = part.index;
    const { acc, pt, named } = buffersOf(part.index);
    const touched: number[] = [];
    // Skills whose name holds a query term (few): the name boost looks at these only.
    const namedSlots: number[] = [];
    const exact = new Map<number, string>();
    for (const g of grams) {
      for (const slot of part.index.triggers.get(g) ?? []) {
        const had = exact.get(slot);
        if (had === undefined || g.split(' ').length > had.split(' ').length) exact.set(slot, g);
      }
    }
    // This store's bound per term: with the term's largest weighted frequency in any skill.
    const ubs = weighted.map((w) => {
      const m = termCache(part.index, w.t.term)?.maxPt ?? 0;
      return ((w.idf * (K1 + 1) * m) / (K1 + m)) * (1 + NAME_BOOST);
    });
    let rest = ubs.reduce((a, x) => a + x, 0);
    let pruned = false;
    // After pruning: the scored skills that could still reach the top k.
    let live: number[] = touched;
    // The best score so far bounds the k-th: while the rest is above it, no need to find the k-th.
    let maxAcc = 0;
    for (let j = 0; j < weighted.length; j++) {
      const w = weighted[j]!;
      rest -= ubs[j]!;
      const post = postings.get(w.t.term);
      if (post) {
        const xs = termCache(part.index, w.t.term)!.xs;
        if (!pruned)
          maxAcc = Math.max(
            maxAcc,
            fullPass(post, xs, w.idf, w.t.weight, acc, pt, named, touched, namedSlots),
          );
        else partialPass(post, xs, w.idf, w.t.weight, acc, named, live, namedSlots);
      }
      // MaxScore: once the terms left could not lift a skill that has none of the terms so far
      // above the k-th score reached, only skills already scored can still enter the top k.
      // They still get every term, so the top k is exactly what scoring everything would give.
      if (k > 0 && !pruned && j + 1 < weighted.length && touched.length >= k) {
        const kth = rest < maxAcc ? kthScore(acc, touched, k, part) : 0;
        if (rest < kth) {
          pruned = true;
          // A skill whose score so far, with every remaining term and the name boost, stays
          // below the k-th cannot enter the top k either: it gets no more terms.
          live = touched.filter((slot) => (1 + NAME_BOOST) * acc[slot]! + rest >= kth);
          for (const slot of exact.keys()) {
            if (acc[slot] !== 0) continue;
            for (let i = 0; i <= j; i++) {
              const x = weighted[i]!;
              const p = postings.get(x.t.term);
              if (p)
                partialPass(
                  p,
                  termCache(part.index, x.t.term)!.xs,
                  x.idf,
                  x.t.weight,
                  acc,
                  named,
                  [slot],
                  namedSlots,
                  true,
                );
            }
            if (acc[slot] !== 0) {
              touched.push(slot);
              live.push(slot);
            } else if (!live.includes(slot)) live.push(slot);
          }
        }
      }
    }
    // A skill whose whole name the message says ("merge these PDFs" → pdf) is what it asks for,
    // more than one that repeats the message's words in a longer name and description.
    for (const slot of namedSlots) {
      const c = Math.min(1, named[slot]! / nameLengths[slot]!);
      acc[slot]! *= 1 + NAME_BOOST * c * c;
      named[slot] = 0;
    }
    return { part, acc, touched, exact, weighted };
  });
}

/**
 * One skill's BM25F for the query, the name boost included, from the postings alone (what
 * {@link scoreAll} gives a skill it scores fully; for a skill the semantic stage brought in).
 */
function exactLexical(s: PartScores, slot: number): number {
  const { index } = s.part;
  let acc = 0;
  let named = 0;
  for (const w of s.weighted) {
    const post = index.postings.get(w.t.term);
    if (!post) continue;
    const xs = termCache(index, w.t.term)!.xs;
    let x = 0;
    for (let i = lowerBound(post, slot) * 3; i < post.length && post[i] === slot; i += 3) {
      x += xs[i / 3]!;
      if (post[i + 1] === 0) named += w.t.weight;
    }
    if (x > 0) acc += (w.idf * (K1 + 1) * x) / (K1 + x) || Number.MIN_VALUE;
  }
  if (named > 0) {
    const c = Math.min(1, named / index.nameLengths[slot]!);
    acc *= 1 + NAME_BOOST * c * c;
  }
  return acc;
}

interface TermData {
  /** Per posting entry: tf × the field's weight and length normalisation for that skill. */
  xs: Float64Array;
  /** The largest per-skill sum of `xs` (bounds the term's BM25 contribution). */
  maxPt: number;
}

const termCaches = new WeakMap<SkillIndex, { generation: number; terms: Map<string, TermData> }>();

/** A term's weighted frequencies, computed once per index state (sequential reads when scoring). */
function termCache(index: SkillIndex, term: string): TermData | undefined {
  let c = termCaches.get(index);
  if (!c || c.generation !== index.generation) {
    c = { generation: index.generation, terms: new Map() };
    termCaches.set(index, c);
  }
  let d = c.terms.get(term);
  if (!d) {
    const post = index.postings.get(term);
    if (!post) return undefined;
    const norms = index.norms;
    const xs = new Float64Array(post.length / 3);
    let maxPt = 0;
    let sum = 0;
    for (let i = 0, e = 0; i < post.length; i += 3, e++) {
      xs[e] = post[i + 2]! * norms[post[i]! * INDEX_FIELDS.length + post[i + 1]!]!;
      sum = i > 0 && post[i - 3] === post[i] ? sum + xs[e]! : xs[e]!;
      if (sum > maxPt) maxPt = sum;
    }
    d = { xs, maxPt };
    if (c.terms.size > 5000) c.terms.clear();
    c.terms.set(term, d);
  }
  return d;
}

/** Add one term's contribution to every skill of its (slot-ordered) posting list; the best score. */
function fullPass(
  post: number[],
  xs: Float64Array,
  idf: number,
  weight: number,
  acc: Float64Array,
  pt: Float64Array,
  named: Float64Array,
  touched: number[],
  namedSlots: number[],
): number {
  let last = -1;
  let max = 0;
  for (let i = 0, e = 0; i < post.length; i += 3, e++) {
    const slot = post[i]!;
    const x = xs[e]!;
    if (post[i + 1] === 0) {
      if (named[slot] === 0) namedSlots.push(slot);
      named[slot]! += weight;
    }
    if (slot !== last) {
      if (last >= 0) max = Math.max(max, addTerm(acc, touched, last, pt[last]!, idf));
      last = slot;
      pt[slot] = x;
    } else pt[slot]! += x;
  }
  if (last >= 0) max = Math.max(max, addTerm(acc, touched, last, pt[last]!, idf));
  return max;
}

/**
 * Add one term's contribution to the given skills only (already scored ones, or with `force`
 * any): by bisection when they are few next to the posting list, else by one scan.
 */
function partialPass(
  post: number[],
  xs: Float64Array,
  idf: number,
  weight: number,
  acc: Float64Array,
  named: Float64Array,
  slots: number[],
  namedSlots: number[],
  force = false,
): void {
  const one = (slot: number, from: number) => {
    let x = 0;
    for (let i = from; i < post.length && post[i] === slot; i += 3) {
      x += xs[i / 3]!;
      if (post[i + 1] === 0) {
        if (named[slot] === 0) namedSlots.push(slot);
        named[slot]! += weight;
      }
    }
    if (x > 0) acc[slot]! += (idf * (K1 + 1) * x) / (K1 + x) || Number.MIN_VALUE;
  };
  if (force || slots.length * 16 < post.length / 3) {
    for (const slot of slots) one(slot, lowerBound(post, slot) * 3);
    return;
  }
  for (let i = 0; i < post.length; ) {
    const slot = post[i]!;
    if (acc[slot] !== 0) one(slot, i);
    while (i < post.length && post[i] === slot) i += 3;
  }
}

/** The k-th highest score so far among the part's visible scored skills. */
function kthScore(acc: Float64Array, touched: number[], k: number, part: Part): number {
  const heap: number[] = [];
  for (const slot of touched) {
    const v = acc[slot]!;
    if (heap.length === k && v <= heap[0]!) continue;
    if (part.hidden(slot)) continue;
    if (heap.length < k) {
      heap.push(v);
      for (let i = heap.length - 1; i > 0; ) {
        const p = (i - 1) >> 1;
        if (heap[p]! <= heap[i]!) break;
        [heap[p], heap[i]] = [heap[i]!, heap[p]!];
        i = p;
      }
    } else {
      heap[0] = v;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < k && heap[l]! < heap[m]!) m = l;
        if (r < k && heap[r]! < heap[m]!) m = r;
        if (m === i) break;
        [heap[m], heap[i]] = [heap[i]!, heap[m]!];
        i = m;
      }
    }
  }
  return heap.length === k ? heap[0]! : 0;
}

function addTerm(acc: Float64Array, touched: number[], slot: number, x: number, idf: number): number {
  if (acc[slot] === 0) touched.push(slot);
  // A tiny positive floor keeps a zero-weight match distinguishable from no match.
  acc[slot]! += (idf * (K1 + 1) * x) / (K1 + x) || Number.MIN_VALUE;
  return acc[slot]!;
}

/** Zero the buffers a scoring pass touched. */
function release(scores: PartScores[]): void {
  for (const s of scores) for (const slot of s.touched) s.acc[slot] = 0;
}

/** Every candidate slot of every part (hidden skills left out). */
function* candidates(scores: PartScores[]): Generator<[PartScores, number]> {
  for (const s of scores) {
    for (const slot of s.touched) if (!s.part.hidden(slot)) yield [s, slot];
    for (const slot of s.exact.keys()) {
      if (s.acc[slot] === 0 && !s.part.hidden(slot)) yield [s, slot];
    }
  }
}

function scoredOf(s: PartScores, slot: number): Scored {
  const phrase = s.exact.get(slot) ?? null;
  return {
    part: s.part,
    slot,
    name: s.part.index.docs[slot]!.name,
    scope: s.part.scope,
    bm25: s.acc[slot]! > Number.MIN_VALUE ? s.acc[slot]! : 0,
    exactWords: phrase ? phrase.split(' ').length : 0,
    exactPhrase: phrase,
    semantic: null,
    fused: 0,
  };
}

/**
 * The hybrid ranking: the best lexical candidates (sorted lexically) and the skills nearest the
 * message by meaning over the whole catalog, each scored by the fused score of {@link FUSION} and
 * sorted by it (a trigger phrase found verbatim still ranks first). Without an embedding (none
 * shipped, or no word of the message known to it) the lexical order stands.
 */
function fuse(message: string, top: Scored[], scores: PartScores[], semantic: boolean, f: Fusion): Scored[] {
  for (const s of top) s.fused = s.bm25 / (1 + s.bm25);
  // A message of stopwords alone asks for nothing, by words or by meaning.
  const space =
    semantic && contentWords(message).length > 0 ? SemanticSpace.of(scores.map((s) => s.part.index)) : null;
  const q = space ? space.query(message) : null;
  if (!space || !q) return top;
  const partOf = new Map(scores.map((s) => [s.part.index, s]));
  const near = space.nearest(q, f.semanticK, (index, slot) => partOf.get(index)!.part.hidden(slot));
  const all = [...top];
  const seen = new Set(top.map((s) => `${s.part.scope}:${s.slot}`));
  for (const n of near) {
    const ps = partOf.get(n.index)!;
    if (seen.has(`${ps.part.scope}:${n.slot}`)) continue;
    const x = scoredOf(ps, n.slot);
    x.bm25 = exactLexical(ps, n.slot);
    x.bm25 = x.bm25 > Number.MIN_VALUE ? x.bm25 : 0;
    x.semantic = n.cos;
    all.push(x);
  }
  const norm = 1 + f.weight * (1 - f.floor);
  const out: Scored[] = [];
  for (const s of all) {
    s.semantic ??= space.cosine(q, s.part.index, s.slot);
    const bonus = f.weight * Math.max(0, s.semantic - f.floor);
    // Meaning alone, below its threshold, is no match.
    if (s.bm25 === 0 && s.exactWords === 0 && s.semantic < f.meaningMin && !top.includes(s)) continue;
    s.fused = (s.bm25 / (1 + s.bm25) + bonus) / norm;
    out.push(s);
  }
  return out.sort(compareFused);
}

function compareFused(a: Scored, b: Scored): number {
  return (
    Number(b.exactWords > 0) - Number(a.exactWords > 0) ||
    b.exactWords - a.exactWords ||
    tieRound(b.fused) - tieRound(a.fused) ||
    compare(a, b)
  );
}

// Names tie-break by code point: the same order on every machine, and no collator to load.
const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

// Scores equal to 1e-9 are ties (summation order must not decide a ranking).
const tieRound = (x: number) => Math.round(x * 1e9);

function compare(a: Scored, b: Scored): number {
  return (
    Number(b.exactWords > 0) - Number(a.exactWords > 0) ||
    b.exactWords - a.exactWords ||
    tieRound(b.bm25) - tieRound(a.bm25) ||
    byCodePoint(a.name, b.name) ||
    (a.scope === 'workspace' ? -1 : 1)
  );
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

function toMatch(s: Scored, terms: QueryTerm[]): SkillMatch {
  const fields = matchedFields(s, terms);
  const matched: MatchField[] = s.exactWords > 0 ? ['exact_trigger'] : [];
  for (const f of INDEX_FIELDS) if (f !== 'instructions' && fields[f]) matched.push(f);
  if (s.exactWords === 0 && s.bm25 === 0 && Object.keys(fields).length === 0) matched.push('meaning');
  return {
    name: s.name,
    scope: s.scope,
    score: round((s.exactWords > 0 ? 1 : 0) + s.fused),
    matched_on: matched,
  };
}

function matchedFields(s: Scored, terms: QueryTerm[]): Partial<Record<IndexField, string[]>> {
  const out: Partial<Record<IndexField, string[]>> = {};
  for (const t of terms) {
    const post = s.part.index.postings.get(t.term);
    if (!post) continue;
    for (let i = lowerBound(post, s.slot) * 3; i < post.length && post[i] === s.slot; i += 3) {
      const f = INDEX_FIELDS[post[i + 1]!]!;
      const l = out[f] ?? [];
      if (!l.includes(t.term)) l.push(t.term);
      out[f] = l;
    }
  }
  return out;
}

/**
 * Rank for a message; `k` > 0 lets scoring skip skills that cannot reach the lexical top k (the
 * top `lexicalPool` when the semantic stage joins in).
 */
function run(catalog: SkillCatalog, message: string, k: number, opts: MatchOptions) {
  const ps = parts(catalog);
  const semantic = opts.semantic !== false && ps.some((p) => p.index.embedding !== null);
  const f: Fusion = { ...FUSION, ...opts.fusion };
  const pool = (limit: number) => (semantic ? Math.max(limit, f.lexicalPool) : limit);
  const terms = buildQuery(message, ps);
  const scores = scoreAll(ps, terms, ngrams(message), k > 0 ? pool(k) : 0);
  return { ps, terms, scores, pool, rank: (top: Scored[]) => fuse(message, top, scores, semantic, f) };
}

/** The `k` best candidates, sorted; objects are made only for those that may enter the top. */
function topK(scores: PartScores[], k: number): Scored[] {
  const top: Scored[] = [];
  for (const s of scores) {
    const consider = (slot: number) => {
      if (s.part.hidden(slot)) return;
      if (top.length === k) {
        const worst = top[k - 1]!;
        const exact = s.exact.has(slot);
        // Cheap rejection on the score before a candidate object is made.
        if (!exact && (worst.exactWords > 0 || tieRound(s.acc[slot]!) < tieRound(worst.bm25))) return;
      }
      const x = scoredOf(s, slot);
      if (top.length === k && compare(x, top[k - 1]!) >= 0) return;
      let i = Math.min(top.length, k - 1);
      if (top.length < k) top.push(x);
      while (i > 0 && compare(x, top[i - 1]!) < 0) {
        top[i] = top[i - 1]!;
        i--;
      }
      top[i] = x;
    };
    for (const slot of s.touched) consider(slot);
    for (const slot of s.exact.keys()) if (s.acc[slot] === 0) consider(slot);
  }
  return top;
}

/**
 * Phase-1 activation: rank the merged catalog for a message, deterministically and without any
 * LLM call. BM25F over each skill's name, description (with its "when"), tags, intent patterns,
 * trigger phrases and, at a low weight, the start of its instructions, examples and file names;
 * the message's words are joined by a few synonyms and spelling fixes at lower weights. Both
 * stores are ranked together, the workspace overriding the account by name; a trigger phrase
 * found verbatim in the message ranks first. The ranking is exact over every term, from an
 * in-memory index kept in step with both stores.
 */
export function matchSkills(catalog: SkillCatalog, message: string, opts: MatchOptions = {}): SkillMatch[] {
  const limit = Math.max(1, Math.min(opts.limit ?? 5, 1000));
  const { terms, scores, pool, rank } = run(catalog, message, limit, opts);
  try {
    return rank(topK(scores, pool(limit)))
      .slice(0, limit)
      .map((s) => toMatch(s, terms));
  } finally {
    release(scores);
  }
}

/**
 * {@link matchSkills} with its reasons: the query terms (with synonyms and spelling fixes), each
 * candidate's matched stems per field, and, for a named skill, its rank and why it was or was
 * not chosen.
 */
export function explainMatch(
  catalog: SkillCatalog,
  message: string,
  opts: MatchOptions & { skill?: string; skill_scope?: Scope } = {},
): MatchExplanation {
  const limit = Math.max(1, Math.min(opts.limit ?? 5, 1000));
  // Every skill is scored, so a named skill's rank is exact however low.
  const run1 = run(catalog, message, 0, opts);
  const { ps, terms, scores } = run1;
  const pool = run1.rank(topK(scores, run1.pool(limit)));
  const top = pool.slice(0, limit);
  const out: MatchExplanation = {
    matches: top.map((s) => toMatch(s, terms)),
    query_terms: terms,
    candidates: top.map((s, i) => ({
      name: s.name,
      scope: s.scope,
      rank: i + 1,
      score: toMatch(s, terms).score,
      bm25: round(s.bm25),
      semantic: s.semantic === null ? null : round(s.semantic),
      exact_trigger: s.exactPhrase,
      fields: matchedFields(s, terms),
    })),
  };
  if (opts.skill !== undefined) out.skill = verdict(opts.skill, opts.skill_scope, ps, scores, pool, limit);
  release(scores);
  return out;
}

function verdict(
  name: string,
  scope: Scope | undefined,
  ps: Part[],
  scores: PartScores[],
  pool: Scored[],
  limit: number,
): SkillVerdict {
  const key = skillNameKey(name);
  const part = ps.find((p) => (!scope || p.scope === scope) && p.index.byKey.has(key));
  if (!part) return { name, scope: null, rank: null, score: null, reason: 'not_found', above: null };
  const slot = part.index.byKey.get(key)!;
  const real = part.index.docs[slot]!.name;
  if (part.hidden(slot)) {
    return { name: real, scope: part.scope, rank: null, score: null, reason: 'overridden', above: null };
  }
  const mine = scores.find((s) => s.part === part)!;
  // Within the fused pool (words or meaning found it), its fused rank.
  const at = pool.findIndex((s) => s.part === part && s.slot === slot);
  if (at < 0 && mine.acc[slot] === 0 && !mine.exact.has(slot)) {
    return { name: real, scope: part.scope, rank: null, score: null, reason: 'no_term_overlap', above: null };
  }
  // Below the pool, its lexical rank, under the whole pool (what meaning alone brought in too).
  let me = at >= 0 ? pool[at]! : scoredOf(mine, slot);
  let above = at;
  if (at < 0) {
    me = { ...me, fused: me.bm25 / (1 + me.bm25) };
    above = pool.filter((s) => s.bm25 === 0 && s.exactWords === 0).length;
    for (const [s, other] of candidates(scores)) {
      if ((s !== mine || other !== slot) && compare(scoredOf(s, other), me) < 0) above++;
    }
  }
  return {
    name: real,
    scope: part.scope,
    rank: above + 1,
    score: round((me.exactWords > 0 ? 1 : 0) + me.fused),
    reason: above < limit ? 'matched' : 'lower_score',
    above,
  };
}
