import { describe, expect, it } from 'vitest';
import { packageToRows } from '../skills/convert.js';
import { SkillCatalog } from '../skills/index.js';
import { type SkillPackage, validatePackage } from '../skills/package-schema.js';
import { openDatabase, openStore, type SkillStore } from '../store/index.js';
import { setSwitch } from '../store/switches.js';
import { tempDir } from '../test-support/index.js';
import { buildFtsQuery, explainMatch, matchSkills, warmSkillIndexes } from './phase1.js';
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
    // Memory recall prunes its FTS5 query over earlier chat messages the same way.
    const db = account.db;
    db.prepare(
      "INSERT INTO chat_sessions (id, title, created_at, updated_at) VALUES ('c1', '', 't', 't')",
    ).run();
    const say = db.prepare(
      "INSERT INTO chat_messages (id, session_id, role, content, created_at) VALUES (?, 'c1', 'user', ?, 't')",
    );
    for (let i = 0; i < 60; i++) say.run(`m${i}`, 'shared words everywhere');
    say.run('rare', 'shared words everywhere plus a zymurgy guide');
    // Two terms always remain, rarest first.
    expect(
      termStats(db, 'chat_messages_fts', 'chat_messages')
        .snapshot()
        .prune(['"shared"', '"zymurgy"', '"words"'], 1),
    ).toEqual(['"shared"', '"zymurgy"']);
    expect(
      termStats(db, 'chat_messages_fts', 'chat_messages').snapshot().prune(['"nothinghere"', '"zymurgy"']),
    ).toEqual(['"zymurgy"']);
  });
});

