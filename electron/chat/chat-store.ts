import { randomUUID } from 'node:crypto';
import { contentWords, stem, stemsOf, type TermSnapshot, termStats } from '../activation/index.js';
import type { ChatMessageView, ChatModelChoice, ChatSessionView, ToolCallView } from '../contract/chat.js';
import type { ErrorCode } from '../contract/errors.js';
import { type Db, writeTransaction } from '../store/index.js';

/** A chat session as stored: the contract's view without what only the host knows. */
export type ChatSession = Omit<ChatSessionView, 'running' | 'message_count' | 'model'> & {
  message_count?: number;
  /** The last message of the branch the session shows (null: no messages yet). */
  leaf_id?: string | null;
  /** The model this chat uses; null follows Settings. */
  model?: ChatModelChoice | null;
};

/**
 * A file sent with a user message: a text file goes into the model's context and to skills; an
 * image (`data`, base64) goes to models that read images (its `text` is empty).
 */
export interface StoredAttachment {
  name: string;
  media_type: string;
  size: number;
  text: string;
  data?: string;
  /** The file itself, kept in the user's file store (its SHA-256), for scripts. */
  file?: string;
}

/** One search hit over the stored messages. */
export interface MessageHit {
  session_id: string;
  session_title: string;
  message_id: string;
  role: 'user' | 'assistant';
  /** The matching passage, the matched words between `[` and `]`. */
  snippet: string;
  created_at: string;
}

/** One recorded tool call of an assistant message: the contract's view, its result always kept. */
export type ToolCallRecord = ToolCallView & { result: unknown };

/**
 * A stored chat message: the contract's view plus its place in the session; tool calls and trace
 * ids are null when there were none.
 */
export type ChatMessage = Omit<
  ChatMessageView,
  'tool_calls' | 'trace_ids' | 'attachments' | 'sibling_ids'
> & {
  seq: number;
  session_id: string;
  tool_calls: ToolCallRecord[] | null;
  trace_ids: string[] | null;
  skills: unknown;
  /** The message this one follows in its branch; null for a first message. */
  parent_id: string | null;
  attachments: StoredAttachment[] | null;
};

/** The branch a session shows, with each message's place among its alternatives. */
export interface BranchMessage extends ChatMessage {
  /** The ids of the messages sharing this one's parent (itself included), oldest first. */
  sibling_ids: string[];
}

/** A message recalled as memory for a new turn. */
export interface RecalledMemory {
  session_id: string;
  message_id: string;
  role: 'user' | 'assistant';
  content: string;
  created_at: string;
  /**
   * Relevance in [0, 1]: the share of the message's information (its words weighted by rarity)
   * that this memory contains. It means the same at 5 stored messages as at 50,000.
   */
  score: number;
}

/** How memory is recalled for a turn. */
export interface RecallOptions {
  /** `workspace`: every session of the store (default); `session`: the current one only. */
  scope?: 'workspace' | 'session';
  session_id?: string;
  limit?: number;
  min_score?: number;
  /**
   * How many of the current session's last messages are left out (they are already in the
   * conversation sent to the model). Default 20, the turn's default history.
   */
  skip_recent?: number;
}

type Row = Omit<ChatMessage, 'tool_calls' | 'trace_ids' | 'skills' | 'error' | 'attachments'> & {
  attachments: string | null;
  tool_calls: string | null;
  trace_ids: string | null;
  skills: string | null;
  error: string | null;
  error_code: ErrorCode | null;
  error_message: string | null;
};

const parse = <T>(s: string | null): T | null => (s == null ? null : (JSON.parse(s) as T));

/** Sessions and messages in an `agents.db`, with FTS5 recall over earlier messages. */
export class ChatStore {
  private readonly s;

