// Migration 0022: the skills' FTS5 table and its triggers go; every skill and artifact stays, and
// skill writes keep working without them.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/index.js';
import { openDatabase } from './db.js';

const SKILLS = 'SELECT rowid, * FROM skills ORDER BY id';
const ARTIFACTS = 'SELECT * FROM skill_artifacts ORDER BY id';
const FTS_OBJECTS = "SELECT name FROM sqlite_master WHERE name LIKE 'skills_fts%' ORDER BY name";

describe('migration 0022_drop_skills_fts', () => {
  it('drops the table and its triggers and keeps every skill', () => {
    const file = join(tempDir(), 'agents.db');
    const before = openDatabase(file, { targetVersion: 21 });
    const add = before.prepare(
      'INSERT INTO skills (id, name, description, tags, intent_patterns, trigger_phrases) VALUES (?, ?, ?, ?, ?, ?)',
    );
    for (let i = 0; i < 50; i++) {
      add.run(`s${i}`, `Skill ${i}`, `finds zebras ${i}`, '["a","b"]', '["do the thing"]', `["phrase ${i}"]`);
    }
    before
      .prepare(
        "INSERT INTO skill_artifacts (id, skill_id, kind, name, content) VALUES ('a1', 's3', 'description', 'D', 'c')",
      )
      .run();
    // The old index really was there and in step: the migration has something to drop.
    expect(before.prepare(FTS_OBJECTS).pluck().all()).toEqual(
      expect.arrayContaining(['skills_fts', 'skills_fts_ad', 'skills_fts_ai', 'skills_fts_au']),
    );
    expect(
      before.prepare("SELECT count(*) FROM skills_fts WHERE skills_fts MATCH 'zebras'").pluck().get(),
    ).toBe(50);
    const skills = before.prepare(SKILLS).all();
    const artifacts = before.prepare(ARTIFACTS).all();
    before.close();

    const db = openDatabase(file, { targetVersion: 22 });
    expect(db.pragma('user_version', { simple: true })).toBe(22);
    expect(db.prepare(FTS_OBJECTS).pluck().all()).toEqual([]);
    expect(db.prepare(SKILLS).all()).toEqual(skills);
    expect(db.prepare(ARTIFACTS).all()).toEqual(artifacts);
    // Inserts, updates of the once-indexed columns and deletes no longer reach for the table.
    db.prepare(
      "INSERT INTO skills (id, name, description, tags) VALUES ('new', 'New', 'after the upgrade', '[\"x\"]')",
    ).run();
    db.prepare("UPDATE skills SET name = 'Renamed', description = 'd', tags = '[]' WHERE id = 's1'").run();
    db.prepare("DELETE FROM skills WHERE id = 's2'").run();
    expect(db.prepare('SELECT count(*) FROM skills').pluck().get()).toBe(50);
    db.close();
  });
});
