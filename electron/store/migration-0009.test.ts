// Migration 0009 (chat branches): messages stored before it form one straight branch per session.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChatStore } from '../chat/index.js';
import { tempDir } from '../test-support/index.js';
import { openDatabase } from './db.js';

describe('migration 0009_chat_branches', () => {
  it('links each stored message to the one before it in its session and shows the last as the leaf', () => {
    const file = join(tempDir(), 'agents.db');
    const before = openDatabase(file, { targetVersion: 8 });
    const at = '2026-01-01T00:00:00.000Z';
    const session = before.prepare(
      'INSERT INTO chat_sessions (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)',
    );
    session.run('a', 'first', at, at);
    session.run('b', 'second', at, at);
    session.run('empty', 'nothing yet', at, at);
    const msg = before.prepare(
      `INSERT INTO chat_messages (id, session_id, role, content, status, created_at) VALUES (?, ?, ?, ?, 'complete', ?)`,
    );
    // Interleaved across sessions, as real use writes them.
    msg.run('a1', 'a', 'user', 'hello', at);
    msg.run('b1', 'b', 'user', 'other chat', at);
    msg.run('a2', 'a', 'assistant', 'hi there', at);
    msg.run('a3', 'a', 'user', 'tell me about otters', at);
    msg.run('b2', 'b', 'assistant', 'sure', at);
    before.close();

    const db = openDatabase(file, { targetVersion: 9 });
    expect(db.prepare('SELECT id, parent_id, attachments FROM chat_messages ORDER BY seq').all()).toEqual([
      { id: 'a1', parent_id: null, attachments: null },
      { id: 'b1', parent_id: null, attachments: null },
      { id: 'a2', parent_id: 'a1', attachments: null },
      { id: 'a3', parent_id: 'a2', attachments: null },
      { id: 'b2', parent_id: 'b1', attachments: null },
    ]);
    expect(db.prepare('SELECT id, leaf_id, model FROM chat_sessions ORDER BY id').all()).toEqual([
      { id: 'a', leaf_id: 'a3', model: null },
      { id: 'b', leaf_id: 'b2', model: null },
      { id: 'empty', leaf_id: null, model: null },
    ]);
    // The store reads the migrated rows as one branch, and a new message continues it.
    const chats = new ChatStore(db);
    expect(chats.branch('a').map((m) => [m.id, m.sibling_ids])).toEqual([
      ['a1', ['a1']],
      ['a2', ['a2']],
      ['a3', ['a3']],
    ]);
    const added = chats.addMessage({
      session_id: 'a',
      role: 'assistant',
      content: 'Otters hold hands while they sleep.',
      status: 'complete',
      tool_calls: null,
      trace_ids: null,
      skills: null,
      model_id: null,
      input_tokens: null,
      output_tokens: null,
      estimated_cost: null,
      error: null,
    });
    expect(added.parent_id).toBe('a3');
    expect(
      chats
        .search('otters')
        .map((h) => h.message_id)
        .sort(),
    ).toEqual([added.id, 'a3'].sort());
    db.close();
  });
});