  constructor(
    readonly db: Db,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.s = {
      insertSession: db.prepare(
        'INSERT INTO chat_sessions (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)',
      ),
      touch: db.prepare('UPDATE chat_sessions SET updated_at = ?, leaf_id = ? WHERE id = ?'),
      setLeaf: db.prepare('UPDATE chat_sessions SET leaf_id = ? WHERE id = ?'),
      setModel: db.prepare('UPDATE chat_sessions SET model = ? WHERE id = ?'),
      leaf: db.prepare('SELECT leaf_id FROM chat_sessions WHERE id = ?').pluck(),
      message: db.prepare('SELECT * FROM chat_messages WHERE id = ? AND session_id = ?'),
      // From a message up its parents, nearest first, at most `limit` (the depth bounds a cycle).
      // CROSS JOIN keeps the walk first: left to the planner, the last step scanned every message
      // of the session by its session index and probed the walk, so a turn cost grew with the chat.
      branchUp: db.prepare(`WITH RECURSIVE up(id, depth) AS (
          SELECT @id, 0
          UNION ALL
          SELECT m.parent_id, up.depth + 1 FROM up JOIN chat_messages m ON m.id = up.id AND m.session_id = @session
          WHERE m.parent_id IS NOT NULL AND up.depth + 1 < @limit
        )
        SELECT m.* FROM up CROSS JOIN chat_messages m ON m.id = up.id AND m.session_id = @session ORDER BY up.depth`),
      search:
        db.prepare(`SELECT m.session_id, s.title AS session_title, m.id AS message_id, m.role, m.created_at,
        snippet(chat_messages_fts, 0, '[', ']', '…', 12) AS snippet
        FROM chat_messages_fts JOIN chat_messages m ON m.seq = chat_messages_fts.rowid
        JOIN chat_sessions s ON s.id = m.session_id
        WHERE chat_messages_fts MATCH ? ORDER BY bm25(chat_messages_fts), m.seq DESC LIMIT ?`),
      usage:
        db.prepare(`SELECT coalesce(sum(input_tokens), 0) AS input_tokens, coalesce(sum(output_tokens), 0) AS output_tokens,
        sum(estimated_cost) AS estimated_cost FROM chat_messages WHERE session_id = ?`),
      title: db.prepare("UPDATE chat_sessions SET title = ? WHERE id = ? AND title = ''"),
      rename: db.prepare('UPDATE chat_sessions SET title = ? WHERE id = ?'),
      retitle: db.prepare('UPDATE chat_sessions SET title = ? WHERE id = ? AND title = ?'),
      deleteMessages: db.prepare('DELETE FROM chat_messages WHERE session_id = ?'),
      deleteSession: db.prepare('DELETE FROM chat_sessions WHERE id = ?'),
      session: db.prepare(
        'SELECT s.*, (SELECT count(*) FROM chat_messages m WHERE m.session_id = s.id) AS message_count FROM chat_sessions s WHERE s.id = ?',
      ),
      sessions: db.prepare(
        'SELECT s.*, (SELECT count(*) FROM chat_messages m WHERE m.session_id = s.id) AS message_count FROM chat_sessions s ORDER BY s.updated_at DESC, s.rowid DESC LIMIT ?',
      ),
      insert:
        db.prepare(`INSERT INTO chat_messages (id, session_id, parent_id, role, content, status, tool_calls, trace_ids, skills,
        attachments, model_id, input_tokens, output_tokens, estimated_cost, error_code, error_message, created_at)
        VALUES (@id, @session_id, @parent_id, @role, @content, @status, @tool_calls, @trace_ids, @skills, @attachments,
        @model_id, @input_tokens, @output_tokens, @estimated_cost, @error_code, @error_message, @created_at)`),
      messages: db.prepare('SELECT * FROM chat_messages WHERE session_id = ? ORDER BY seq'),
      lastSeqs: db
        .prepare('SELECT seq FROM chat_messages WHERE session_id = ? ORDER BY seq DESC LIMIT ?')
        .pluck(),
      // One term's rows: a doclist walk, with none of bm25's per-row size lookups.
      termRows: db.prepare('SELECT rowid FROM chat_messages_fts WHERE chat_messages_fts MATCH ?').pluck(),
      recallRows: db.prepare(`SELECT seq, id AS message_id, session_id, role, content, created_at
        FROM chat_messages WHERE seq IN (SELECT value FROM json_each(?))`),
      recallSession:
        db.prepare(`SELECT m.seq, m.id AS message_id, m.session_id, m.role, m.content, m.created_at, bm25(chat_messages_fts) AS rank
        FROM chat_messages_fts JOIN chat_messages m ON m.seq = chat_messages_fts.rowid
        WHERE chat_messages_fts MATCH ? AND m.session_id = ? ORDER BY rank, m.seq DESC LIMIT ?`),
    };
  }

