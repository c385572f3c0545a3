import { describe, expect, it } from 'vitest';
import { SkillCatalog } from '../skills/catalog.js';
import { packageToRows } from '../skills/convert.js';
import { type SkillPackage, validatePackage } from '../skills/package-schema.js';
import { openStore, type SkillStore } from '../store/stores.js';
import { tempDir } from '../test-support/index.js';
import { buildFtsQuery, matchSkills } from './phase1.js';
import { termStats } from './term-budget.js';

function add(store: SkillStore, raw: Record<string, unknown>): void {
  const r = validatePackage({ artifacts: [{ kind: 'description', name: 'd', content: 'x' }], ...raw });
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  const rows = packageToRows(r.value as SkillPackage);
  store.repo.createSkill(rows.skill);
  for (const a of rows.artifacts) store.repo.addArtifact(a);
}

function setup() {
  const account = openStore('account', tempDir())!;
  const workspace = openStore('workspace', tempDir())!;
  add(account, {
    name: 'Consistency Checker',
    description: 'Finds contradictions across pages',
    tags: ['analysis'],
    intent_patterns: ['find contradictions'],
    trigger_phrases: ['are there any contradictions'],
  });
  add(account, {
    name: 'Summarize',
    description: 'Condense long text into key points',
    trigger_phrases: ['tl;dr'],
  });
  add(account, {
    name: 'Contradiction Finder',
    description: 'Contradictions contradictions contradictions in text',
  });
  add(account, {
    name: 'Translate',
    description: 'Translate text into another language',
    tags: ['language'],
  });
  add(workspace, {
    name: 'Translate',
    description: 'Our glossary-aware translation into German',
    tags: ['language'],
  });
  return new SkillCatalog(account, workspace);
}

describe('phase-1 matching', () => {
  it('ranks an exact trigger phrase first, whatever BM25 says', () => {
    const c = setup();
    const m = matchSkills(c, 'Hey, are there any contradictions between these two pages?');
    expect(m[0]).toMatchObject({ name: 'Consistency Checker', scope: 'account' });
    expect(m[0]!.matched_on[0]).toBe('exact_trigger');
    expect(m[0]!.score).toBeGreaterThanOrEqual(1);
    expect(m.map((x) => x.name)).toContain('Contradiction Finder');
    expect(m.find((x) => x.name === 'Contradiction Finder')!.score).toBeLessThan(1);
  });

  it('reports which fields matched', () => {
    const c = setup();
    const [top] = matchSkills(c, 'please condense this into key points');
    expect(top).toMatchObject({ name: 'Summarize', matched_on: ['description'] });
    expect(matchSkills(c, 'language help')[0]!.matched_on).toEqual(['tags']);
  });

  it('lets the workspace skill win and never returns the overridden account one', () => {
    const c = setup();
    const m = matchSkills(c, 'translate this text', { limit: 10 });
    const translate = m.filter((x) => x.name === 'Translate');
    expect(translate).toEqual([expect.objectContaining({ scope: 'workspace' })]);
  });

  it('is deterministic and honours the limit', () => {
    const c = setup();
    const a = matchSkills(c, 'text contradictions pages language', { limit: 2 });
    const b = matchSkills(c, 'text contradictions pages language', { limit: 2 });
    expect(a).toHaveLength(2);
    expect(a).toEqual(b);
  });

  it('returns nothing for messages without content words, and survives FTS syntax in the message', () => {
    const c = setup();
    expect(matchSkills(c, 'the and of it')).toEqual([]);
    expect(matchSkills(c, '')).toEqual([]);
    expect(() => matchSkills(c, 'NEAR( "quote * AND OR -- ^col:')).not.toThrow();
    expect(buildFtsQuery('Find the CONTRADICTIONS, please!')).toBe('"find" OR "contradictions"');
  });

  it('fills the limit even when many account matches are hidden by the workspace', () => {
    const account = openStore('account', tempDir())!;
    const workspace = openStore('workspace', tempDir())!;
    for (let i = 0; i < 30; i++) {
      add(account, { name: `Skill ${i}`, description: 'zebra handling' });
      if (i < 25) add(workspace, { name: `Skill ${i}`, description: 'unrelated' });
    }
    const m = matchSkills(new SkillCatalog(account, workspace), 'zebra', { limit: 5 });
    expect(m.map((x) => x.name).sort()).toEqual(['Skill 25', 'Skill 26', 'Skill 27', 'Skill 28', 'Skill 29']);
  });
});

describe('the work budget', () => {
  it('keeps exact BM25 below the budget and drops the most common terms above it', () => {
    const account = openStore('account', tempDir())!;
    for (let i = 0; i < 60; i++)
      add(account, { name: `Common ${i}`, description: 'shared words everywhere' });
    add(account, { name: 'Rare Gem', description: 'shared words everywhere plus a zymurgy guide' });
    const c = new SkillCatalog(account, null);
    const exact = matchSkills(c, 'zymurgy shared words', { limit: 3 });
    const budgeted = matchSkills(c, 'zymurgy shared words', { limit: 3, postingsBudget: 10 });
    expect(exact[0]!.name).toBe('Rare Gem');
    expect(budgeted[0]!.name).toBe('Rare Gem');
    expect(budgeted[0]!.matched_on).toEqual(['description']);
    // Two terms always remain, rarest first.
    expect(
      termStats(account.db, 'skills_fts', 'skills').prune(['"shared"', '"zymurgy"', '"words"'], 1),
    ).toEqual(['"shared"', '"zymurgy"']);
    expect(termStats(account.db, 'skills_fts', 'skills').prune(['"nothinghere"', '"zymurgy"'])).toEqual([
      '"zymurgy"',
    ]);
  });
});
