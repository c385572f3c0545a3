import type { MatchFieldName } from '../contract/skills.js';
import type { SkillCatalog } from '../skills/catalog.js';
import type { Db } from '../store/db.js';
import { normalizePhrase } from '../store/skill-repository.js';
import type { Scope, SkillStore } from '../store/stores.js';
import { type TermStats, termStats } from './term-budget.js';

/** Which indexed field of a skill a message matched. `exact_trigger`: a trigger phrase occurs verbatim. */
export type MatchField = MatchFieldName;

/** One ranked skill for a message. */
export interface SkillMatch {
  name: string;
  scope: Scope;
  /** Relevance: [0, 1) from BM25, [1, 2) when a trigger phrase occurs verbatim. Higher ranks first. */
  score: number;
  matched_on: MatchField[];
}

const FIELDS: MatchField[] = ['name', 'description', 'tags', 'intent_patterns', 'trigger_phrases'];
const MAX_TOKENS = 32;
const MAX_NGRAM = 12;
const MAX_MESSAGE_CHARS = 4000;

// Words too common to say anything about which skill fits.
const STOPWORDS = new Set(
  `a about above after again against all am an and any are as at be because been before being below between both but by
  can could did do does doing down during each few for from further had has have having he her here hers herself him
  himself his how i if in into is it its itself just let me more most my myself no nor not now of off on once only or
  other our ours ourselves out over own please same she should so some such than that the their theirs them themselves
  then there these they this those through to too under until up very was we were what when where which while who whom
  why will with would you your yours yourself yourselves can't don't i'm it's thanks thank hi hello hey`.split(
    /\s+/,
  ),
);

/** The distinct content words of a message as quoted FTS5 terms (at most 32). */
export function queryTerms(message: string): string[] {
  return buildFtsQuery(message).split(' OR ').filter(Boolean);
}

/** The FTS5 query for a message: its distinct content words, quoted, OR-ed. Empty when none. */
export function buildFtsQuery(message: string): string {
  const words = normalizePhrase(message.slice(0, MAX_MESSAGE_CHARS)).split(' ');
  const picked: string[] = [];
  for (const w of words) {
    if (!w || STOPWORDS.has(w) || picked.includes(w)) continue;
    picked.push(w);
    if (picked.length >= MAX_TOKENS) break;
  }
  return picked.map((w) => `"${w}"`).join(' OR ');
}

/** Every run of 1..12 consecutive normalised words of the message (candidate trigger phrases). */
function ngrams(message: string): string[] {
  const words = normalizePhrase(message.slice(0, MAX_MESSAGE_CHARS)).split(' ').filter(Boolean);
  const out = new Set<string>();
  for (let i = 0; i < words.length; i++) {
    let phrase = '';
    for (let n = 0; n < MAX_NGRAM && i + n < words.length; n++) {
      phrase = n === 0 ? words[i]! : `${phrase} ${words[i + n]}`;
      out.add(phrase);
    }
  }
  return [...out];
}

interface Hit {
  id: string;
  name: string;
  scope: Scope;
  bm25: number;
  exactWords: number;
  fields: Set<MatchField>;
}

const statementCache = new WeakMap<Db, ReturnType<typeof prepare>>();

function prepare(db: Db) {
  const marks = FIELDS.map((_, i) => `highlight(skills_fts, ${i}, char(1), char(2)) AS h${i}`).join(', ');
  return {
    ranked: db.prepare(`SELECT s.id, s.name, f.rank AS rank, ${FIELDS.map((_, i) => `f.h${i}`).join(', ')}
      FROM (SELECT rowid, rank, ${marks} FROM skills_fts WHERE skills_fts MATCH ? ORDER BY rank LIMIT ?) f
      JOIN skills s ON s.rowid = f.rowid ORDER BY f.rank, s.name`),
    exact: db.prepare(`SELECT t.skill_id AS id, s.name, max(t.words) AS words FROM skill_triggers t
      JOIN skills s ON s.id = t.skill_id WHERE t.phrase IN (SELECT value FROM json_each(?)) GROUP BY t.skill_id`),
    has: db.prepare('SELECT 1 FROM skills WHERE name = ? COLLATE NOCASE'),
  };
}