  /** Start a session. */
  createSession(title = ''): ChatSession {
    const id = randomUUID();
    const at = this.now().toISOString();
    this.s.insertSession.run(id, title.slice(0, 120), at, at);
    return { id, title, created_at: at, updated_at: at, message_count: 0 };
  }

  /** A session by id, or null. */
  getSession(id: string): ChatSession | null {
    const row = this.s.session.get(id) as (ChatSession & { model: string | null }) | undefined;
    return row ? { ...row, model: parse<ChatModelChoice>(row.model) } : null;
  }

  /** How many sessions this store keeps. */
  countSessions(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM chat_sessions').get() as { n: number }).n;
  }

  /** Sessions, most recently active first. */
  listSessions(limit = 100): ChatSession[] {
    return (this.s.sessions.all(limit) as Array<ChatSession & { model: string | null }>).map((r) => ({
      ...r,
      model: parse<ChatModelChoice>(r.model),
    }));
  }

  /** Choose the model of a chat (null: follow Settings); false when there is no such session. */
  setModel(id: string, model: ChatModelChoice | null): boolean {
    return this.s.setModel.run(model ? JSON.stringify(model) : null, id).changes > 0;
  }

  /** One message of a session, or null. */
  getMessage(sessionId: string, messageId: string): ChatMessage | null {
    const row = this.s.message.get(messageId, sessionId) as Row | undefined;
    return row ? toMessage(row) : null;
  }

  /**
   * The branch a session shows: from its first message to its leaf, each with its siblings (the
   * alternatives an edit or a regeneration left), so any older branch stays reachable.
   */
  branch(sessionId: string): BranchMessage[] {
    const all = this.listMessages(sessionId);
    const leaf = this.s.leaf.get(sessionId) as string | null | undefined;
    return withSiblings(all, pathTo(all, leaf ?? all.at(-1)?.id ?? null));
  }

  /**
   * The messages up to and including `messageId` on its branch, oldest first (the whole branch's
   * history a new message after it continues). Empty for null.
   */
  pathTo(sessionId: string, messageId: string | null): ChatMessage[] {
    return pathTo(this.listMessages(sessionId), messageId);
  }

  /**
   * Show the branch through `messageId`: the leaf becomes its newest descendant (following the
   * newest child at each step). False when the message is not in the session.
   */
  switchBranch(sessionId: string, messageId: string): boolean {
    const all = this.listMessages(sessionId);
    if (!all.some((m) => m.id === messageId)) return false;
    const children = new Map<string, ChatMessage[]>();
    for (const m of all)
      if (m.parent_id) children.set(m.parent_id, [...(children.get(m.parent_id) ?? []), m]);
    let leaf = messageId;
    for (let next = children.get(leaf); next?.length; next = children.get(leaf)) leaf = next.at(-1)!.id;
    this.s.setLeaf.run(leaf, sessionId);
    return true;
  }

  /** Messages of every session matching `query` (words, all required; a trailing `*` for a prefix), best first. */
  search(query: string, limit = 50): MessageHit[] {
    const match = ftsQuery(query);
    if (!match) return [];
    return this.s.search.all(match, limit) as MessageHit[];
  }

  /** Tokens and cost of every reply of a session, every branch included. */
  usage(sessionId: string): { input_tokens: number; output_tokens: number; estimated_cost: number | null } {
    return this.s.usage.get(sessionId) as {
      input_tokens: number;
      output_tokens: number;
      estimated_cost: number | null;
    };
  }

  /** Delete a session and its messages (explicitly, so the FTS triggers see each row). False when absent. */
  deleteSession(id: string): boolean {
    return writeTransaction(this.db, () => {
      this.s.deleteMessages.run(id);
      return this.s.deleteSession.run(id).changes > 0;
    });
  }

  /**
   * Replace a session's title only while it is still `expected`: a title the user set meanwhile is
   * never overwritten. True when it was replaced.
   */
  replaceTitle(id: string, expected: string, title: string): boolean {
    return this.s.retitle.run(title.replace(/\s+/g, ' ').trim().slice(0, 120), id, expected).changes > 0;
  }

