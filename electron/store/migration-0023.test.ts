// Migration 0023: two indexes that repeat a UNIQUE index go; rows stay, and the look-ups they
// served still search an index.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/index.js';
import { openDatabase } from './db.js';

const INDEXES =
  "SELECT name FROM sqlite_master WHERE type = 'index' AND name IN ('idx_skills_name', 'idx_skill_artifacts_skill_id')";
const plan = (db: ReturnType<typeof openDatabase>, sql: string) =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>)
    .map((r) => r.detail)
    .join(' | ');

describe('migration 0023_drop_redundant_indexes', () => {
  it('drops the duplicate indexes, keeps every row, and name and skill look-ups still use an index', () => {
    const file = join(tempDir(), 'agents.db');
    const before = openDatabase(file, { targetVersion: 22 });
    before.prepare("INSERT INTO skills (id, name, description) VALUES ('s1', 'Kept', 'd')").run();
    before
      .prepare(
        "INSERT INTO skill_artifacts (id, skill_id, kind, name, content) VALUES ('a1', 's1', 'description', 'D', 'c')",
      )
      .run();
    expect(before.prepare(INDEXES).pluck().all()).toHaveLength(2);
    before.close();

    const db = openDatabase(file, { targetVersion: 23 });
    expect(db.prepare(INDEXES).pluck().all()).toEqual([]);
    expect(db.prepare('SELECT id, name FROM skills').all()).toEqual([{ id: 's1', name: 'Kept' }]);
    expect(db.prepare('SELECT id, skill_id FROM skill_artifacts').all()).toEqual([
      { id: 'a1', skill_id: 's1' },
    ]);
    expect(plan(db, "SELECT * FROM skills WHERE name = 'x'")).toMatch(/SEARCH .* USING INDEX/);
    expect(plan(db, "SELECT * FROM skill_artifacts WHERE skill_id = 'x'")).toMatch(/SEARCH .* USING INDEX/);
    // The cascade still finds a skill's artifacts.
    db.prepare("DELETE FROM skills WHERE id = 's1'").run();
    expect(db.prepare('SELECT count(*) FROM skill_artifacts').pluck().get()).toBe(0);
    db.close();
  });
});
