import type { Db } from '../store/index.js';

/** Default work budget: how many index entries one query may score. */
export const DEFAULT_POSTINGS_BUDGET = 3000;

interface Cache {
  rows: number;
  df: Map<string, number>;
}

/**
 * Document frequencies of query terms in one FTS5 table. Counts are cached while a large table's
 * size stays within 5% of when they were taken (they only steer which terms a query keeps); a
 * small table is recounted on any change, and a zero is never cached, so a newly added word is
 * found at once.
 */
export class TermStats {
  private readonly count;
  private readonly size_;
  private cache: Cache = { rows: -1, df: new Map() };

  constructor(db: Db, ftsTable: string, contentTable: string) {
    this.count = db.prepare(`SELECT count(*) FROM ${ftsTable} WHERE ${ftsTable} MATCH ?`).pluck();
    this.size_ = db.prepare(`SELECT coalesce(max(rowid), 0) FROM ${contentTable}`).pluck();
  }

  /**
   * The table as one query sees it: its size read once, and document frequencies cached against
   * it. Read the size per query, not per term: a recall looks up a dozen terms two or three times.
   */
  snapshot(): TermSnapshot {
    const rows = this.size_.get() as number;
    const tolerance = this.cache.rows < 2000 ? 0 : this.cache.rows * 0.05;
    if (Math.abs(rows - this.cache.rows) > tolerance) this.cache = { rows, df: new Map() };
    const cache = this.cache;
    const df = (token: string): number => {
      let d = cache.df.get(token);
      if (d === undefined) {
        d = this.count.get(token) as number;
        if (cache.df.size > 20_000) cache.df.clear();
        if (d > 0) cache.df.set(token, d);
      }
      return d;
    };
    return { rows, df, prune: (tokens, budget) => prune(df, tokens, budget) };
  }
}

/** One query's view of a table's term statistics (see {@link TermStats.snapshot}). */
export interface TermSnapshot {
  /** Rows in the content table (its largest rowid: deleted rows may still count). */
  readonly rows: number;
  /** How many rows contain `token` (a quoted FTS5 term). */
  df(token: string): number;
  /**
   * Keep a query within a work budget. BM25 in FTS5 scores every row that contains any query
   * term, so a message full of common words costs in proportion to how often they occur. Terms are
   * taken rarest first (the most informative); once the rows they match pass `budget`, the
   * remaining, most common terms are left out. At least two terms always stay, terms that match
   * nothing are dropped, and below the budget nothing changes: the ranking is exact BM25 over
   * every term.
   */
  prune(tokens: string[], budget?: number): string[];
}

function prune(df: (token: string) => number, tokens: string[], budget = DEFAULT_POSTINGS_BUDGET): string[] {
  const withDf = tokens.map((t, i) => ({ t, i, d: df(t) })).filter((x) => x.d > 0);
  const total = withDf.reduce((a, x) => a + x.d, 0);
  if (total <= budget) return withDf.map((x) => x.t);
  const kept: typeof withDf = [];
  let sum = 0;
  for (const x of [...withDf].sort((a, b) => a.d - b.d || a.i - b.i)) {
    if (kept.length >= 2 && sum + x.d > budget) break;
    kept.push(x);
    sum += x.d;
  }
  return kept.sort((a, b) => a.i - b.i).map((x) => x.t);
}

const perDb = new WeakMap<Db, Map<string, TermStats>>();

/** The TermStats of a table, one per connection. */
export function termStats(db: Db, ftsTable: string, contentTable: string): TermStats {
  let m = perDb.get(db);
  if (!m) {
    m = new Map();
    perDb.set(db, m);
  }
  let s = m.get(ftsTable);
  if (!s) {
    s = new TermStats(db, ftsTable, contentTable);
    m.set(ftsTable, s);
  }
  return s;
}