  /** Set a session's title; null when there is no such session. */
  renameSession(id: string, title: string): ChatSession | null {
    this.s.rename.run(title.replace(/\s+/g, ' ').trim().slice(0, 120), id);
    return this.getSession(id);
  }

  /**
   * Add a message after `parent_id` (default: the end of the branch shown) and show its branch;
   * the first user message names an untitled session.
   */
  addMessage(
    m: Omit<ChatMessage, 'seq' | 'id' | 'created_at' | 'parent_id' | 'attachments'> & {
      id?: string;
      parent_id?: string | null;
      attachments?: StoredAttachment[] | null;
    },
  ): ChatMessage {
    const parentId =
      m.parent_id !== undefined ? m.parent_id : ((this.s.leaf.get(m.session_id) as string | null) ?? null);
    const row = {
      id: m.id ?? randomUUID(),
      session_id: m.session_id,
      parent_id: parentId,
      attachments: m.attachments?.length ? JSON.stringify(m.attachments) : null,
      role: m.role,
      content: m.content,
      status: m.status,
      tool_calls: m.tool_calls ? JSON.stringify(m.tool_calls) : null,
      trace_ids: m.trace_ids?.length ? JSON.stringify(m.trace_ids) : null,
      skills: m.skills == null ? null : JSON.stringify(m.skills),
      model_id: m.model_id,
      input_tokens: m.input_tokens,
      output_tokens: m.output_tokens,
      estimated_cost: m.estimated_cost,
      error_code: m.error?.code ?? null,
      error_message: m.error?.message ?? null,
      created_at: this.now().toISOString(),
    };
    const seq = writeTransaction(this.db, () => {
      const info = this.s.insert.run(row);
      this.s.touch.run(row.created_at, row.id, m.session_id);
      if (m.role === 'user') this.s.title.run(titleOf(m.content), m.session_id);
      return Number(info.lastInsertRowid);
    });
    const { error_code: _c, error_message: _m, attachments: _a, ...stored } = row;
    return {
      ...m,
      ...stored,
      attachments: m.attachments?.length ? m.attachments : null,
      seq,
      tool_calls: m.tool_calls,
      trace_ids: m.trace_ids,
      skills: m.skills,
      error: m.error,
    };
  }

  /** Every message of a session, oldest first. */
  listMessages(sessionId: string): ChatMessage[] {
    return (this.s.messages.all(sessionId) as Row[]).map(toMessage);
  }

  /**
   * The last `n` non-error messages of the branch ending at `parentId` (default: the branch shown),
   * oldest first: the conversation sent to the model.
   */
  recentMessages(sessionId: string, n: number, parentId?: string | null): ChatMessage[] {
    if (n <= 0) return [];
    const end = parentId !== undefined ? parentId : ((this.s.leaf.get(sessionId) as string | null) ?? null);
    // Up the branch from its end, one message at a time, only as far as the conversation sent
    // needs: a turn's cost does not grow with the length of the chat.
    // The branch is read in steps of one query each (a recursive walk of up to `n` + 8 messages:
    // most branches have few failed replies to skip), not one query per message.
    const history: ChatMessage[] = [];
    const seen = new Set<string>();
    let id: string | null = end;
    while (id && history.length < n && !seen.has(id)) {
      const rows = this.s.branchUp.all({ id, session: sessionId, limit: n + 8 }) as Row[];
      if (rows.length === 0) break;
      for (const row of rows) {
        if (seen.has(row.id) || history.length >= n) {
          id = null;
          break;
        }
        seen.add(row.id);
        const m = toMessage(row);
        if (m.status !== 'error') history.push(m);
        id = m.parent_id;
      }
    }
    return history.reverse();
  }

