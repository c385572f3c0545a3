import type { SkillCatalog } from '../skills/index.js';
import type { Scope, SkillSwitch } from '../store/index.js';
import { normalizePhrase, readSwitches, skillNameKey } from '../store/index.js';
import { type CentredQuery, DenseSpace, denseIndex } from './dense.js';
import { confidence, DENSE_FUSION, type DenseFusion, fuseDense } from './dense-fusion.js';
import type { E5Engine } from './e5.js';
import { type NearestSearch, type Query, SemanticSpace } from './semantic.js';
import {
  INDEX_FIELDS,
  type IndexField,
  lowerBound,
  type SkillIndex,
  skillIndex,
  warmSkillIndex,
} from './skill-index.js';
import { corrections } from './spelling.js';
import { expandSynonyms } from './synonyms.js';
import { contentWords, GENERIC_WEIGHT, GENERIC_WORDS, MAX_MESSAGE_CHARS, stem, words } from './text.js';

/**
 * Which field of a skill a message matched. `exact_trigger`: a trigger phrase occurs verbatim.
 * (`when` counts as `description`; `instructions`: the start of the skill's body and its file names.)
 * `meaning`: no field shares a word with the message; the semantic recall stage found the skill.
 */
export type MatchField =
  | 'exact_trigger'
  | 'name'
  | 'description'
  | 'tags'
  | 'intent_patterns'
  | 'trigger_phrases'
  | 'instructions'
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
  /** Catalog-centred cosine of the message's and the skill's e5 vectors (null: not used, or none yet). */
  dense?: number | null;
  /** The same cosine by the second model, all-MiniLM-L6-v2 (present when that model is in use). */
  dense_second?: number | null;
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
   * workspace skill of the same name; `switched_off`: switched name-only or off by the user;
   * `not_found`: no such skill.
   */
  reason: 'matched' | 'lower_score' | 'no_term_overlap' | 'overridden' | 'switched_off' | 'not_found';
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
  /**
   * false: the semantic scan stays on this thread, also over a large catalog (to compare; the
   * index's priming matches, which should not start the scan thread).
   */
  thread?: boolean;
  /**
   * The message's e5 vector (its `query:` embedding, not centred): fuses the catalog-centred e5
   * cosine into the ranking ({@link DENSE_FUSION}). Without it phase 1 is the fast path alone.
   */
  dense?: DenseQuery | null;
  /** Dense fusion parameters other than the shipped ones (the harness's tuning runs). */
  denseFusion?: Partial<DenseFusion>;
}

