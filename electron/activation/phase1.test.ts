import { describe, expect, it } from 'vitest';
import { packageToRows } from '../skills/convert.js';
import { SkillCatalog } from '../skills/index.js';
import { type SkillPackage, validatePackage } from '../skills/package-schema.js';
import { openDatabase, openStore, type SkillStore } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { buildFtsQuery, explainMatch, matchSkills } from './phase1.js';
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
    // "condense" is in the description and, as a synonym of "summarize", reaches the name.
    expect(top).toMatchObject({ name: 'Summarize', matched_on: ['name', 'description'] });
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

describe('the work budget of memory recall', () => {
  it('keeps the rarest terms and drops the most common ones above the budget', () => {
    const account = openStore('account', tempDir())!;
    for (let i = 0; i < 60; i++)
      add(account, { name: `Common ${i}`, description: 'shared words everywhere' });
    add(account, { name: 'Rare Gem', description: 'shared words everywhere plus a zymurgy guide' });
    const c = new SkillCatalog(account, null);
    expect(matchSkills(c, 'zymurgy shared words', { limit: 3 })[0]!.name).toBe('Rare Gem');
    // Two terms always remain, rarest first.
    expect(
      termStats(account.db, 'skills_fts', 'skills').prune(['"shared"', '"zymurgy"', '"words"'], 1),
    ).toEqual(['"shared"', '"zymurgy"']);
    expect(termStats(account.db, 'skills_fts', 'skills').prune(['"nothinghere"', '"zymurgy"'])).toEqual([
      '"zymurgy"',
    ]);
  });
});

describe('the in-memory index', () => {
  it("follows imports, edits and deletes, including another connection's writes", () => {
    const dir = tempDir();
    const account = openStore('account', dir)!;
    const c = new SkillCatalog(account, null);
    expect(matchSkills(c, 'quokka census')).toEqual([]);
    add(account, { name: 'Quokka Counter', description: 'Counts quokkas in a census' });
    expect(matchSkills(c, 'quokka census')[0]!.name).toBe('Quokka Counter');
    // Another connection (as another process would) renames it.
    const other = openDatabase(account.file);
    other.prepare("UPDATE skills SET name = 'Wombat Counter', description = 'Counts wombats'").run();
    expect(matchSkills(c, 'quokka census')).toEqual([]);
    expect(matchSkills(c, 'wombats')[0]!.name).toBe('Wombat Counter');
    other.prepare('DELETE FROM skills').run();
    other.close();
    expect(matchSkills(c, 'wombats')).toEqual([]);
  });

  it("searches a skill's instructions and file names at a low weight", () => {
    const account = openStore('account', tempDir())!;
    add(account, {
      name: 'slides',
      description: 'Work with presentation files',
      artifacts: [
        { kind: 'description', name: 'd', content: 'x' },
        { kind: 'approach', name: 'Instructions', content: 'Use markitdown to pull the speaker notes out.' },
        { kind: 'resource', name: 'scripts/thumbnail.py', content: 'print(1)' },
      ],
    });
    add(account, { name: 'notes', description: 'Speaker notes for talks' });
    const c = new SkillCatalog(account, null);
    expect(matchSkills(c, 'run markitdown on it')[0]!.name).toBe('slides');
    expect(matchSkills(c, 'make a thumbnail grid')[0]!.name).toBe('slides');
    // The body counts less than a description that says the same.
    expect(matchSkills(c, 'speaker notes')[0]!.name).toBe('notes');
  });

  it('finds a skill through a synonym or a misspelling, and says so', () => {
    const account = openStore('account', tempDir())!;
    add(account, { name: 'pptx', description: 'Create and read slide decks' });
    add(account, { name: 'xlsx', description: 'Spreadsheet formulas and charts' });
    const c = new SkillCatalog(account, null);
    expect(matchSkills(c, 'extract the text from this PowerPoint')[0]!.name).toBe('pptx');
    expect(matchSkills(c, 'fix my excel workbook')[0]!.name).toBe('xlsx');
    const e = explainMatch(c, 'a spredsheet please', { skill: 'pptx' });
    expect(e.matches[0]!.name).toBe('xlsx');
    expect(e.query_terms).toContainEqual(
      expect.objectContaining({ term: 'spreadsheet', source: 'spelling' }),
    );
    expect(e.skill).toMatchObject({ name: 'pptx', reason: 'no_term_overlap', rank: null });
    expect(e.candidates[0]).toMatchObject({ rank: 1, fields: { description: ['spreadsheet'] } });
  });

  it('explains a skill ranked below the limit and one overridden by the workspace', () => {
    const c = setup();
    const e = explainMatch(c, 'contradictions', { limit: 1, skill: 'Summarize' });
    expect(e.skill?.reason).toBe('no_term_overlap');
    const second = ['Consistency Checker', 'Contradiction Finder'].find((n) => n !== e.matches[0]!.name)!;
    const low = explainMatch(c, 'contradictions', { limit: 1, skill: second });
    expect(low.skill).toMatchObject({ name: second, reason: 'lower_score', rank: 2, above: 1 });
    const hidden = explainMatch(c, 'translate', { skill: 'Translate', skill_scope: 'account' });
    expect(hidden.skill?.reason).toBe('overridden');
  });
});

describe('pruned scoring', () => {
  it('gives exactly the ranking that scoring every skill gives', () => {
    const account = openStore('account', tempDir())!;
    const vocab =
      'pdf slides deck spreadsheet invoice report merge extract chart table email draft design theme colour font test api server'.split(
        ' ',
      );
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pick = (n: number) =>
      Array.from({ length: n }, () => vocab[Math.floor(rand() * vocab.length)]).join(' ');
    account.repo.transaction(() => {
      for (let i = 0; i < 400; i++)
        add(account, { name: `${pick(2)} ${i}`, description: pick(8), tags: [pick(1)] });
    });
    const c = new SkillCatalog(account, null);
    for (let q = 0; q < 40; q++) {
      const message = pick(2 + (q % 5));
      for (const limit of [1, 3, 10]) {
        expect(matchSkills(c, message, { limit }), message).toEqual(
          explainMatch(c, message, { limit }).matches,
        );
      }
    }
  });
});