  /**
   * Earlier messages relevant to `text`, best first (recency breaks ties). FTS5 finds the
   * candidates; each is then scored by {@link memoryScore}, which is comparable across workspace
   * sizes. Call it before storing the new message, so a message never recalls itself.
   */
  recall(text: string, opts: RecallOptions = {}): RecalledMemory[] {
    const limit = Math.max(0, Math.min(opts.limit ?? 5, 50));
    const minScore = opts.min_score ?? 0.3;
    // A new session has no earlier messages of its own.
    if (limit === 0 || (opts.scope === 'session' && !opts.session_id)) return [];
    const stats = termStats(this.db, 'chat_messages_fts', 'chat_messages').snapshot();
    const terms = recallTerms(text).map((w) => ({ w, stem: stem(w), df: stats.df(`"${w}"`) }));
    const known = terms.filter((t) => t.df > 0);
    if (known.length === 0) return [];
    const query = stats
      .prune(
        known.map((t) => `"${t.w}"`),
        RECALL_POSTINGS_BUDGET,
      )
      .join(' OR ');
    const skip = opts.session_id ? Math.max(0, opts.skip_recent ?? 20) : 0;
    const skipped = new Set(skip > 0 ? (this.s.lastSeqs.all(opts.session_id, skip) as number[]) : []);
    const fetch = Math.max(50, limit * 10) + skipped.size;
    const n = stats.rows;
    const weighted = terms.map((t) => ({ stem: t.stem, df: t.df, weight: termWeight(t.df, n) }));
    const rows = (
      opts.scope === 'session'
        ? this.s.recallSession.all(query, opts.session_id, fetch)
        : this.s.recallRows.all(JSON.stringify(this.candidates(stats, query, fetch)))
    ) as Array<Omit<RecalledMemory, 'score'> & { seq: number; rank?: number }>;
    return rows
      .filter((r) => !skipped.has(r.seq))
      .map(({ seq, rank: _rank, ...r }) => ({
        seq,
        m: { ...r, score: round4(memoryScore(weighted, r.content)) },
      }))
      .filter((x) => x.m.score >= minScore && x.m.score > 0)
      .sort((a, b) => b.m.score - a.m.score || b.seq - a.seq)
      .slice(0, limit)
      .map((x) => x.m);
  }

  /**
   * The `fetch` messages that share the most information with the query: each row scores the sum
   * of the weights of the pruned query's terms it contains, newer rows first among equals. Only
   * candidates: {@link memoryScore} ranks them. Scoring the doclists here rather than by FTS5's
   * bm25 skips a document-size lookup per matching row, most of recall's time in a large store.
   */
  private candidates(stats: TermSnapshot, query: string, fetch: number): number[] {
    const score = new Map<number, number>();
    for (const token of query.split(' OR ')) {
      const weight = termWeight(stats.df(token), stats.rows);
      for (const seq of this.s.termRows.all(token) as number[])
        score.set(seq, (score.get(seq) ?? 0) + weight);
    }
    return [...score]
      .sort((a, b) => b[1] - a[1] || b[0] - a[0])
      .slice(0, fetch)
      .map(([seq]) => seq);
  }
}

// Rows of the FTS5 index one recall may walk: its rarest terms are kept until they pass it. The
// candidates are only a pool for memoryScore, whose rarer terms weigh most, so the commonest terms
// add rows that seldom reach the top five. At 10,000 messages, against a budget of 3,000: recall
// 1.46 → 0.99 ms p50 and 4.27 → 1.60 ms p95, with 1,299 of 1,317 top-five memories the same.
const RECALL_POSTINGS_BUDGET = 1500;

// Words that ask for memory rather than say what it is about ("what did I mention earlier?").
const RECALL_STOPWORDS = new Set(
  `ask asked asking earlier before previously remember remembered recall mention mentioned said say told tell talk
  talked discuss discussed last ago again conversation chat chats message messages`.split(/\s+/),
);

/** The content words of a message that memory is searched for. */
export function recallTerms(text: string): string[] {
  return contentWords(text, RECALL_STOPWORDS);
}

// Pseudo-messages that contain none of the query's words: a prior that keeps a tiny store's
// rarity weights near uniform instead of near zero, so scores mean the same at every size.
const PRIOR_MESSAGES = 100;

/** How informative a word is: its inverse document frequency with a prior. Never zero. */
export function termWeight(df: number, messages: number): number {
  return Math.log(1 + (messages + PRIOR_MESSAGES) / (df + 0.5));
}

const K1 = 1.2;
const B = 0.25;
// A fixed reference length (words), so a message's score does not move as the store grows.
const REF_LENGTH = 40;

/**
 * The share of the query's information that `content` holds: for each query word it contains, the
 * word's weight times a saturating term-frequency factor (1 at one occurrence in a message of
 * typical length, less in a long one), over the sum of the weights of the query's words. Words no
 * stored message contains count half, so a question with new words still finds what it shares.
 */