/** A message's sentence vectors: e5's, and the second model's when it is installed. */
export interface DenseQuery {
  engine: E5Engine;
  vector: Float32Array;
  /** The second model's vector (all-MiniLM-L6-v2), fused as a third ranking. */
  second?: { engine: E5Engine; vector: Float32Array } | null;
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
 * and 10,000 skills, with the table of models/static-embedding/meta.json (weight 0.02–0.2, floor
 * 0–0.3; lexical pool 5–30 and reciprocal-rank fusion with k 1–10 did no better with the older
 * table): the largest MRR with no lexical top-5 match lost at either size (MRR 0.768 → 0.784 at
 * 1k, 0.769 → 0.790 at 10k; floor 0.1 tied; weights from 0.07 up lost lexical matches). Meaning
 * decides between close lexical calls (a lexical top-5 skill gives way only to one whose lexical
 * score is within `weight · (1 − floor)`, 0.016, of its own) and fills the places words leave
 * empty; it does not outvote a clear lexical match.
 */
const FUSION: Fusion = { lexicalPool: 5, semanticK: 20, weight: 0.02, floor: 0.2, meaningMin: 0.45 };

export { DENSE_FUSION, type DenseFusion };

/** The distinct content words of a message as quoted FTS5 terms (at most 32). */
export function queryTerms(message: string): string[] {
  return contentWords(message).map((w) => `"${w}"`);
}

/** The FTS5 query for a message: its distinct content words, quoted, OR-ed. Empty when none. */
export function buildFtsQuery(message: string): string {
  return queryTerms(message).join(' OR ');
}

/**
 * Every run of 1..`longest` (at most 12) consecutive normalised words of the message that could
 * be an indexed trigger phrase: a run grows only while some part holds a phrase starting with it
 * (`prefixes`), so a long message builds a handful of candidates instead of `longest` per word.
 */
function ngrams(
  message: string,
  prefixes: ReadonlyArray<ReadonlySet<string>>,
  longest = MAX_NGRAM,
): string[] {
  const max = Math.min(MAX_NGRAM, longest);
  if (max <= 0 || prefixes.every((p) => p.size === 0)) return [];
  const ws = normalizePhrase(message.slice(0, MAX_MESSAGE_CHARS)).split(' ').filter(Boolean);
  const out = new Set<string>();
  const starts = (phrase: string) => prefixes.some((p) => p.has(phrase));
  for (let i = 0; i < ws.length; i++) {
    let phrase = '';
    for (let n = 0; n < max && i + n < ws.length; n++) {
      phrase = n === 0 ? ws[i]! : `${phrase} ${ws[i + n]}`;
      if (!starts(phrase)) break;
      out.add(phrase);
    }
  }
  return [...out];
}

const prefixCaches = new WeakMap<SkillIndex, { generation: number; prefixes: Set<string> }>();

/** Every word prefix of an index's trigger phrases ("a b c" gives "a", "a b", "a b c"), per generation. */
function triggerPrefixes(index: SkillIndex): Set<string> {
  let c = prefixCaches.get(index);
  if (!c || c.generation !== index.generation) {
    const prefixes = new Set<string>();
    for (const phrase of index.triggers.keys()) {
      for (let at = phrase.indexOf(' '); at >= 0; at = phrase.indexOf(' ', at + 1))
        prefixes.add(phrase.slice(0, at));
      prefixes.add(phrase);
    }
    c = { generation: index.generation, prefixes };
    prefixCaches.set(index, c);
  }
  return c.prefixes;
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
  /** Centred e5 cosine, once re-ranked with the dense signal (null: none). */
  dense?: number | null;
  /** Centred cosine by the second model, once re-ranked (null: none). */
  second?: number | null;
  /** With the dense signal: the absolute score a match reports (the fused one is for ranking). */
  confidence?: number;
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
 * does this itself; calling it first lets a caller time the two apart. `prime: false` skips the
 * warm-up matches: a one-shot process (the CLI) answers one match and would only pay for them.
 */
export function syncSkillIndexes(catalog: SkillCatalog, opts: { prime?: boolean } = {}): void {
  for (const store of catalog.stores()) skillIndex(store.db);
  // A process's first matches run the matcher's code unoptimised; run a few here, with the
  // index's build, so the caller's first match is not timed through the interpreter.
  const key = skillIndex(catalog.account.db);
  if (!primed.has(key) && opts.prime !== false) {
    primed.add(key);
    for (const m of primingMessages(catalog)) matchSkills(catalog, m, { thread: false });
  }
}

/** The account indexes the matcher was warmed up on (their terms' data is made once per index). */
const primed = new WeakSet<SkillIndex>();

/**
 * {@link syncSkillIndexes} ahead of the first match, in slices that leave the event loop free
 * between them (a server warming up while it answers other requests). A match asked meanwhile
 * builds what is still missing at once, as without it.
 */
export async function warmSkillIndexes(catalog: SkillCatalog): Promise<void> {
  // Each step waits a turn of the event loop: a store closed meanwhile (the process ending) ends
  // the warm-up quietly instead of failing on a closed connection.
  const open = () => catalog.stores().every((s) => s.db.open);
  for (const store of catalog.stores()) {
    if (!open()) return;
    await warmSkillIndex(store.db);
  }
  if (!open()) return;
  const key = skillIndex(catalog.account.db);
  if (!primed.has(key)) {
    primed.add(key);
    for (const m of primingMessages(catalog)) {
      if (!open()) return;
      matchSkills(catalog, m, { thread: false });
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
}
const PRIMING = [
  'prime the matcher: extract text from slides, spreadsheets and pdfs',
  'write a short update for the team about the new release',
  'test the login page of my web app and fix the failing button',
  'design a poster with bold colours and nice fonts',
];

/** How many of the warm-up matches speak the catalog's own words. */
const PRIMING_FROM_CATALOG = 32;

/**
 * The warm-up matches: the fixed ones, then messages made of the catalog's own names and trigger
 * phrases, spread over it. Sixteen short fixed messages left the scoring loops half-optimised: a
 * bench pass's first hundred messages took three times the steady time. With the catalog's words
 * the matcher runs its real paths (long posting lists, pruning, several trigger phrases at once)
 * often enough to be optimised, and their terms' data is made ahead of the user's first message.
 */
function primingMessages(catalog: SkillCatalog): string[] {
  const out = [...PRIMING, ...PRIMING, ...PRIMING, ...PRIMING];
  const ix = skillIndex(catalog.account.db);
  const phrases = [...ix.triggers.keys()];
  const names = ix.docs.filter((d) => d !== null).map((d) => d.name);
  if (names.length === 0) return out;
  for (let i = 0; i < PRIMING_FROM_CATALOG; i++) {
    // Fixed strides (primes) pick the same spread of skills every time: deterministic warm-up.
    const name = names[(i * 7919) % names.length]!;
    const a = phrases.length > 0 ? phrases[(i * 104_729) % phrases.length]! : '';
    const b = phrases.length > 0 ? phrases[(i * 1_299_709) % phrases.length]! : '';
    out.push(`${a} ${name} and ${b}`.trim());
  }
  return out;
}

function parts(catalog: SkillCatalog): Part[] {
  const ws = catalog.workspace ? skillIndex(catalog.workspace.db) : null;
  // Switched name-only or off: never matched (the workspace's switch wins for both scopes).
  const wsSwitches = catalog.workspace ? readSwitches(catalog.workspace.db) : EMPTY_SWITCHES;
  const accSwitches = readSwitches(catalog.account.db);
  const out: Part[] = [];
  if (ws && catalog.workspace)
    out.push({
      scope: 'workspace',
      index: ws,
      hidden: wsSwitches.size === 0 ? () => false : (slot) => wsSwitches.has(ws.docs[slot]!.key),
    });
  const acc = skillIndex(catalog.account.db);
  const switched =
    wsSwitches.size === 0 && accSwitches.size === 0
      ? null
      : (key: string) => (wsSwitches.get(key) ?? accSwitches.get(key)) !== undefined;
  out.push({
    scope: 'account',
    index: acc,
    hidden:
      ws && switched
        ? (slot) => ws.byKey.has(acc.docs[slot]!.key) || switched(acc.docs[slot]!.key)
        : ws
          ? (slot) => ws.byKey.has(acc.docs[slot]!.key)
          : switched
            ? (slot) => switched(acc.docs[slot]!.key)
            : () => false,
  });
  return out;
}

const EMPTY_SWITCHES: ReadonlyMap<string, SkillSwitch> = new Map();

interface PartScores {
  part: Part;
  /** BM25F per slot (valid for `touched` slots). */
  acc: Float64Array;
  /** The slots scored, in the order first scored (a view into a reused buffer). */
  touched: Int32Array;
  /**
   * The scored slots that may still enter the top k: all of `touched`, or after MaxScore pruned
   * the rest, the live ones (each pruned slot's final score is below the k-th's, so ranking
   * these alone gives the same top k).
   */
  candidates: Int32Array;
  /** Slot → the longest trigger phrase of that skill found verbatim in the message. */
  exact: Map<number, string>;
  /** The query's terms with their idf, as scored. */
  weighted: WeightedTerm[];
  /** Each of `weighted`'s terms in this store (undefined: no skill of it holds the term). */
  data: Array<TermData | undefined>;
  /**
   * Only skills with a trigger phrase were scored: enough of them to fill the k best, which they
   * outrank whatever the others score, so `candidates` lists exactly the ones that can be there.
   */
  triggeredOnly: boolean;
  /** 1 at each slot in `exact` (a read per candidate, not a lookup). */
  triggered: Uint8Array;
}

interface WeightedTerm {
  t: QueryTerm;
  idf: number;
  ub: number;
}

/** A list of slots in a reused typed buffer (a match at 100k touches tens of thousands). */
class SlotList {
  a = new Int32Array(256);
  n = 0;
  push(slot: number): void {
    if (this.n === this.a.length) {
      const grown = new Int32Array(this.a.length * 2);
      grown.set(this.a);
      this.a = grown;
    }
    this.a[this.n++] = slot;
  }
  view(): Int32Array {
    return this.a.subarray(0, this.n);
  }
}

interface Buffers {
  acc: Float64Array;
  named: Float64Array;
  touched: SlotList;
  namedSlots: SlotList;
  /** The scored slots still live once MaxScore prunes. */
  live: SlotList;
  /** The k best scores so far, as a min-heap ({@link kthScore}). */
  heap: Float64Array;
  /** 1 at each slot whose trigger phrase the message holds (a read per candidate, not a lookup). */
  triggered: Uint8Array;
}

const buffers = new WeakMap<SkillIndex, Buffers>();

function buffersOf(index: SkillIndex): Buffers {
  let b = buffers.get(index);
  if (!b || b.acc.length < index.docs.length) {
    const n = Math.max(16, index.docs.length * 2);
    b = {
      acc: new Float64Array(n),
      named: new Float64Array(n),
      touched: new SlotList(),
      namedSlots: new SlotList(),
      live: new SlotList(),
      heap: new Float64Array(64),
      triggered: new Uint8Array(n),
    };
    buffers.set(index, b);
  }
  b.touched.n = 0;
  b.namedSlots.n = 0;
  b.live.n = 0;
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
  const wordsOf = new Map(grams.map((g) => [g, g.split(' ').length]));
  const exacts = ps.map((part) => triggeredSlots(part.index, grams, wordsOf));
  const fewest = k > 0 ? triggeredCut(ps, exacts, wordsOf, k) : 0;
  return ps.map((part, pi) => {
    const { nameLengths } = part.index;
    const bufs = buffersOf(part.index);
    const { acc, named, touched, namedSlots } = bufs;
    const exact = exacts[pi]!;
    for (const slot of exact.keys()) bufs.triggered[slot] = 1;
    const data = weighted.map((w) => termCache(part.index, w.t.term));
    if (fewest > 0) {
      // Skills with a trigger phrase fill the k best: score those that can be there, by bisection.
      const cands = bufs.live;
      for (const [slot, g] of exact) {
        if (wordsOf.get(g)! < fewest || part.hidden(slot)) continue;
        const v = slotLexical(part.index, weighted, data, slot);
        acc[slot] = v;
        if (v !== 0) touched.push(slot);
        cands.push(slot);
      }
      const all = touched.view();
      return {
        part,
        acc,
        touched: all,
        candidates: cands.view(),
        exact,
        weighted,
        data,
        triggeredOnly: true,
        triggered: bufs.triggered,
      };
    }
    // This store's bound per term: with the term's largest weighted frequency in any skill.
    const ubs = weighted.map((w, j) => {
      const m = data[j]?.maxPt ?? 0;
      return ((w.idf * (K1 + 1) * m) / (K1 + m)) * (1 + NAME_BOOST);
    });
    let rest = ubs.reduce((a, x) => a + x, 0);
    let pruned = false;
    // After pruning: the scored skills that could still reach the top k.
    let live: Int32Array = new Int32Array(0);
    // The best score so far bounds the k-th: while the rest is above it, no need to find the k-th.
    let maxAcc = 0;
    // So does the last k-th found plus the most each term since could add to any one skill (every
    // score grows by at most that, so the k-th does too): finding the k-th walks every scored
    // skill, thousands per term at 10,000 skills, and most of those walks could not prune.
    let kthBound = Number.POSITIVE_INFINITY;
    for (let j = 0; j < weighted.length; j++) {
      const w = weighted[j]!;
      rest -= ubs[j]!;
      const d = data[j];
      if (d) {
        if (!pruned) {
          maxAcc = Math.max(maxAcc, fullPass(d, w.idf, w.t.weight, acc, named, touched, namedSlots));
          kthBound += ubs[j]! / (1 + NAME_BOOST);
        } else partialPass(d, w.idf, w.t.weight, acc, named, live, namedSlots, bufs.triggered);
      }
      // MaxScore: once the terms left could not lift a skill that has none of the terms so far
      // above the k-th score reached, only skills already scored can still enter the top k.
      // They still get every term, so the top k is exactly what scoring everything would give.
      if (k > 0 && !pruned && j + 1 < weighted.length && touched.n >= k) {
        // The bound's slack covers the rounding of the sums it stands for.
        let kth = 0;
        if (rest < maxAcc && rest < kthBound * (1 + 1e-9)) {
          kth = kthScore(acc, touched.a, touched.n, k, part, bufs);
          kthBound = kth;
        }
        if (rest < kth) {
          pruned = true;
          // A skill whose score so far, with every remaining term and the name boost, stays
          // below the k-th cannot enter the top k either: it gets no more terms.
          // (A typed list: at 100,000 skills it holds tens of thousands, read by every later pass.)
          const keep = bufs.live;
          const ts = touched.a;
          const kept = (slot: number) => (1 + NAME_BOOST) * acc[slot]! + rest >= kth;
          for (let i = 0; i < touched.n; i++) {
            const slot = ts[i]!;
            if (kept(slot)) keep.push(slot);
          }
          // A skill whose trigger phrase the message holds ranks first whatever its score, so it
          // gets every term (its score orders it among such skills and is shown). Whether it is
          // in `keep` already is the same test again (its score has not moved since), not a
          // search of `keep`, which holds thousands of skills at 100,000.
          for (const slot of exact.keys()) {
            if (acc[slot] !== 0) {
              if (!kept(slot)) keep.push(slot);
              continue;
            }
            // Unscored so far: not in `keep` (exact's slots are distinct).
            for (let i = 0; i <= j; i++) {
              const x = weighted[i]!;
              const di = data[i];
              if (di) partialPass(di, x.idf, x.t.weight, acc, named, Int32Array.of(slot), namedSlots, null);
            }
            if (acc[slot] !== 0) touched.push(slot);
            keep.push(slot);
          }
          live = keep.view();
        }
      }
    }
    // A skill whose whole name the message says ("merge these PDFs" → pdf) is what it asks for,
    // more than one that repeats the message's words in a longer name and description.
    const ns = namedSlots.a;
    for (let i = 0; i < namedSlots.n; i++) {
      const slot = ns[i]!;
      const c = Math.min(1, named[slot]! / nameLengths[slot]!);
      acc[slot]! *= 1 + NAME_BOOST * c * c;
      named[slot] = 0;
    }
    const all = touched.view();
    return {
      part,
      acc,
      touched: all,
      candidates: pruned ? live : all,
      exact,
      weighted,
      data,
      triggeredOnly: false,
      triggered: bufs.triggered,
    };
  });
}

/**
 * One skill's BM25F for the query, the name boost included, from the terms' data alone, each
 * term's entry found by bisection: what {@link scoreAll} gives a skill it scores fully (for a
 * skill the semantic stage brought in, and for the trigger-phrase skills that fill the top).
 */
function slotLexical(
  index: SkillIndex,
  weighted: WeightedTerm[],
  data: Array<TermData | undefined>,
  slot: number,
): number {
  let acc = 0;
  let named = 0;
  for (let j = 0; j < weighted.length; j++) {
    const w = weighted[j]!;
    const d = data[j];
    if (!d) continue;
    const e = lowerBoundSlot(d.slots, slot);
    if (e === d.slots.length || d.slots[e] !== slot) continue;
    const x = d.xs[e]!;
    if (d.inName[e]) named += w.t.weight;
    if (x > 0) acc += (w.idf * (K1 + 1) * x) / (K1 + x) || Number.MIN_VALUE;
  }
  if (named > 0) {
    const c = Math.min(1, named / index.nameLengths[slot]!);
    acc *= 1 + NAME_BOOST * c * c;
  }
  return acc;
}

/**
 * The skills of a store whose trigger phrase the message holds, each with its longest such phrase
 * (the first in the message among equally long ones).
 */
function triggeredSlots(
  index: SkillIndex,
  grams: string[],
  wordsOf: ReadonlyMap<string, number>,
): Map<number, string> {
  const exact = new Map<number, string>();
  for (const g of grams) {
    const slots = index.triggers.get(g);
    if (!slots) continue;
    for (const slot of slots) {
      const had = exact.get(slot);
      if (had === undefined || wordsOf.get(g)! > wordsOf.get(had)!) exact.set(slot, g);
    }
  }
  return exact;
}

/**
 * When the visible skills with a trigger phrase number `k` or more, the fewest words a phrase may
 * have for its skill to still be among the k best (they rank first, longer phrases before
 * shorter, whatever the scores); 0 when they are fewer than `k` and every skill must be scored.
 */
function triggeredCut(
  ps: Part[],
  exacts: Array<Map<number, string>>,
  wordsOf: ReadonlyMap<string, number>,
  k: number,
): number {
  const byWords = new Int32Array(MAX_NGRAM + 1);
  let total = 0;
  ps.forEach((part, pi) => {
    for (const [slot, g] of exacts[pi]!) {
      if (part.hidden(slot)) continue;
      byWords[wordsOf.get(g)!]!++;
      total++;
    }
  });
  if (total < k) return 0;
  let held = 0;
  for (let w = MAX_NGRAM; w > 0; w--) {
    held += byWords[w]!;
    if (held >= k) return w;
  }
  return 0;
}

/**
 * A term's posting list folded per skill for scoring (one entry per skill, in slot order), computed
 * once per index state: the hot loops read three typed arrays front to back.
 */
interface TermData {
  /** The skills holding the term, ascending. */
  slots: Int32Array;
  /** Per skill: Σ over its fields of tf × the field's weight and length normalisation. */
  xs: Float64Array;
  /** Per skill: 1 when its name holds the term. */
  inName: Uint8Array;
  /** Posting entries (skill × field) the term has: what a scan of it costs. */
  entries: number;
  /** The largest of `xs` (bounds the term's BM25 contribution). */
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
    let skills = 0;
    for (let i = 0; i < post.length; i += 3) if (i === 0 || post[i - 3] !== post[i]) skills++;
    const slots = new Int32Array(skills);
    const xs = new Float64Array(skills);
    const inName = new Uint8Array(skills);
    let maxPt = 0;
    // Summed field by field in posting order, as a skill's frequencies always were.
    for (let i = 0, e = -1; i < post.length; i += 3) {
      const slot = post[i]!;
      const x = post[i + 2]! * norms[slot * INDEX_FIELDS.length + post[i + 1]!]!;
      if (e < 0 || slots[e] !== slot) {
        e++;
        slots[e] = slot;
        xs[e] = x;
      } else xs[e]! += x;
      if (post[i + 1] === 0) inName[e] = 1;
      if (xs[e]! > maxPt) maxPt = xs[e]!;
    }
    d = { slots, xs, inName, entries: post.length / 3, maxPt };
    if (c.terms.size > 5000) c.terms.clear();
    c.terms.set(term, d);
  }
  return d;
}

/** The first index of an ascending slot array whose slot is ≥ `slot`. */
function lowerBoundSlot(a: Int32Array, slot: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < slot) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Add one term's contribution to every skill holding it; the best score. */
function fullPass(
  d: TermData,
  idf: number,
  weight: number,
  acc: Float64Array,
  named: Float64Array,
  touched: SlotList,
  namedSlots: SlotList,
): number {
  const { slots, xs, inName } = d;
  // (idf · (k1 + 1)) · x / (k1 + x), evaluated in the same order as everywhere else.
  const c = idf * (K1 + 1);
  let max = 0;
  for (let e = 0; e < slots.length; e++) {
    const slot = slots[e]!;
    const x = xs[e]!;
    if (inName[e]) {
      if (named[slot] === 0) namedSlots.push(slot);
      named[slot]! += weight;
    }
    const had = acc[slot]!;
    if (had === 0) touched.push(slot);
    // A tiny positive floor keeps a zero-weight match distinguishable from no match.
    const now = had + ((c * x) / (K1 + x) || Number.MIN_VALUE);
    acc[slot] = now;
    if (now > max) max = now;
  }
  return max;
}

/**
 * Add one term's contribution to the given skills only: by bisection when they are few next to
 * the posting list, else by one scan of it that adds to every skill scored so far or with a
 * trigger phrase (`triggered`: the live list holds those, scored or not). `triggered` null:
 * `slots` may be any skills, always by bisection.
 */
function partialPass(
  d: TermData,
  idf: number,
  weight: number,
  acc: Float64Array,
  named: Float64Array,
  slots: Int32Array,
  namedSlots: SlotList,
  triggered: Uint8Array | null,
): void {
  const { slots: ss, xs, inName } = d;
  const c = idf * (K1 + 1);
  // One function for both loops, not a closure made per call: this runs per term per match.
  if (triggered === null || slots.length * 16 < d.entries) {
    for (let i = 0; i < slots.length; i++) {
      const e = lowerBoundSlot(ss, slots[i]!);
      if (e < ss.length && ss[e] === slots[i]) addOne(e, ss, xs, inName, c, weight, acc, named, namedSlots);
    }
    return;
  }
  // A trigger-phrase skill none of the earlier terms scored is live with a zero sum: it gets its
  // later terms too (it ranks first, by its full score).
  for (let e = 0; e < ss.length; e++) {
    const slot = ss[e]!;
    if (acc[slot] !== 0 || triggered[slot] !== 0)
      addOne(e, ss, xs, inName, c, weight, acc, named, namedSlots);
  }
}

/** {@link partialPass}'s step: entry `e` of a term's data added to its skill. */
function addOne(
  e: number,
  ss: Int32Array,
  xs: Float64Array,
  inName: Uint8Array,
  c: number,
  weight: number,
  acc: Float64Array,
  named: Float64Array,
  namedSlots: SlotList,
): void {
  const slot = ss[e]!;
  const x = xs[e]!;
  if (inName[e]) {
    if (named[slot] === 0) namedSlots.push(slot);
    named[slot]! += weight;
  }
  if (x > 0) acc[slot]! += (c * x) / (K1 + x) || Number.MIN_VALUE;
}

/** The k-th highest score so far among the part's visible scored skills. */
function kthScore(
  acc: Float64Array,
  touched: Int32Array,
  n: number,
  k: number,
  part: Part,
  b: Buffers,
): number {
  if (b.heap.length < k) b.heap = new Float64Array(k);
  // A min-heap of the k best in a reused typed buffer (this walks every scored skill).
  const heap = b.heap;
  let size = 0;
  for (let t = 0; t < n; t++) {
    const slot = touched[t]!;
    const v = acc[slot]!;
    if (size === k && v <= heap[0]!) continue;
    if (part.hidden(slot)) continue;
    if (size < k) {
      let i = size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (heap[p]! <= v) break;
        heap[i] = heap[p]!;
        i = p;
      }
      heap[i] = v;
    } else {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = l;
        if (l >= k) break;
        if (r < k && heap[r]! < heap[l]!) m = r;
        if (heap[m]! >= v) break;
        heap[i] = heap[m]!;
        i = m;
      }
      heap[i] = v;
    }
  }
  return size === k ? heap[0]! : 0;
}

/**
 * Zero the buffers a scoring pass touched: the scored slots, and the trigger-phrase slots, which a
 * pass after pruning may score without listing them as scored.
 */
function release(scores: PartScores[]): void {
  for (const s of scores) {
    const { acc, touched } = s;
    const n = s.part.index.docs.length;
    // Past a fraction of the store, one sequential fill beats that many scattered writes.
    const filled = touched.length * 8 > n;
    if (filled) acc.fill(0, 0, n);
    else for (let i = 0; i < touched.length; i++) acc[touched[i]!] = 0;
    for (const slot of s.exact.keys()) {
      if (!filled) acc[slot] = 0;
      s.triggered[slot] = 0;
    }
  }
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
function fuse(
  top: Scored[],
  scores: PartScores[],
  near: Near | null,
  f: Fusion,
  dn: DenseNear | null = null,
): Scored[] {
  for (const s of top) s.fused = s.bm25 / (1 + s.bm25);
  if (!near && !dn) return top;
  const partOf = new Map(scores.map((s) => [s.part.index, s]));
  const all = [...top];
  // Candidates already held, per index by slot (no key strings on the hot path).
  const seen = new Map<SkillIndex, Set<number>>(scores.map((s) => [s.part.index, new Set<number>()]));
  for (const s of top) seen.get(s.part.index)?.add(s.slot);
  const bring = (index: SkillIndex, slot: number): Scored | null => {
    const ps = partOf.get(index)!;
    const held = seen.get(index)!;
    if (held.has(slot)) return null;
    held.add(slot);
    const x = scoredOf(ps, slot);
    x.bm25 = slotLexical(ps.part.index, ps.weighted, ps.data, slot);
    x.bm25 = x.bm25 > Number.MIN_VALUE ? x.bm25 : 0;
    all.push(x);
    return x;
  };
  if (near) {
    for (const n of near.search.finish()) {
      const x = bring(n.index, n.slot);
      if (x) x.semantic = n.cos;
    }
  }
  if (dn) {
    for (const n of dn.space.nearest(dn.qc, dn.f.k, dn.hidden)) {
      const x = bring(n.index, n.slot);
      if (x) x.dense = n.cos;
    }
    if (dn.second) {
      for (const n of dn.second.space.nearest(dn.second.qc, dn.f.secondK, dn.hidden)) {
        const x = bring(n.index, n.slot);
        if (x) x.second = n.cos;
      }
    }
  }
  const norm = 1 + f.weight * (1 - f.floor);
  const out: Scored[] = [];
  const fasts: number[] = [];
  for (const s of all) {
    let fast = s.bm25 / (1 + s.bm25);
    if (near) {
      s.semantic ??= near.space.cosine(near.q, s.part.index, s.slot);
      fast = (fast + f.weight * Math.max(0, s.semantic - f.floor)) / norm;
    }
    const alone = s.bm25 === 0 && s.exactWords === 0 && !top.includes(s);
    if (dn) {
      if (s.dense === undefined) s.dense = dn.space.cosine(dn.qc, s.part.index, s.slot);
      if (dn.second && s.second === undefined)
        s.second = dn.second.space.cosine(dn.second.qc, s.part.index, s.slot);
      const c = s.dense ?? 0;
      // Meaning alone, below its threshold by every embedding, is no match.
      if (
        alone &&
        c < dn.f.meaningMin &&
        (s.semantic ?? 0) < f.meaningMin &&
        (s.second ?? 0) < dn.f.secondMeaningMin
      )
        continue;
    } else if (alone && (s.semantic ?? 0) < f.meaningMin) continue;
    s.fused = fast;
    fasts.push(fast);
    out.push(s);
  }
  if (dn) {
    const fused = fuseDense(
      out.map((s, i) => ({
        fast: fasts[i]!,
        dense: s.dense ?? null,
        ...(dn.second ? { second: s.second ?? null } : {}),
      })),
      dn.f,
    );
    out.forEach((s, i) => {
      s.fused = fused[i]!;
      s.confidence = confidence(fasts[i]!, s.dense ?? null, dn.f, dn.second ? (s.second ?? null) : null);
    });
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
  for (const f of INDEX_FIELDS) if (fields[f]) matched.push(f);
  if (s.exactWords === 0 && s.bm25 === 0 && Object.keys(fields).length === 0) matched.push('meaning');
  return {
    name: s.name,
    scope: s.scope,
    score: round((s.exactWords > 0 ? 1 : 0) + (s.confidence ?? s.fused)),
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
  // The semantic stage starts first: over a large catalog its scan runs on the scan thread while
  // this thread scores lexically (the two cost about the same at 100,000 skills).
  const near = semantic ? startNear(message, ps, f, opts.thread !== false) : null;
  const dn = opts.dense ? startDense(opts.dense, ps, { ...DENSE_FUSION, ...opts.denseFusion }) : null;
  const terms = buildQuery(message, ps);
  const longest = ps.reduce((m, p) => Math.max(m, p.index.triggerWords), 0);
  const grams = ngrams(
    message,
    ps.map((p) => triggerPrefixes(p.index)),
    longest,
  );
  const scores = scoreAll(ps, terms, grams, k > 0 ? pool(k) : 0);
  return {
    ps,
    terms,
    scores,
    pool,
    rank: (top: Scored[]) => fuse(top, scores, near, f, dn),
    dense: dn,
    /** Wait for the semantic stage if nothing did (a match that failed half-way). */
    settle: () => near?.search.finish(),
  };
}

/**
 * The dense stage of a match: the catalog's centred e5 space and the message's centred vector,
 * and the same for the second model when it is in use.
 */
interface DenseNear {
  space: DenseSpace;
  qc: CentredQuery;
  second: { space: DenseSpace; qc: CentredQuery } | null;
  f: DenseFusion;
  hidden: (index: SkillIndex, slot: number) => boolean;
}

function startDense(dense: DenseQuery, ps: Part[], f: DenseFusion): DenseNear | null {
  const centred = (q: { engine: E5Engine; vector: Float32Array }) => {
    const parts = ps.map((p) => denseIndex(p.index, q.engine)).filter((d) => d !== null);
    const space = DenseSpace.of(parts);
    if (!space || !parts.some((p) => p.anyEmbedded())) return null;
    return { space, qc: space.centre(q.vector) };
  };
  const e5 = centred(dense);
  if (!e5) return null;
  // The second model joins e5, never stands in for it: the cut and the confidence are e5's.
  const second = dense.second && f.secondWeight > 0 ? centred(dense.second) : null;
  const hidden = new Map(ps.map((p) => [p.index, p.hidden]));
  return { ...e5, second, f, hidden: (index, slot) => hidden.get(index)!(slot) };
}

/** The semantic stage of a match under way. */
interface Near {
  space: SemanticSpace;
  q: Query;
  search: NearestSearch;
}

/** Start the semantic stage: null without an embedding or a message it knows a word of. */
function startNear(message: string, ps: Part[], f: Fusion, threaded: boolean): Near | null {
  // A message of stopwords alone asks for nothing, by words or by meaning.
  if (contentWords(message).length === 0) return null;
  const space = SemanticSpace.of(ps.map((p) => p.index));
  const q = space ? space.query(message) : null;
  if (!space || !q) return null;
  const hidden = new Map(ps.map((p) => [p.index, p.hidden]));
  return {
    space,
    q,
    search: space.search(q, f.semanticK, (index, slot) => hidden.get(index)!(slot), threaded),
  };
}

/** The `k` best candidates, sorted; objects are made only for those that may enter the top. */
function topK(scores: PartScores[], k: number): Scored[] {
  const top: Scored[] = [];
  // Once k are held, a candidate without a verbatim trigger whose rounded score is under the
  // worst one's is out at one compare, before any object is made (every one, when the worst
  // holds a verbatim trigger).
  let bar = Number.NEGATIVE_INFINITY;
  // `tieRound(x) < bar` without rounding every candidate: Math.round(y) < B ⟺ y < B − 0.5 for
  // an integer B (exact while B − 0.5 is representable, far beyond any BM25 score).
  let below = Number.NEGATIVE_INFINITY;
  for (const s of scores) {
    const { acc, exact, candidates } = s;
    const hidden = s.part.hidden;
    const { triggered } = s;
    const consider = (slot: number) => {
      if (hidden(slot)) return;
      const x = scoredOf(s, slot);
      if (top.length === k && compare(x, top[k - 1]!) >= 0) return;
      let i = Math.min(top.length, k - 1);
      if (top.length < k) top.push(x);
      while (i > 0 && compare(x, top[i - 1]!) < 0) {
        top[i] = top[i - 1]!;
        i--;
      }
      top[i] = x;
      if (top.length === k) {
        const worst = top[k - 1]!;
        bar = worst.exactWords > 0 ? Number.POSITIVE_INFINITY : tieRound(worst.bm25);
        below = Math.abs(bar) < 2 ** 52 ? bar - 0.5 : bar;
      }
    };
    for (let i = 0; i < candidates.length; i++) {
      const slot = candidates[i]!;
      // An unscored trigger-phrase slot (the live list keeps them) is taken once, below.
      if (acc[slot] === 0 || (acc[slot]! * 1e9 < below && triggered[slot] === 0)) continue;
      consider(slot);
    }
    // Unscored trigger-phrase slots: of those that can be among the k best, when only they were
    // scored (the others have shorter phrases).
    if (s.triggeredOnly) {
      for (let i = 0; i < candidates.length; i++) if (acc[candidates[i]!] === 0) consider(candidates[i]!);
    } else for (const slot of exact.keys()) if (acc[slot] === 0) consider(slot);
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
  const { terms, scores, pool, rank, settle, dense } = run(catalog, message, limit, opts);
  try {
    return rank(topK(scores, pool(limit)))
      .filter((s) => !dense || s.exactWords > 0 || (s.confidence ?? s.fused) >= dense.f.minScore)
      .slice(0, limit)
      .map((s) => toMatch(s, terms));
  } finally {
    settle();
    release(scores);
  }
}

/**
 * The phase-1 score a match needs to be put in front of the model as an index line (a trigger
 * phrase, scoring 1 and above, always is). Calibrated with `bench/match-threshold.ts` on the
 * retrieval harness (docs/benchmarks.md): on the 17-skill seed catalog it costs the tuning
 * split 3 points of recall (0.935 to 0.907) for precision 0.22 to 0.31, and keeps most small talk
 * and "what is 2+40" out; the model can still find a weaker match with `search_skills`.
 */
export const PROMPT_MIN_SCORE = 0.65;

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
      ...(run1.dense ? { dense: s.dense == null ? null : round(s.dense) } : {}),
      ...(run1.dense?.second ? { dense_second: s.second == null ? null : round(s.second) } : {}),
      exact_trigger: s.exactPhrase,
      fields: matchedFields(s, terms),
    })),
  };
  if (opts.skill !== undefined) out.skill = verdict(opts.skill, opts.skill_scope, ps, scores, pool, limit);
  run1.settle();
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
    const overridden = ps.some((p) => p !== part && p.scope === 'workspace' && p.index.byKey.has(key));
    const reason = overridden ? 'overridden' : 'switched_off';
    return { name: real, scope: part.scope, rank: null, score: null, reason, above: null };
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
    score: round((me.exactWords > 0 ? 1 : 0) + (me.confidence ?? me.fused)),
    reason: above < limit ? 'matched' : 'lower_score',
    above,
  };
}
