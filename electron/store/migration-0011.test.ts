// Migration 0011: tool approvals and tool preferences are new tables; what was stored
// before is untouched.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/index.js';
import { openDatabase } from './db.js';

describe('migration 0011_tool_approvals', () => {
  it('adds empty approval tables and keeps existing rows', () => {
    const file = join(tempDir(), 'agents.db');
    const before = openDatabase(file, { targetVersion: 10 });
    const at = '2026-01-01T00:00:00.000Z';
    before
      .prepare('INSERT INTO chat_sessions (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)')
      .run('s', 'kept', at, at);
    before.close();

    const db = openDatabase(file, { targetVersion: 11 });
    expect(db.pragma('user_version', { simple: true })).toBe(11);
    expect(db.prepare('SELECT title FROM chat_sessions').all()).toEqual([{ title: 'kept' }]);
    expect(db.prepare('SELECT count(*) AS n FROM tool_approvals').get()).toEqual({ n: 0 });
    db.prepare('INSERT INTO tool_approvals (server, tool, created_at) VALUES (?, ?, ?)').run(
      'fs',
      'read',
      at,
    );
    expect(() =>
      db
        .prepare('INSERT INTO tool_approvals (server, tool, created_at) VALUES (?, ?, ?)')
        .run('fs', 'read', at),
    ).toThrow(/UNIQUE|PRIMARY/);
    db.prepare('INSERT INTO tool_preferences (key, value) VALUES (?, ?)').run('auto_read_only', 'true');
    db.close();
  });
});
