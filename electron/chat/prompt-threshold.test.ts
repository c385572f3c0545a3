// Only matches at or above the calibrated score reach the system prompt: "what is 2+40" brings
// no skill into it, a request in a skill's words does, and a trigger phrase always does.
import { describe, expect, it } from 'vitest';
import { matchSkills } from '../activation/index.js';
import { SkillCatalog, seedAccountStore } from '../skills/index.js';
import { openStore } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { buildTurnPrompt, PROMPT_MIN_SCORE } from './engine.js';

describe('the system prompt keeps weak matches out', () => {
  it('lists only matches at or above PROMPT_MIN_SCORE', () => {
    const store = openStore('account', tempDir())!;
    seedAccountStore(store);
    const catalog = new SkillCatalog(store, null);
    const prompt = (message: string) =>
      buildTurnPrompt({ catalog } as never, { message, session_id: 's' } as never, undefined, []).system;
    try {
      const weak = matchSkills(catalog, 'what is 2+40');
      // Phase 1 still ranks something for it (the Summarize and Code Review) …
      expect(weak.every((m) => m.score < PROMPT_MIN_SCORE)).toBe(true);
      // … but none of it is put before the model.
      expect(prompt('what is 2+40')).toContain('No skill matched this message');
      const csv = prompt('compute statistics for each column of this CSV file');
      expect(csv).toContain('CSV Statistics');
      expect(prompt('are there any contradictions in this text')).toContain('Consistency Checker');
    } finally {
      catalog.close();
    }
  });
});
