// Internal skills (the Composer's and the eval judge's instructions) are the app's: never matched
// for a message, never offered in the chat's `/` menu, still found by name by their features.
import { describe, expect, it } from 'vitest';
import { slashMatches } from '../../renderer/features/chat/ComposerExtras.js';
import { testHost } from '../test-support/index.js';

describe('internal skills', () => {
  it('are not matched, are marked in the list, and are left out of the / menu', async () => {
    const host = testHost();
    const ctx = { transport: 'in-process' as const };
    for (const message of [
      'judge an eval',
      'does the old pinned model still work?',
      'write a new skill package',
      'new skill with ai',
    ]) {
      const r = await host.handlers['skills/match']({ message, limit: 20 }, ctx);
      expect(
        r.matches.map((m) => m.name),
        message,
      ).not.toEqual(expect.arrayContaining(['Eval Judge']));
      expect(r.matches.map((m) => m.name)).not.toContain('Composer Agent');
    }
    // An ordinary skill still matches.
    const csv = await host.handlers['skills/match']({ message: 'statistics of this csv file' }, ctx);
    expect(csv.matches[0]?.name).toBe('CSV Statistics');

    const { skills } = await host.handlers['skills/list']({}, ctx);
    const internal = skills.filter((s) => s.internal).map((s) => s.name);
    expect(internal.sort()).toEqual(['Composer Agent', 'Eval Judge']);
    expect(slashMatches(skills, '').map((s) => s.name)).not.toContain('Eval Judge');
    expect(slashMatches(skills, 'eval')).toEqual([]);
    expect(slashMatches(skills, 'sum').map((s) => s.name)).toEqual(['Summarize']);
    // Nor does the model's own listing show them.
    const listed = await host.handlers['skills/call-tool']({ name: 'list_skills' }, ctx);
    const names = JSON.stringify(listed);
    expect(names).toContain('CSV Statistics');
    expect(names).not.toMatch(/Composer Agent|Eval Judge/);
    // Their features still read them by name.
    const judge = await host.handlers['skills/get']({ name: 'Eval Judge' }, ctx);
    expect(judge.skill.metadata).toMatchObject({ internal: 'true' });
  });
});
