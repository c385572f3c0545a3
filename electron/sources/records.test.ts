import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { ensureSourceTables } from './records.js';

describe('the source tables', () => {
  it('a store migrated only to 16 gets them from migration 0017 itself, once', () => {
    const db = openDatabase(join(tempDir(), 'agents.db'), { targetVersion: 16 });
    const tables = () =>
      (
        db
          .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%source%' ORDER BY name",
          )
          .all() as Array<{ name: string }>
      ).map((r) => r.name);
    expect(tables()).toEqual([]);
    ensureSourceTables(db);
    ensureSourceTables(db);
    expect(tables()).toEqual(['skill_sources', 'source_skills']);
    db.close();
  });
});
