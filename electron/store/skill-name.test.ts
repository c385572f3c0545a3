import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAppError } from '../contract/errors.js';
import { packageToRows } from '../skills/convert.js';
import { tempDir } from '../test-support/index.js';
import { loadMigrations, openDatabase } from './db.js';
import { sameSkillName, skillNameKey, skillNameProblem } from './skill-name.js';
import { openStore } from './stores.js';

describe('skillNameKey', () => {
  it.each([
    ['ÉTUDE', 'étude'],
    ['E\u0301tude', 'Étude'], // decomposed é
    ['STRASSE', 'straße'],
    ['Straße', 'STRAẞE'], // capital sharp s
    ['ﬁle check', 'FILE CHECK'], // ligature, via NFKC
    ['ＡＢＣ', 'abc'], // full width
    ['ΟΔΟΣ', 'οδος'],
    ['ΟΔΟΣ', 'οδοσ'], // final sigma folds to sigma
    ['ᾼ', 'ΑΙ'], // capital alpha with prosgegrammeni
    ['Kelvin \u212a', 'kelvin k'],
    ['sum\u00admary', 'SUMMARY'], // soft hyphen is ignorable
  ])('%s and %s are one name', (a, b) => {
    expect(skillNameKey(a)).toBe(skillNameKey(b));
    expect(sameSkillName(a, b)).toBe(true);
  });

  it.each([
    ['ı', 'i'], // dotless i stays distinct, as in Unicode's default folding
    ['Étude', 'Etude'],
    ['résumé', 'resume'],
    ['Summarize', 'Summarise'],
  ])('%s and %s stay different', (a, b) => {
    expect(skillNameKey(a)).not.toBe(skillNameKey(b));
  });

  it('is idempotent and plain lower case for ASCII', () => {
    for (const s of ['Code Review', 'ÉTUDE', 'ΐ', 'ǰ', 'Straße', 'ﬃ']) {
      expect(skillNameKey(skillNameKey(s))).toBe(skillNameKey(s));
    }
    expect(skillNameKey('Code Review')).toBe('code review');
  });
});

describe('skillNameProblem', () => {
  it('accepts ordinary names in any script', () => {
    for (const n of [
      'Consistency Checker',
      'Étude',
      '要約',
      'Résumé (FR)',
      'C++ review',
      'straße',
      '📊 CSV',
    ]) {
      expect(skillNameProblem(n)).toBeNull();
    }
  });

  it.each([
    '\u202a',
    '\u202b',
    '\u202c',
    '\u202d',
    '\u202e',
    '\u2066',
    '\u2067',
    '\u2068',
    '\u2069',
    '\u200e',
    '\u200f',
    '\u061c',
  ])('refuses the bidi control %j', (ch) => {
    expect(skillNameProblem(`ab${ch}cd`)).toMatch(
      /bidirectional-text controls \(U\+[0-9A-F]{4} at character 3\)/,
    );
  });

  it.each([
    '\u200b',
    '\u200c',
    '\u200d',
    '\u2060',
    '\ufeff',
    '\u180e',
    '\u00ad',
    '\u034f',
    '\u115f',
    '\u3164',
    '\ufe0f',
    '\u2028',
    '\u0007',
    '\u001b',
    '\u0085',
    '\ud800',
  ])('refuses the invisible or control character %j', (ch) => {
    expect(skillNameProblem(`ab${ch}cd`)).toMatch(/invisible, zero-width or control characters \(U\+/);
  });
});

function rows(name: string) {
  return packageToRows({
    name,
    description: `${name} skill`,
    version: '1.0.0',
    artifacts: [{ kind: 'description', name: 'd', content: 'x' }],
  });
}

describe('names in a store', () => {
  it('finds a skill by any spelling of its name and refuses a second one that folds the same', () => {
    const store = openStore('account', tempDir())!;
    const r = rows('ÉTUDE Straße');
    store.repo.createSkill(r.skill);
    expect(store.repo.getSummaryByName('étude strasse')?.name).toBe('ÉTUDE Straße');
    expect(store.repo.getSkillByName('Étude STRASSE')?.id).toBe(r.skill.id);
    expect(store.repo.hasSkillNamed('e\u0301tude straße')).toBe(true);
    expect(store.repo.hasSkillNamed('etude strasse')).toBe(false);
    let err: unknown;
    try {
      store.repo.createSkill(rows('étude STRASSE').skill);
    } catch (e) {
      err = e;
    }
    expect(isAppError(err, 'CONFLICT')).toBe(true);
    expect((err as Error).message).toMatch(/already in this store/);
    store.close();
  });

  it('backfills the folded key when upgrading, keeping names that only now collide reachable', () => {
    const migrations = loadMigrations();
    const keyed = migrations.find((m) => m.name === 'skill_name_key')!;
    const file = join(tempDir(), 'agents.db');
    const old = openDatabase(file, { targetVersion: keyed.version - 1 });
    const insert = old.prepare('INSERT INTO skills (id, name, description) VALUES (?, ?, ?)');
    insert.run('s1', 'ÉTUDE', 'upper');
    insert.run('s2', 'étude', 'lower');
    insert.run('s3', 'Straße', 'sharp s');
    old.close();

    const db = openDatabase(file, { targetVersion: keyed.version });
    const keys = db.prepare('SELECT id, name_key FROM skills ORDER BY id').all();
    expect(keys).toEqual([
      { id: 's1', name_key: 'étude' },
      { id: 's2', name_key: 'étude\ns2' },
      { id: 's3', name_key: 'strasse' },
    ]);
    db.close();

    const store = openStore('account', join(file, '..'))!;
    expect(store.repo.getSummaryByName('Étude')?.id).toBe('s1');
    expect(store.repo.getSummaryByName('étude')?.id).toBe('s2'); // exact spelling still reaches it
    expect(store.repo.getSummaryByName('STRASSE')?.id).toBe('s3');
    store.close();
  });
});
