// Migration 0015: artifact kinds move from a CHECK list to the artifact_kinds lookup table (the
// table rebuilt, every row, index and index-log trigger kept); the app registers its kinds on open.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARTIFACT_KINDS } from '../contract/kinds.js';
import { tempDir } from '../test-support/index.js';
import { registerArtifactKinds } from './artifact-kinds.js';
import { openDatabase } from './db.js';
import { openStore } from './stores.js';

const ARTIFACTS = 'SELECT * FROM skill_artifacts ORDER BY id';
/** The kinds the CHECK of 0001 allowed: the rows the migration starts the table with. */
const SHIPPED_KINDS = [
  'description',
  'prompt_template',
  'code_template',
  'dspy_module',
  'approach',
  'example',
  'resource',
];
/** A kind no build knows (yet). */
const NEW_KIND = 'not_a_kind_yet';

describe('migration 0015_artifact_kinds', () => {
  it('keeps every artifact, guards kinds through the lookup table, and keeps the triggers', () => {
    const file = join(tempDir(), 'agents.db');
    const before = openDatabase(file, { targetVersion: 14 });
    before.prepare("INSERT INTO skills (id, name, description) VALUES ('s1', 'Kept', 'd')").run();
    const add = before.prepare(
      'INSERT INTO skill_artifacts (id, skill_id, kind, name, ordinal, content, model_variant, metadata, state_blob) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    SHIPPED_KINDS.forEach((kind, i) => {
      const variant = i % 2 ? 'openai' : null;
      add.run(
        `a${i}`,
        's1',
        kind,
        `N${i}`,
        i,
        `content ${i}`,
        variant,
        '{"x":1}',
        i === 3 ? Buffer.from('{}') : null,
      );
    });
    expect(() => add.run('bad', 's1', NEW_KIND, 'W', 0, '', null, null, null)).toThrow(/CHECK/);
    const rows = before.prepare(ARTIFACTS).all();
    before.close();

    const db = openDatabase(file, { targetVersion: 15 });
    expect(db.pragma('user_version', { simple: true })).toBe(15);
    expect(db.prepare(ARTIFACTS).all()).toEqual(rows);
    expect(db.prepare('SELECT name FROM artifact_kinds ORDER BY name').pluck().all()).toEqual(
      [...SHIPPED_KINDS].sort(),
    );
    // A kind the table does not hold is refused; one row makes it valid.
    const addWasm = () =>
      db
        .prepare(
          `INSERT INTO skill_artifacts (id, skill_id, kind, name, content) VALUES ('w', 's1', '${NEW_KIND}', 'W', '')`,
        )
        .run();
    expect(addWasm).toThrow(/FOREIGN KEY/);
    db.prepare('INSERT INTO artifact_kinds (name) VALUES (?)').run(NEW_KIND);
    addWasm();
    // The index log still hears of artifact changes, and the indexes are back.
    const logged = db.prepare("SELECT count(*) FROM skill_index_log WHERE skill_id = 's1'").pluck();
    const n = logged.get() as number;
    db.prepare("UPDATE skill_artifacts SET content = 'changed' WHERE id = 'a0'").run();
    db.prepare("DELETE FROM skill_artifacts WHERE id = 'a1'").run();
    expect(logged.get()).toBe(n + 2);
    const indexes = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'skill_artifacts' AND sql IS NOT NULL",
      )
      .pluck()
      .all();
    expect(indexes).toEqual(
      expect.arrayContaining(['idx_skill_artifacts_skill_id', 'idx_skill_artifacts_kind']),
    );
    // Deleting the skill still deletes its artifacts.
    db.prepare("DELETE FROM skills WHERE id = 's1'").run();
    expect(db.prepare('SELECT count(*) FROM skill_artifacts').pluck().get()).toBe(0);
    db.close();
  });

  it('registers the kinds this build knows when a store opens', () => {
    const dir = tempDir();
    const store = openStore('account', dir)!;
    store.db.prepare("DELETE FROM artifact_kinds WHERE name = 'example'").run();
    registerArtifactKinds(store.db, [...ARTIFACT_KINDS, NEW_KIND]);
    expect(store.db.prepare('SELECT count(*) FROM artifact_kinds').pluck().get()).toBe(
      ARTIFACT_KINDS.length + 1,
    );
    store.db.prepare("DELETE FROM artifact_kinds WHERE name IN ('example', ?)").run(NEW_KIND);
    store.close();
    const again = openStore('account', dir)!;
    expect(again.db.prepare("SELECT count(*) FROM artifact_kinds WHERE name = 'example'").pluck().get()).toBe(
      1,
    );
    again.close();
  });
});
