import type { SkillCatalog } from '../skills/index.js';
import { type DenseProgress, denseIndex } from './dense.js';
import { type E5Engine, e5Engine, e5Status, minilmEngine, minilmStatus } from './e5.js';
import {
  explainMatch,
  type MatchExplanation,
  type MatchOptions,
  matchSkills,
  type SkillMatch,
} from './phase1.js';
import { skillIndex } from './skill-index.js';
import { contentWords, MAX_MESSAGE_CHARS } from './text.js';

/** Whether the e5 signal ranked a match, and how much of the catalog it covers. */
export interface E5MatchStatus {
  used: boolean;
  reason?: string;
  model?: string;
  embedded: number;
  total: number;
  /** The second model (all-MiniLM-L6-v2), fused beside e5: the same account of it. */
  second?: Omit<E5MatchStatus, 'second'>;
}

/** The sentence models in use: e5 first; the second model only beside it. */
function engines(): E5Engine[] {
  const e5 = e5Engine();
  if (!e5) return [];
  const mini = minilmEngine();
  return mini ? [e5, mini] : [e5];
}

/**
 * Start embedding, off the main thread, every skill of the catalog that has no e5 vector yet
 * (imported or saved since): resolves when all have one. Safe to call on every match: a store
 * already being embedded shares its run. `onProgress` reports each batch (large imports).
 */
export async function embedCatalog(
  catalog: SkillCatalog,
  onProgress?: (p: DenseProgress) => void,
): Promise<void> {
  const all = engines();
  if (all.length === 0) return;
  const stores = catalog.stores().map((s) => skillIndex(s.db));
  // One model after the other: each run already keeps both cores busy, and e5's vectors (the
  // ones the cut and the confidence read) come first. Progress counts both models' vectors.
  const progress = () => {
    let embedded = 0;
    let total = 0;
    for (const e of all)
      for (const ix of stores) {
        const p = denseIndex(ix, e)?.progress();
        embedded += p?.embedded ?? 0;
        total += p?.total ?? 0;
      }
    // In skills: one count that rises once through both models' runs.
    return { embedded: Math.floor(embedded / all.length), total: Math.round(total / all.length) };
  };
  for (const engine of all)
    await Promise.all(
      stores.map((ix) =>
        denseIndex(ix, engine)?.embedMissing(onProgress ? () => onProgress(progress()) : undefined),
      ),
    );
}

/** How far the catalog's e5 vectors are, and why the signal is off when it is. */
export function e5MatchStatus(catalog: SkillCatalog): E5MatchStatus {
  const { embedding: _, ...status } = semanticStatus(catalog);
  return status;
}

/** {@link e5MatchStatus}, and whether vectors are being computed now in any store (one pass). */
export function semanticStatus(catalog: SkillCatalog): E5MatchStatus & { embedding: boolean } {
  const one = (engine: E5Engine | null, reason: string | undefined) => {
    if (!engine) return { used: false, reason, embedded: 0, total: 0, embedding: false };
    let embedded = 0;
    let total = 0;
    let embedding = false;
    for (const s of catalog.stores()) {
      const d = denseIndex(skillIndex(s.db), engine);
      const p = d?.progress();
      embedded += p?.embedded ?? 0;
      total += p?.total ?? 0;
      embedding ||= d?.busy === true;
    }
    return {
      used: embedded > 0,
      ...(embedded === 0 && total > 0 ? { reason: 'no skill has a vector yet' } : {}),
      model: engine.id,
      embedded,
      total,
      embedding,
    };
  };
  const e5 = e5Engine();
  const first = one(e5, e5Status().reason);
  if (!e5) return first;
  const { embedding, ...second } = one(minilmEngine(), minilmStatus().reason);
  return { ...first, second, embedding: first.embedding || embedding };
}

/** The message's e5 vector for phase 1, computed on the thread pool; null when not in use. */
export async function denseQuery(message: string): Promise<MatchOptions['dense']> {
  const [engine, mini] = engines();
  // A message of stopwords alone asks for nothing, by words or by meaning.
  if (!engine || contentWords(message).length === 0) return null;
  const text = message.slice(0, MAX_MESSAGE_CHARS);
  // Both models' vectors at once, on the thread pool's two threads.
  const [vector, second] = await Promise.all([
    queryVector(engine, text),
    mini ? queryVector(mini, text).catch(() => null) : null,
  ]);
  return { engine, vector, ...(mini && second ? { second: { engine: mini, vector: second } } : {}) };
}

function queryVector(engine: E5Engine, text: string): Promise<Float32Array> {
  const key = `${engine.id}\u0000${text}`;
  let vector = recentQueries.get(key);
  if (vector) recentQueries.delete(key);
  else {
    vector = engine.query(text);
    // A failed embedding is not kept: the next ask tries again.
    vector.catch(() => recentQueries.delete(key));
  }
  recentQueries.set(key, vector);
  if (recentQueries.size > RECENT_QUERIES) recentQueries.delete(recentQueries.keys().next().value!);
  return vector;
}

/**
 * The vectors of the last messages asked about, by model and text, in use order. The app matches
 * the chat's draft as the user types; when the draft is sent, its vector is already here (or on
 * its way), so the turn does not wait for the model a second time. Vectors are never mutated by
 * their users, so sharing one is safe.
 */
const recentQueries = new Map<string, Promise<Float32Array>>();
const RECENT_QUERIES = 128;

/**
 * The full phase 1: the fast path fused with the catalog-centred e5 cosine (when installed), the
 * message's embedding computed off the main thread. Skills not embedded yet are queued for the
 * background and match by the fast path's signals meanwhile.
 */
export async function matchSkillsFull(
  catalog: SkillCatalog,
  message: string,
  opts: MatchOptions = {},
): Promise<SkillMatch[]> {
  const dense = opts.dense === undefined ? await denseQuery(message) : opts.dense;
  void embedCatalog(catalog).catch(() => undefined);
  return matchSkills(catalog, message, { ...opts, dense });
}

/** {@link explainMatch} of the full phase 1, with the e5 model's status. */
export async function explainMatchFull(
  catalog: SkillCatalog,
  message: string,
  opts: Parameters<typeof explainMatch>[2] = {},
): Promise<MatchExplanation & { e5: E5MatchStatus }> {
  const dense = opts.dense === undefined ? await denseQuery(message) : opts.dense;
  void embedCatalog(catalog).catch(() => undefined);
  const out = explainMatch(catalog, message, { ...opts, dense });
  return { ...out, e5: e5MatchStatus(catalog) };
}
