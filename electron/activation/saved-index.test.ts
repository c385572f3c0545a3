import { crc32 } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { SkillCatalog } from '../skills/index.js';
import { openDatabase, openStore, type SkillStore } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { writeSkillCatalog } from '../test-support/skill-catalog.js';
import { denseText, denseTextHash } from './dense-text.js';
import { explainMatch, matchSkills } from './phase1.js';
import { skillIndex, warmSkillIndex } from './skill-index.js';
import { addSkill } from './test-catalog.js';

// Messages that exercise every part of phase 1: words in every field, a misspelling (spelling's
// deletion map), synonyms, a verbatim trigger phrase, a message of stopwords, words no skill has.
const MESSAGES = [
  'extract the tables from this pdf report',
  'plese reveiw the invoice draft',
  'deploy the schema and validate the query',
  'audit my spreadsheet',
  'ship the quarterly numbers now',
  'what is this',
  'zyzzyva quokka',
  'translate letter 17',
];

/** Every message's full explanation (ranking, scores, terms, fields) over a store at `dir`. */
function answers(store: SkillStore, workspace: SkillStore | null = null) {
  const c = new SkillCatalog(store, workspace);
  return MESSAGES.map((m) => ({
    explain: explainMatch(c, m, { limit: 8, thread: false }),
    match: matchSkills(c, m, { limit: 8, thread: false }),
  }));
}

const open: SkillStore[] = [];
/** A new connection to the account store at `dir` (a new process's, with its own index). */
function connect(dir: string): SkillStore {
  const s = openStore('account', dir)!;
  open.push(s);
  return s;
}
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

function catalogDir(): string {
  const dir = tempDir();
  writeSkillCatalog(dir, 300);
  const s = openStore('account', dir)!;
  addSkill(s, {
    name: 'Quarterly Numbers',
    description: 'Publish the quarterly figures',
    trigger_phrases: ['ship the quarterly numbers'],
  });
  addSkill(s, { name: 'Spreadsheet Audit', description: 'Audit spreadsheets', tags: ['excel'] });
  s.close();
  return dir;
}

const savedRow = (s: SkillStore) =>
  s.db.prepare('SELECT format, seq, crc, data FROM skill_index_cache').all() as Array<{
    format: string;
    seq: number;
    crc: number;
    data: Buffer;
  }>;
const head = (s: SkillStore) =>
  s.db.prepare('SELECT coalesce(max(seq), 0) FROM skill_index_log').pluck().get() as number;

