// Migration 0007 (errors as data): rows stored as "CODE: message" text are split into columns.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/index.js';
import { openDatabase } from './db.js';

describe('migration 0007_error_data', () => {
  it('splits stored "CODE: message" errors of chat replies and traces into code and message', () => {
    const file = join(tempDir(), 'agents.db');
    const before = openDatabase(file, { targetVersion: 6 });
    const at = '2026-01-01T00:00:00.000Z';
    before
      .prepare('INSERT INTO chat_sessions (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)')
      .run('s', 't', at, at);
    const msg = before.prepare(
      `INSERT INTO chat_messages (id, session_id, role, content, status, error, created_at)
       VALUES (?, 's', 'assistant', '', ?, ?, ?)`,
    );
    msg.run('m1', 'error', 'LLM_FAILED: the provider said: no', at);
    msg.run('m2', 'error', 'something odd', at);
    msg.run('m3', 'complete', null, at);
    const trace = before.prepare(
      `INSERT INTO skill_execution_traces (id, session_id, skill_id, artifact_id, artifact_kind, error, started_at)
       VALUES (?, 's', 'k', 'a', 'prompt_template', ?, ?)`,
    );
    trace.run('t1', 'CANCELLED: cancelled', at);
    trace.run('t2', 'assertion failed: the reply is JSON', at);
    trace.run('t3', null, at);
    before.close();

    const db = openDatabase(file, { targetVersion: 7 });
    const messages = db
      .prepare('SELECT id, error, error_code, error_message FROM chat_messages ORDER BY id')
      .all();
    expect(messages).toEqual([
      { id: 'm1', error: null, error_code: 'LLM_FAILED', error_message: 'the provider said: no' },
      { id: 'm2', error: null, error_code: 'INTERNAL', error_message: 'something odd' },
      { id: 'm3', error: null, error_code: null, error_message: null },
    ]);
    const traces = db.prepare('SELECT id, error, error_code FROM skill_execution_traces ORDER BY id').all();
    expect(traces).toEqual([
      { id: 't1', error: 'cancelled', error_code: 'CANCELLED' },
      { id: 't2', error: 'assertion failed: the reply is JSON', error_code: 'ASSERTION_FAILED' },
      { id: 't3', error: null, error_code: null },
    ]);
    db.close();
  });
});
