// Only matches at or above the calibrated score reach the system prompt: "what is 2+40" brings
// no skill into it, a request in a skill's words does, and a trigger phrase always does.
import { describe, expect, it } from 'vitest';
import { matchSkills } from '../activation/index.js';
import { SkillCatalog, seedAccountStore } from '../skills/index.js';
import { openStore, setSwitch } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { buildTurnPrompt, PROMPT_MIN_SCORE } from './engine.js';

describe('the system prompt keeps weak matches out', () => {
  it('lists only matches at or above PROMPT_MIN_SCORE', () => {
    const store = openStore('account', tempDir())!;
    seedAccountStore(store);
    const catalog = new SkillCatalog(store, null);
    // With no listing budget, phase 1 alone chooses what is listed.
    const prompt = (message: string) =>
      buildTurnPrompt(
        { catalog } as never,
        { message, session_id: 's', settings: { listing_budget_tokens: 0 } } as never,
        undefined,
        [],
      ).system;
    try {
      const weak = matchSkills(catalog, 'what is 2+40');
      // Phase 1 still ranks something for it (the Summarize and Code Review) …
      expect(weak.every((m) => m.score < PROMPT_MIN_SCORE)).toBe(true);
      // … but none of it is put before the model.
      expect(prompt('what is 2+40')).toContain('No skill matched this message');
      const csv = prompt('compute statistics for each column of this CSV file');
      expect(csv).toContain('CSV Statistics');
      expect(prompt('are there any contradictions in this text')).toContain('Consistency Checker');
      // The model is told that more exists than was listed.
      expect(csv).toMatch(/\(\d+ other skills are not listed here: search_skills/);
    } finally {
      catalog.close();
    }
  });
});

describe('a small catalog is listed whole', () => {
  it('lists every enabled skill, matched ones first, within the budget; not internal or switched ones', () => {
    const store = openStore('account', tempDir())!;
    seedAccountStore(store);
    const catalog = new SkillCatalog(store, null);
    const prompt = (message: string, budget?: number) =>
      buildTurnPrompt(
        { catalog } as never,
        {
          message,
          session_id: 's',
          settings: budget === undefined ? {} : { listing_budget_tokens: budget },
        } as never,
        undefined,
        [],
      ).system;
    try {
      const all = prompt('what is 2+40');
      expect(all).toContain('The skills you can use');
      for (const name of ['CSV Statistics', 'Summarize', 'Translate', 'Consistency Checker'])
        expect(all).toContain(`- ${name}:`);
      expect(all).not.toMatch(/- (Eval Judge|Composer Agent):/);
      const csv = prompt('compute statistics for each column of this CSV file');
      const lines = csv.split('\n').filter((l) => l.startsWith('- '));
      expect(lines[0]).toMatch(/^- CSV Statistics:/);

      setSwitch(store.db, 'Translate', 'off');
      expect(prompt('what is 2+40')).not.toContain('- Translate:');
      // Past the budget, phase 1 chooses again.
      expect(prompt('what is 2+40', 50)).toContain('No skill matched this message');
    } finally {
      catalog.close();
    }
  });
});