export function memoryScore(
  terms: ReadonlyArray<{ stem: string; df: number; weight: number }>,
  content: string,
): number {
  const { tf, length } = termFrequencies(content);
  const norm = 1 - B + (B * length) / REF_LENGTH;
  let total = 0;
  let got = 0;
  const seen = new Set<string>();
  for (const t of terms) {
    if (seen.has(t.stem)) continue;
    seen.add(t.stem);
    total += t.df > 0 ? t.weight : t.weight / 2;
    const f = tf.get(t.stem) ?? 0;
    if (f > 0) got += t.weight * Math.min(1, (f * (K1 + 1)) / (f + K1 * norm));
  }
  return total > 0 ? got / total : 0;
}

/** Stemmed term frequencies of recently scored texts, most recently used last. */
const TF_CACHE = new Map<string, { tf: Map<string, number>; length: number }>();
/**
 * Bounded by the text it holds, not by entries: recall scores up to 70 candidates a turn drawn
 * from the whole store, so a count limit small enough for long messages missed on short ones.
 */
const TF_CACHE_CHARS = 4_000_000;
let tfCacheChars = 0;

/**
 * A text's stemmed term frequencies and length in words. Recall rescores the same earlier
 * messages turn after turn, and stemming them again was most of its time; the text itself is the
 * key, so a cached entry can never be stale.
 */
function termFrequencies(content: string): { tf: Map<string, number>; length: number } {
  const hit = TF_CACHE.get(content);
  if (hit) {
    TF_CACHE.delete(content);
    TF_CACHE.set(content, hit);
    return hit;
  }
  const stems = stemsOf(content);
  const tf = new Map<string, number>();
  for (const s of stems) tf.set(s, (tf.get(s) ?? 0) + 1);
  const entry = { tf, length: stems.length };
  TF_CACHE.set(content, entry);
  tfCacheChars += content.length;
  while (tfCacheChars > TF_CACHE_CHARS && TF_CACHE.size > 1) {
    const oldest = TF_CACHE.keys().next().value!;
    TF_CACHE.delete(oldest);
    tfCacheChars -= oldest.length;
  }
  return entry;
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

function titleOf(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 57)}…` : line;
}

/** The branch ending at `leafId`, oldest first (empty for null or an unknown id). */
function pathTo(all: ChatMessage[], leafId: string | null): ChatMessage[] {
  const byId = new Map(all.map((m) => [m.id, m]));
  const path: ChatMessage[] = [];
  for (
    let m = leafId ? byId.get(leafId) : undefined;
    m;
    m = m.parent_id ? byId.get(m.parent_id) : undefined
  ) {
    path.push(m);
    if (path.length > all.length) break; // a cycle cannot be stored, but never loop on one
  }
  return path.reverse();
}

function withSiblings(all: ChatMessage[], path: ChatMessage[]): BranchMessage[] {
  const byParent = new Map<string, string[]>();
  for (const m of all) {
    const k = m.parent_id ?? '';
    byParent.set(k, [...(byParent.get(k) ?? []), m.id]);
  }
  return path.map((m) => ({ ...m, sibling_ids: byParent.get(m.parent_id ?? '') ?? [m.id] }));
}

/**
 * An FTS5 query from what a user typed: each word quoted (so operators and punctuation are plain
 * text), all required; a word ending in `*` matches as a prefix. Null when nothing is searchable.
 */
export function ftsQuery(text: string): string | null {
  const words = text
    .normalize('NFKC')
    .split(/\s+/)
    .map((w) => ({ prefix: w.endsWith('*'), w: w.replace(/["*]/g, '').trim() }))
    .filter((x) => /[\p{L}\p{N}]/u.test(x.w))
    .slice(0, 20);
  if (words.length === 0) return null;
  return words.map((x) => `"${x.w}"${x.prefix ? '*' : ''}`).join(' ');
}

function toMessage(r: Row): ChatMessage {
  const { error_code, error_message, error: _legacy, ...rest } = r;
  return {
    ...rest,
    attachments: parse(r.attachments),
    tool_calls: parse(r.tool_calls),
    trace_ids: parse(r.trace_ids),
    skills: parse(r.skills),
    error: error_code ? { code: error_code, message: error_message ?? '' } : null,
  };
}
