import { describe, expect, it } from 'vitest';
import { AppError } from '../contract/errors.js';
import type { ChatStore } from './chat-store.js';
import { type ChatDeps, persistReply, type StreamedReply } from './engine.js';

const reply: StreamedReply = {
  text: 'A long answer the user waited a minute for.',
  input_tokens: 12,
  output_tokens: 40,
  estimated_cost: null,
  error: null,
  calls: [],
  trace_ids: ['t1'],
};

function depsFailingWith(e: unknown): ChatDeps {
  const chats = {
    addMessage: () => {
      throw e;
    },
  } as unknown as ChatStore;
  return { chats, llm: null } as unknown as ChatDeps;
}

describe('a streamed reply that cannot be stored', () => {
  it('is handed back whole with DISK_FULL instead of being lost', () => {
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    const end = persistReply(depsFailingWith(full), 's1', reply, 'u1');
    expect(end).toMatchObject({
      type: 'turn-finished',
      message_id: '',
      status: 'error',
      text: reply.text,
      trace_ids: ['t1'],
      error: { code: 'DISK_FULL', message: expect.stringMatching(/could not be saved.*copy it now.*full/) },
    });
  });

  it('keeps the reply when another writer held the store too long (STORE_BUSY)', () => {
    const busy = new AppError('STORE_BUSY', 'Another SkillDesk is writing', { file: 'x' });
    const end = persistReply(depsFailingWith(busy), 's1', reply);
    expect(end).toMatchObject({ text: reply.text, status: 'error', error: { code: 'STORE_BUSY' } });
  });

  it('still throws what is a bug, not the disk', () => {
    expect(() => persistReply(depsFailingWith(new TypeError('boom')), 's1', reply)).toThrow('boom');
  });
});