describe('the in-memory index', () => {
  it('finds trigger phrases of every length up to twelve words, as phrases are added and removed', () => {
    const account = openStore('account', tempDir())!;
    const c = new SkillCatalog(account, null);
    add(account, { name: 'Short', description: 'Short phrase skill', trigger_phrases: ['tl;dr'] });
    // Only one-word phrases indexed so far: a two-word one added later is still found.
    expect(matchSkills(c, 'give me the tl;dr please')[0]).toMatchObject({ name: 'Short' });
    const long = 'one two three four five six seven eight nine ten eleven twelve';
    add(account, { name: 'Long', description: 'Long phrase skill', trigger_phrases: [long] });
    const m = matchSkills(c, `so ${long} and more`);
    expect(m[0]).toMatchObject({ name: 'Long' });
    expect(m[0]!.matched_on[0]).toBe('exact_trigger');
    add(account, { name: 'Pair', description: 'Pair phrase skill', trigger_phrases: ['quokka census'] });
    expect(matchSkills(c, 'run the quokka census now')[0]).toMatchObject({ name: 'Pair' });
    // Thirteen words is past what a message's runs are checked for (as before).
    add(account, { name: 'Too Long', description: 'x', trigger_phrases: [`${long} thirteen`] });
    expect(matchSkills(c, `${long} thirteen`)[0]!.name).toBe('Long');
  });

  it('sees a switch another connection sets, at the next match', () => {
    const dir = tempDir();
    const account = openStore('account', dir)!;
    const c = new SkillCatalog(account, null);
    add(account, { name: 'Quokka Counter', description: 'Counts quokkas in a census' });
    expect(matchSkills(c, 'quokka census')[0]!.name).toBe('Quokka Counter');
    const other = openDatabase(account.file);
    other
      .prepare(
        "INSERT INTO skill_switches (name_key, name, state, updated_at) VALUES ('quokka counter', 'Quokka Counter', 'off', '2026-01-01')",
      )
      .run();
    expect(matchSkills(c, 'quokka census')).toEqual([]);
    other.prepare('DELETE FROM skill_switches').run();
    other.close();
    expect(matchSkills(c, 'quokka census')[0]!.name).toBe('Quokka Counter');
  });

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
    expect(matchSkills(c, 'run markitdown on it')[0]).toMatchObject({
      name: 'slides',
      matched_on: ['instructions'],
    });
    expect(matchSkills(c, 'make a thumbnail grid')[0]).toMatchObject({
      name: 'slides',
      matched_on: ['instructions'],
    });
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

describe('trigger-phrase skills under pruning', () => {
  // "zorblat" and "quixel" are scored first and prune the rest. The skill whose trigger phrase the
  // message holds ("if it is": no content word) has neither, so it joins the live list unscored.
  // "common" comes last: in 90 skills it is added by one scan of its postings (the live list is too
  // long for bisection next to them), in 606 by bisection.
  const skills = (commonIn: number) => [
    { name: 'Trigger only', description: 'common', trigger_phrases: ['if it is'] },
    ...Array.from({ length: 5 }, (_, i) => ({
      name: `Strong ${i}`,
      description: `zorblat quixel common ${'pad '.repeat(i)}`,
    })),
    ...Array.from({ length: 600 }, (_, i) => ({
      name: `Filler ${i}`,
      description: `${i < commonIn ? 'common' : 'other'} thing number ${i}`,
    })),
  ];
  const catalog = (commonIn: number) => {
    const store = openStore('account', tempDir())!;
    store.repo.transaction(() => {
      for (const s of skills(commonIn)) add(store, s);
    });
    return new SkillCatalog(store, null);
  };
  const message = 'zorblat quixel common if it is';

  it('gives such a skill its later terms, as scoring every skill does', () => {
    const c = catalog(84);
    const got = matchSkills(c, message, { limit: 5, semantic: false });
    expect(got[0]!.name).toBe('Trigger only');
    // Its score counts "common": above 1, the score of a trigger phrase with no term.
    expect(got[0]!.score).toBeGreaterThan(1);
    expect(got).toEqual(explainMatch(c, message, { limit: 5, semantic: false }).matches);
  });

  it('leaves nothing of one match in the next', () => {
    const used = catalog(600);
    expect(matchSkills(used, message, { limit: 5, semantic: false })[0]!.name).toBe('Trigger only');
    const fresh = catalog(600);
    for (const m of ['common', 'common thing', 'zorblat common']) {
      expect(matchSkills(used, m, { limit: 5, semantic: false }), m).toEqual(
        matchSkills(fresh, m, { limit: 5, semantic: false }),
      );
    }
  });
});

describe('warming the matcher up', () => {
  it('ends quietly when the store closes during the warm-up, at any of its turns', async () => {
    // The warm-up yields between its steps; a process that ends meanwhile closes the stores.
    for (let turns = 0; turns < 6; turns++) {
      const account = openStore('account', tempDir())!;
      account.repo.transaction(() => {
        for (let i = 0; i < 30; i++)
          add(account, { name: `Skill ${i}`, description: `words ${i}`, trigger_phrases: [`phrase ${i}`] });
      });
      const warming = warmSkillIndexes(new SkillCatalog(account, null));
      for (let t = 0; t < turns; t++) await new Promise<void>((r) => setImmediate(r));
      account.close();
      await expect(warming).resolves.toBeUndefined();
    }
  });
});

describe('many trigger phrases in one message', () => {
  it('ranks as scoring every skill does when they fill the top, hidden ones left out', () => {
    const account = openStore('account', tempDir())!;
    const workspace = openStore('workspace', tempDir())!;
    // Phrases of one to four words the messages below hold, several skills each, with other
    // words of the message in their texts; some account skills are overridden by the workspace.
    const phrases = ['report', 'sales report', 'quarterly sales report', 'the quarterly sales report'];
    account.repo.transaction(() => {
      for (let i = 0; i < 40; i++)
        add(account, {
          name: `Account ${i}`,
          description: `${i % 3 === 0 ? 'sales' : 'numbers'} ${i % 5 === 0 ? 'quarterly chart' : 'table'} ${'x '.repeat(i % 4)}`,
          trigger_phrases: [phrases[i % 4]!],
        });
      for (let i = 0; i < 200; i++) add(account, { name: `Other ${i}`, description: `sales chart ${i}` });
    });
    workspace.repo.transaction(() => {
      for (const i of [3, 7, 11])
        add(workspace, { name: `Account ${i}`, description: 'ours', trigger_phrases: ['report'] });
    });
    const c = new SkillCatalog(account, workspace);
    const messages = [
      'draft the quarterly sales report with a chart',
      'sales report please',
      'a report',
      'the quarterly sales report and the sales report',
    ];
    const same = () => {
      for (const m of messages) {
        for (const limit of [1, 5, 12]) {
          expect(matchSkills(c, m, { limit, semantic: false }), `${m} ${limit}`).toEqual(
            explainMatch(c, m, { limit, semantic: false }).matches,
          );
        }
      }
    };
    same();
    // Switched off or name-only, a skill is neither matched nor counted among those that fill the
    // top: the four-word phrase's skills off, the next longest take their places.
    for (const i of [3, 15, 19, 23, 27, 31, 35, 39]) setSwitch(account.db, `Account ${i}`, 'off');
    setSwitch(workspace.db, 'Account 7', 'name-only');
    same();
    const top = matchSkills(c, 'the quarterly sales report', { limit: 5, semantic: false });
    expect(top.map((x) => x.name)).not.toContain('Account 3');
    expect(top.map((x) => x.name)).not.toContain('Account 7');
  });
});

/** A fixed catalog: Zipf-like words over every field, so postings span fields and pruning kicks in. */
function pinnedCatalog(): { skills: Array<Record<string, unknown>>; messages: string[] } {
  const vocab = (
    'data file report chart table sheet slide deck pdf invoice email draft design theme colour font ' +
    'test api server deploy log metric alert budget forecast summary meeting note task ticket review ' +
    'code bug release schema query index cache image video audio caption translate contract policy'
  ).split(' ');
  let seed = 11;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  // Word i drawn with weight 1 / (i + 1): a few words in most skills, most in a few.
  const cum: number[] = [];
  for (let i = 0; i < vocab.length; i++) cum.push((cum[i - 1] ?? 0) + 1 / (i + 1));
  const word = () => {
    const r = rand() * cum[cum.length - 1]!;
    return vocab[cum.findIndex((c) => c >= r)]!;
  };
  const pick = (n: number) => Array.from({ length: n }, word).join(' ');
  const skills = Array.from({ length: 1500 }, (_, i) => ({
    name: `${pick(1 + (i % 3))} ${i}`,
    description: pick(6 + (i % 9)),
    tags: [pick(1), pick(1)],
    intent_patterns: i % 4 === 0 ? [pick(3)] : [],
    trigger_phrases: i % 7 === 0 ? [pick(3)] : [],
  }));
  const messages = Array.from({ length: 14 }, (_, q) => pick(2 + (q % 6)));
  return { skills, messages };
}

// The lexical top 5 (name and score) of the pinned catalog's messages, as the matcher gave them
// before its scoring loops were rewritten over typed arrays: a faster matcher must
// rank exactly as the old one did. One score differs, fixed on purpose: a skill whose trigger phrase
// the message holds ('audio 714') now gets every term after pruning (1.776762 before, short of
// what scoring every skill gives it).
const PINNED: Record<string, string[]> = {
  'chart report': [
    'report chart 607 0.663223',
    'report 390 0.659331',
    'report 891 0.652842',
    'report chart 850 0.65228',
    'report 225 0.64891',
  ],
  'report theme release': [
    'report 810 0.886757',
    'release 462 0.876577',
    'release report file 239 0.869597',
    'release table 1399 0.864375',
    'release server 790 0.860296',
  ],
  'draft data release table': [
    'table release 544 0.897518',
    'data draft 991 0.890437',
    'release draft data 923 0.889866',
    'report 810 0.879985',
    'data 1020 0.877723',
  ],
  'data log table deck data': [
    'slide deck 481 0.881092',
    'log 606 0.878282',
    'table deck 403 0.877887',
    'log deck 421 0.875104',
    'deck 240 0.87125',
  ],
  'api invoice pdf data file deploy': [
    'table deck 811 0.902689',
    'draft api deck 191 0.901354',
    'invoice pdf theme 98 0.901144',
    'deploy invoice data 533 0.899646',
    'data deploy 1381 0.896673',
  ],
  'data policy data deck schema video pdf': [
    'data deck schema 812 0.930693',
    'deck schema 1060 0.92931',
    'schema slide data 1205 0.915141',
    'pdf query 823 0.914219',
    'schema report 1306 0.908365',
  ],
  'data table': [
    'table data 1063 0.632046',
    'table 519 0.618763',
    'table 1275 0.617417',
    'data data table 212 0.614601',
    'table data 97 0.614066',
  ],
  'data file data': [
    'file chart 364 1.311123',
    'file alert 343 1.306902',
    'report file data 182 1.293215',
    'file data 358 0.340995',
    'data file 547 0.340891',
  ],
  'file file file data': [
    'file data 358 0.340995',
    'data file 547 0.340891',
    'file data 844 0.336552',
    'file data 1054 0.3359',
    'file data 817 0.334948',
  ],
  'data font theme file forecast': [
    'data deck schema 812 1.861812',
    'slide data forecast 389 0.894281',
    'data server theme 1295 0.888894',
    'data test data 1103 0.882029',
    'report schema font 215 0.881075',
  ],
  'summary draft file data chart budget': [
    'audio 714 1.789287',
    'summary 813 0.917572',
    'file 282 0.907226',
    'data draft 31 0.904897',
    'file data 691 0.900699',
  ],
  'draft data sheet chart code schema data': [
    'summary 813 0.91689',
    'data code deck 275 0.912119',
    'code data 1447 0.905969',
    'draft summary schema 29 0.894955',
    'schema theme data 902 0.893967',
  ],
  'data design': [
    'data design 130 0.773075',
    'data design 853 0.760173',
    'design data 1186 0.760017',
    'design data design 1391 0.756322',
    'data file design 422 0.753432',
  ],
  'data draft sheet': [
    'sheet data 967 0.831805',
    'sheet draft 982 0.828614',
    'data draft 61 0.828086',
    'data draft 31 0.826668',
    'sheet 1338 0.81486',
  ],
};

describe('pinned rankings', () => {
  it('ranks a fixed catalog exactly as before the scoring loops were rewritten', () => {
    const account = openStore('account', tempDir())!;
    const { skills, messages } = pinnedCatalog();
    account.repo.transaction(() => {
      for (const s of skills) add(account, s);
    });
    const c = new SkillCatalog(account, null);
    const got: Record<string, string[]> = {};
    for (const m of messages)
      got[m] = matchSkills(c, m, { limit: 5, semantic: false }).map((x) => `${x.name} ${x.score}`);
    expect(got).toEqual(PINNED);
    // Unpruned (every skill scored) agrees too.
    for (const m of messages)
      expect(explainMatch(c, m, { limit: 5, semantic: false }).matches).toEqual(
        matchSkills(c, m, { limit: 5, semantic: false }),
      );
  });
});
