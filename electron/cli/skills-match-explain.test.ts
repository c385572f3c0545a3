import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../test-support/index.js';

const pkg = (name: string, description: string, extra: Record<string, unknown> = {}) => ({
  name,
  description,
  version: '1.0.0',
  artifacts: [{ kind: 'description', name: 'Overview', ordinal: 0, content: description }],
  ...extra,
});

describe('skilldesk skills match --explain', () => {
  it('says which terms matched which fields, and why a named skill did not match', async () => {
    const home = tempDir();
    const dir = tempDir();
    writeFileSync(join(dir, 'a.json'), JSON.stringify(pkg('pptx', 'Read, create and edit slide decks')));
    writeFileSync(join(dir, 'b.json'), JSON.stringify(pkg('xlsx', 'Spreadsheet formulas and charts')));
    expect((await runCli(['--home', home, 'skills', 'import', dir])).code).toBe(0);

    const r = await runCli([
      '--home',
      home,
      '--json',
      'skills',
      'match',
      'extract the text of this PowerPoint',
      '--explain',
      'xlsx',
    ]);
    expect(r.code).toBe(0);
    const out = r.json();
    expect(out.matches[0]).toMatchObject({ name: 'pptx', scope: 'account' });
    expect(typeof out.took_ms).toBe('number');
    expect(typeof out.index_ms).toBe('number');
    expect(out.explain.query_terms).toContainEqual(
      expect.objectContaining({ term: 'slide', source: 'synonym', from: 'powerpoint' }),
    );
    expect(out.explain.candidates[0]).toMatchObject({ name: 'pptx', rank: 1, exact_trigger: null });
    expect(out.explain.candidates[0].fields.description).toContain('slide');
    expect(out.explain.skill).toEqual({
      name: 'xlsx',
      scope: 'account',
      rank: null,
      score: null,
      reason: 'no_term_overlap',
      above: null,
    });

    const human = await runCli(['--home', home, 'skills', 'match', 'edit my slides', '--explain']);
    expect(human.stdout).toMatch(
      /1\. pptx .*\n\s+bm25 [\d.]+, semantic -?[\d.]+(, e5 -?[\d.]+)?(, MiniLM -?[\d.]+)?; description: edit slide/,
    );
    expect(human.stdout).toContain('Query terms: edit, slide');
  });
});
