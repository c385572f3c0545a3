import { describe, expect, it } from 'vitest';
import { openDatabase } from '../store/db.js';
import { storeFile } from '../store/paths.js';
import { chatMessage, tempDir } from '../test-support/index.js';
import { ChatStore } from './chat-store.js';

const msg = chatMessage;

const FILLER = [
  'Can you ask the team about the release date earlier this week?',
  'Please review the pull request for the login page before lunch.',
  'Here is the summary of the meeting notes you asked for earlier.',
  'Remind me which file holds the database settings.',
  'The build failed again because of a missing dependency in the lockfile.',
  'Draft an email to Alice about the quarterly budget and the hiring plan.',
  'What did we decide about the colour of the landing page header?',
  'Translate this paragraph into French and keep the tone friendly.',
];

function chats(): ChatStore {
  return new ChatStore(openDatabase(storeFile(tempDir())));
}

/** A store with `n` messages: the zorblaxian fact first, then filler over many sessions. */
function workspaceWith(n: number): ChatStore {
  const c = chats();
  c.db.transaction(() => {
    const s = c.createSession().id;
    c.addMessage(msg(s, 'user', 'Please greet Bob the zorblaxian for me'));
    c.addMessage(msg(s, 'assistant', 'Hello Bob! Greetings from your friend.'));
    let session = c.createSession().id;
    for (let i = 2; i < n; i++) {
      if (i % 40 === 0) session = c.createSession().id;
      c.addMessage(msg(session, i % 2 ? 'assistant' : 'user', `${FILLER[i % FILLER.length]} (${i})`));
    }
  })();
  return c;
}

describe('memory recall', () => {
  it('recalls a fact in a brand-new workspace (a new chat, the default minimum score)', () => {
    const c = chats();
    const first = c.createSession().id;
    c.addMessage(msg(first, 'user', 'Please greet Bob the zorblaxian for me'));
    c.addMessage(msg(first, 'assistant', 'Hello Bob! Nice to meet you.'));
    const got = c.recall('Which zorblaxian did I ask about earlier?');
    expect(got[0]).toMatchObject({ content: 'Please greet Bob the zorblaxian for me', role: 'user' });
    expect(got[0]!.score).toBeGreaterThanOrEqual(0.3);
  });

  it('gives the same fact a similar score at 5 and at 50,000 messages', () => {
    const questions = [
      'Which zorblaxian did I ask about earlier?',
      'Who was the zorblaxian I wanted greeted?',
      'greet the zorblaxian again, what was his name',
    ];
    const small = workspaceWith(5);
    const large = workspaceWith(50_000);
    for (const q of questions) {
      const a = small.recall(q)[0];
      const b = large.recall(q)[0];
      expect(a?.content, q).toBe('Please greet Bob the zorblaxian for me');
      expect(b?.content, q).toBe('Please greet Bob the zorblaxian for me');
      expect(Math.abs(a!.score - b!.score), q).toBeLessThan(0.2);
    }
    // A question sharing only common words scores low at any size.
    for (const c of [small, large]) {
      const weak = c.recall('what about the page header colour and the budget?', { min_score: 0 });
      expect(weak.every((m) => m.score < 0.9)).toBe(true);
    }
  }, 180_000); // 50,000 messages are written first: slow on a loaded machine

  it('prefers the more recent of two equally relevant messages', () => {
    const c = chats();
    const s = c.createSession().id;
    c.addMessage(msg(s, 'user', 'The wifi password is plover'));
    c.addMessage(msg(s, 'user', 'The wifi password is plover'));
    const [a, b] = c.recall('wifi password', { min_score: 0 });
    expect(a!.score).toBe(b!.score);
    expect(c.listMessages(s).at(-1)!.id).toBe(a!.message_id);
  });

  it("leaves out the current session's last turns (already in the conversation)", () => {
    const c = chats();
    const old = c.createSession().id;
    c.addMessage(msg(old, 'user', 'my quokka is called Pip'));
    const now = c.createSession().id;
    c.addMessage(msg(now, 'user', 'quokka food ideas?'));
    c.addMessage(msg(now, 'assistant', 'Quokkas eat leaves.'));
    const got = c.recall('more quokka', { session_id: now, min_score: 0 });
    expect(got.map((m) => m.content)).toEqual(['my quokka is called Pip']);
    // Older turns of the same session beyond the history window may be recalled.
    const far = c.recall('more quokka', { session_id: now, min_score: 0, skip_recent: 1 });
    expect(far.map((m) => m.content)).toContain('quokka food ideas?');
  });
});
