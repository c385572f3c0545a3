import type { SkillCatalog } from '../skills/index.js';
import { type DenseProgress, denseIndex } from './dense.js';
import { e5Engine, e5Status } from './e5.js';
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
}

/**
 * Start embedding, off the main thread, every skill of the catalog that has no e5 vector yet
 * (imported or saved since): resolves when all have one. Safe to call on every match: a store
 * already being embedded shares its run. `onProgress` reports each batch (large imports).
 */
export function embedCatalog(catalog: SkillCatalog, onProgress?: (p: DenseProgress) => void): Promise<void> {
  const engine = e5Engine();
  if (!engine) return Promise.resolve();
  const runs = catalog.stores().map((s) => denseIndex(skillIndex(s.db), engine)?.embedMissing(onProgress));
  return Promise.all(runs).then(() => undefined);
}

/** How far the catalog's e5 vectors are, and why the signal is off when it is. */
export function e5MatchStatus(catalog: SkillCatalog): E5MatchStatus {
  const { embedding: _, ...status } = semanticStatus(catalog);
  return status;
}

/** {@link e5MatchStatus}, and whether vectors are being computed now in any store (one pass). */
export function semanticStatus(catalog: SkillCatalog): E5MatchStatus & { embedding: boolean } {
  const status = e5Status();
  const engine = e5Engine();
  if (!engine) return { used: false, reason: status.reason, embedded: 0, total: 0, embedding: false };
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
}

/** The message's e5 vector for phase 1, computed on the thread pool; null when not in use. */
export async function denseQuery(message: string): Promise<MatchOptions['dense']> {
  const engine = e5Engine();
  // A message of stopwords alone asks for nothing, by words or by meaning.
  if (!engine || contentWords(message).length === 0) return null;
  const text = message.slice(0, MAX_MESSAGE_CHARS);
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
  return { engine, vector: await vector };
}

/**
 * The vectors of the last messages asked about, by model and text, in use order. The app matches
 * the chat's draft as the user types; when the draft is sent, its vector is already here (or on
 * its way), so the turn does not wait for the model a second time. Vectors are never mutated by
 * their users, so sharing one is safe.
 */
const recentQueries = new Map<string, Promise<Float32Array>>();
const RECENT_QUERIES = 64;

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
