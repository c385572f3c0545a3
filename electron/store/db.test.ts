import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { isAppError } from '../contract/errors.js';
import { tempDir } from '../test-support/index.js';
import { loadMigrations, openDatabase } from './db.js';

describe('openDatabase', () => {
  it('creates a fresh store with every migration, WAL and foreign keys on', () => {
    const file = join(tempDir(), 'agents.db');
    const db = openDatabase(file);
    expect(db.pragma('user_version', { simple: true })).toBe(loadMigrations().length);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type IN ('table') ORDER BY name")
      .pluck()
      .all();
    expect(tables).toEqual(expect.arrayContaining(['skills', 'skill_artifacts', 'skill_execution_traces']));
    // Phase 1 matches in memory: skill writes keep no FTS5 index in step.
    expect(tables).not.toContain('skills_fts');
    db.close();
  });

  it('applies each migration on top of data written at the previous version (create → N-1 → insert → N)', () => {
    const migrations = loadMigrations();
    for (let n = 2; n <= migrations.length; n++) {
      const file = join(tempDir(), 'agents.db');
      const old = openDatabase(file, { targetVersion: n - 1 });
      old
        .prepare(
          "INSERT INTO skills (id, name, description, tags) VALUES ('s1', 'Kept', 'survives upgrades', '[\"x\"]')",
        )
        .run();
      old
        .prepare(
          "INSERT INTO skill_artifacts (id, skill_id, kind, name, content) VALUES ('a1', 's1', 'description', 'D', 'c')",
        )
        .run();
      old.close();
      const db = openDatabase(file, { targetVersion: n });
      expect(db.pragma('user_version', { simple: true })).toBe(n);
      expect(db.prepare("SELECT name, tags FROM skills WHERE id = 's1'").get()).toEqual({
        name: 'Kept',
        tags: '["x"]',
      });
      expect(db.prepare("SELECT count(*) FROM skill_artifacts WHERE skill_id = 's1'").pluck().get()).toBe(1);
      db.close();
    }
  });

  it('refuses a database from a newer app, naming the file, and leaves it unmodified', () => {
    const file = join(tempDir(), 'agents.db');
    const raw = new Database(file);
    raw.pragma('user_version = 999');
    raw.exec('CREATE TABLE future (x)');
    raw.close();
    const before = readFileSync(file);
    let err: unknown;
    try {
      openDatabase(file);
    } catch (e) {
      err = e;
    }
    expect(isAppError(err, 'STORE_TOO_NEW')).toBe(true);
    expect((err as Error).message).toContain(file);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('refuses a file that is not SQLite, naming it, and leaves it unmodified', () => {
    const file = join(tempDir(), 'agents.db');
    writeFileSync(file, 'this is a text file, not a database\n'.repeat(10));
    const before = readFileSync(file);
    expect(() => openDatabase(file)).toThrow(file);
    try {
      openDatabase(file);
    } catch (e) {
      expect(isAppError(e, 'STORE_NOT_SQLITE')).toBe(true);
    }
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('rolls a failing migration back as a whole', () => {
    const file = join(tempDir(), 'agents.db');
    const base = loadMigrations();
    const broken = [
      ...base,
      { version: base.length + 1, name: 'broken', sql: 'CREATE TABLE ok_table (x); SELECT * FROM nope;' },
    ];
    expect(() => openDatabase(file, { migrations: broken })).toThrow(/schema \d+ \(broken\)/);
    const db = new Database(file);
    expect(db.pragma('user_version', { simple: true })).toBe(base.length);
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'ok_table'").pluck().get()).toBe(0);
    db.close();
  });
});