describe('the saved phase-1 index', () => {
  it("keeps the copies of two other builds (the app's and the CLI's fingerprints differ), dropping older ones", () => {
    const dir = catalogDir();
    const s = connect(dir);
    const put = s.db.prepare(
      "INSERT INTO skill_index_cache (format, seq, crc, data) VALUES (?, 0, 0, x'00')",
    );
    for (const f of ['oldest-build:none', 'app-build:none', 'cli-build:none']) put.run(f);
    answers(s);
    expect(
      savedRow(s)
        .map((r) => r.format)
        .sort(),
    ).toEqual(['app-build:none', 'cli-build:none', savedRow(s).find((r) => r.seq > 0)!.format].sort());
    // This build's own copy is the one with the log's head.
    expect(savedRow(s).filter((r) => r.seq === head(s))).toHaveLength(1);
  });

  it('is loaded by a new connection and matches exactly as an index built from the skills', () => {
    const dir = catalogDir();
    const first = connect(dir);
    const built = answers(first);
    expect(skillIndex(first.db).origin).toBe('built');
    expect(savedRow(first)).toHaveLength(1);
    expect(savedRow(first)[0]!.seq).toBe(head(first));

    const second = connect(dir);
    const loaded = answers(second);
    expect(skillIndex(second.db).origin).toBe('saved');
    expect(loaded).toEqual(built);
    // Each skill's e5 text hash comes back with the saved copy, as the rows give it now: the e5
    // vectors are checked against it without reading every row again.
    const rows = second.db
      .prepare(
        'SELECT id, name, description, when_to_use, tags, intent_patterns, trigger_phrases FROM skills',
      )
      .all() as Array<Parameters<typeof denseText>[0] & { id: string }>;
    const hashes = new Map(rows.map((r) => [r.id, denseTextHash(denseText(r))]));
    const docs = skillIndex(second.db).docs.filter((d) => d !== null);
    expect(docs.length).toBeGreaterThan(100);
    for (const d of docs) expect(d.denseHash, d.name).toBe(hashes.get(d.id));
    // Spelling correction found the same fixes from the deletion map built on demand.
    expect(loaded[1]!.explain.query_terms.some((t) => t.source === 'spelling')).toBe(true);
    expect(loaded[4]!.match[0]!.name).toBe('Quarterly Numbers');
    expect(loaded[4]!.match[0]!.matched_on[0]).toBe('exact_trigger');
  });

  it('catches up with changes made since it was saved, then saves itself again', () => {
    const dir = catalogDir();
    answers(connect(dir));
    // Another process adds, renames and deletes skills after the copy was saved.
    const other = openDatabase(openStore('account', dir)!.file);
    const w = connect(dir);
    addSkill(w, {
      name: 'Invoice Reviewer',
      description: 'Review invoice drafts',
      trigger_phrases: ['check my invoice'],
    });
    other
      .prepare(
        "UPDATE skills SET name = 'Renamed Audit', description = 'Audits spreadsheets twice' WHERE name = 'Spreadsheet Audit'",
      )
      .run();
    other.prepare("DELETE FROM skills WHERE name = 'Quarterly Numbers'").run();
    other.close();

    const caught = connect(dir);
    const got = answers(caught);
    const ix = skillIndex(caught.db);
    expect(ix.origin).toBe('saved');
    expect(savedRow(caught)[0]!.seq).toBe(head(caught));
    // The same answers as an index built from scratch.
    caught.db.prepare('DELETE FROM skill_index_cache').run();
    const fresh = connect(dir);
    const rebuilt = answers(fresh);
    expect(skillIndex(fresh.db).origin).toBe('built');
    expect(got).toEqual(rebuilt);
    expect(got[1]!.match.map((m) => m.name)).toContain('Invoice Reviewer');
    expect(got[4]!.match.map((m) => m.name)).not.toContain('Quarterly Numbers');

    // A copy that was loaded, changed and saved again still answers the same in the next process.
    const next = connect(dir);
    expect(answers(next)).toEqual(rebuilt);
    expect(skillIndex(next.db).origin).toBe('saved');
  });

  it("is what a server's sliced warm-up loads too, caught up and saved again", async () => {
    const dir = catalogDir();
    answers(connect(dir));
    const w = connect(dir);
    addSkill(w, { name: 'Invoice Reviewer', description: 'Review invoice drafts' });
    const warm = connect(dir);
    await warmSkillIndex(warm.db);
    expect(skillIndex(warm.db).origin).toBe('saved');
    expect(savedRow(warm)[0]!.seq).toBe(head(warm));
    const got = answers(warm);
    expect(got[1]!.match.map((m) => m.name)).toContain('Invoice Reviewer');
    warm.db.prepare('DELETE FROM skill_index_cache').run();
    expect(answers(connect(dir))).toEqual(got);
  });

  it('is ignored and rebuilt when damaged, of another format, ahead of the log or past its reach', () => {
    const dir = catalogDir();
    const base = connect(dir);
    const expected = answers(base);
    const good = savedRow(base)[0]!;
    const tamper = (sql: string, ...args: unknown[]) => {
      const s = openStore('account', dir)!;
      s.db.prepare('DELETE FROM skill_index_cache').run();
      s.db
        .prepare('INSERT INTO skill_index_cache (format, seq, crc, data) VALUES (?, ?, ?, ?)')
        .run(good.format, good.seq, good.crc, good.data);
      s.db.prepare(sql).run(...args);
      s.close();
    };
    const flipped = Buffer.from(good.data);
    flipped[flipped.length >> 1]! ^= 0xff;
    const truncated = good.data.subarray(0, good.data.length - 100);
    const garbage = Buffer.from('not an index at all');
    const cases: Array<[string, string, ...unknown[]]> = [
      ['a flipped byte (CRC)', 'UPDATE skill_index_cache SET data = ?', flipped],
      [
        'cut short, CRC recomputed',
        'UPDATE skill_index_cache SET data = ?, crc = ?',
        truncated,
        crc32(truncated),
      ],
      [
        'not an index, CRC recomputed',
        'UPDATE skill_index_cache SET data = ?, crc = ?',
        garbage,
        crc32(garbage),
      ],
      ['another format', "UPDATE skill_index_cache SET format = 'older-code:none'"],
      ['ahead of the log', 'UPDATE skill_index_cache SET seq = seq + 1000'],
    ];
    for (const [what, sql, ...args] of cases) {
      tamper(sql, ...args);
      const s = connect(dir);
      expect(answers(s), what).toEqual(expected);
      expect(skillIndex(s.db).origin, what).toBe('built');
      // Replaced by a good copy of this format; another build's copy is left to that build.
      expect(
        savedRow(s)
          .filter((r) => r.format === good.format)
          .map((r) => [r.format, r.seq]),
        what,
      ).toEqual([[good.format, head(s)]]);
    }
    // Behind a log that no longer reaches back to it (trimmed): loaded, then rebuilt.
    tamper('UPDATE skill_index_cache SET seq = 1');
    const s = connect(dir);
    expect(answers(s)).toEqual(expected);
    expect(skillIndex(s.db).origin).toBe('built');
  });

  it('is used by the workspace store too, with the account skill it hides left out', () => {
    const dir = catalogDir();
    const wsDir = tempDir();
    const ws = openStore('workspace', wsDir)!;
    addSkill(ws, {
      name: 'Spreadsheet Audit',
      description: 'The workspace audit of spreadsheets and invoices',
    });
    ws.close();
    const w1 = openStore('workspace', wsDir)!;
    open.push(w1);
    const built = answers(connect(dir), w1);
    const w2 = openStore('workspace', wsDir)!;
    open.push(w2);
    const loaded = answers(connect(dir), w2);
    expect(skillIndex(w2.db).origin).toBe('saved');
    expect(loaded).toEqual(built);
    expect(loaded[3]!.match[0]).toMatchObject({ name: 'Spreadsheet Audit', scope: 'workspace' });
  });
});