function stmts(db: Db) {
  let s = statementCache.get(db);
  if (!s) {
    s = prepare(db);
    statementCache.set(db, s);
  }
  return s;
}

/**
 * Phase-1 activation: rank the merged catalog for a message, deterministically and without any
 * LLM call. BM25 over name, description, tags, intent patterns and trigger phrases (both stores,
 * workspace overriding account by name); a trigger phrase found verbatim in the message ranks first.
 * Queries stay within a work budget (see {@link TermStats.prune}): below it the ranking is exact.
 */
export function matchSkills(
  catalog: SkillCatalog,
  message: string,
  opts: { limit?: number; postingsBudget?: number } = {},
): SkillMatch[] {
  const limit = Math.max(1, Math.min(opts.limit ?? 5, 1000));
  const terms = queryTerms(message);
  const grams = JSON.stringify(ngrams(message));
  const hits = new Map<string, Hit>();
  const ws = catalog.workspace;

  const collect = (store: SkillStore, want: number) => {
    const s = stmts(store.db);
    const query = termStats(store.db, 'skills_fts', 'skills').prune(terms, opts.postingsBudget).join(' OR ');
    const hidden = (name: string) =>
      store.scope === 'account' && ws !== null && stmts(ws.db).has.get(name) !== undefined;
    let accepted = 0;
    if (query) {
      // Over-fetch from the account store so names hidden by the workspace do not leave holes.
      let fetch = store.scope === 'account' && ws ? want + 8 : want;
      for (;;) {
        const rows = s.ranked.all(query, fetch) as Array<Record<string, unknown>>;
        accepted = 0;
        for (const r of rows) {
          const name = r.name as string;
          if (hidden(name)) continue;
          accepted++;
          const fields = new Set<MatchField>();
          FIELDS.forEach((f, i) => {
            if (typeof r[`h${i}`] === 'string' && (r[`h${i}`] as string).includes('\u0001')) fields.add(f);
          });
          hits.set(`${store.scope}:${r.id}`, {
            id: r.id as string,
            name,
            scope: store.scope,
            bm25: -(r.rank as number),
            exactWords: 0,
            fields,
          });
        }
        if (accepted >= want || rows.length < fetch) break;
        fetch *= 4;
      }
    }
    for (const r of s.exact.all(grams) as Array<{ id: string; name: string; words: number }>) {
      if (hidden(r.name)) continue;
      const key = `${store.scope}:${r.id}`;
      const hit = hits.get(key) ?? {
        id: r.id,
        name: r.name,
        scope: store.scope,
        bm25: 0,
        exactWords: 0,
        fields: new Set(),
      };
      hit.exactWords = r.words;
      hit.fields.add('exact_trigger');
      hits.set(key, hit);
    }
  };

  for (const store of catalog.stores()) collect(store, limit);

  const ranked = [...hits.values()].sort(
    (a, b) =>
      Number(b.exactWords > 0) - Number(a.exactWords > 0) ||
      b.exactWords - a.exactWords ||
      b.bm25 - a.bm25 ||
      a.name.localeCompare(b.name) ||
      (a.scope === 'workspace' ? -1 : 1),
  );
  return ranked.slice(0, limit).map((h) => ({
    name: h.name,
    scope: h.scope,
    score: round((h.exactWords > 0 ? 1 : 0) + h.bm25 / (1 + h.bm25)),
    matched_on: [...h.fields].sort((x, y) => order(x) - order(y)),
  }));
}

const order = (f: MatchField) => (f === 'exact_trigger' ? -1 : FIELDS.indexOf(f));
const round = (x: number) => Math.round(x * 1e6) / 1e6;
