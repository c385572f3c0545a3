import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { extractLinks, indexWorkspacePages, parseFrontmatter, slugify, WorkspacePages } from './index.js';

function workspace() {
  const dir = tempDir();
  mkdirSync(join(dir, 'notes'));
  mkdirSync(join(dir, '.hidden'));
  writeFileSync(
    join(dir, 'notes', 'Aria.md'),
    '---\ntype: character\ntags: [hero, north]\n---\n# Aria\nAria lives in [[Winterhold]] and fights [[Vex|the villain]].\n',
  );
  writeFileSync(
    join(dir, 'Winterhold.md'),
    '---\ntype: location\ntags: north\n---\n# Winterhold\nA cold city.\n',
  );
  writeFileSync(join(dir, '.hidden', 'secret.md'), '# Secret\n');
  const db = openDatabase(join(dir, 'agents.db'));
  return { dir, db, pages: new WorkspacePages(db) };
}

describe('workspace pages', () => {
  it('parses frontmatter, links and slugs', () => {
    expect(slugify('Hero Name')).toBe('hero-name');
    expect(extractLinks('[[A B]] [[c#h]] [[d|alias]] [[A B]]')).toEqual([
      { slug: 'a-b', text: 'A B' },
      { slug: 'c', text: 'c' },
      { slug: 'd', text: 'd' },
    ]);
    expect(parseFrontmatter('---\ntype: x\n---\nbody').frontmatter).toEqual({ type: 'x' });
    expect(parseFrontmatter('---\n: [\n---\nbody').frontmatter).toEqual({});
  });

  it('indexes Markdown files and answers the host-function queries', () => {
    const { dir, db, pages } = workspace();
    const report = indexWorkspacePages(db, dir);
    expect(report).toMatchObject({ added: 2, updated: 0, removed: 0 });
    expect(pages.getPage('aria')).toMatchObject({
      path: 'notes/Aria.md',
      type: 'character',
      tags: ['hero', 'north'],
    });
    expect(pages.getPage('secret')).toBeNull();
    expect(pages.search('cold city')[0]?.slug).toBe('winterhold');
    expect(pages.search('" OR *')).toEqual([]);
    expect(pages.getPagesByType('Location').map((p) => p.slug)).toEqual(['winterhold']);
    expect(pages.getTags()).toEqual([
      { tag: 'north', count: 2 },
      { tag: 'hero', count: 1 },
    ]);
    const refs = pages.getReferences('winterhold');
    expect(refs?.incoming.map((p) => p.slug)).toEqual(['aria']);
    expect(pages.getReferences('aria')?.outgoing).toEqual([
      { slug: 'vex', text: 'Vex', exists: false },
      { slug: 'winterhold', text: 'Winterhold', exists: true },
    ]);
    db.close();
  });

  it('re-indexing records revisions, keeps history of removed pages and is idempotent', () => {
    const { dir, db, pages } = workspace();
    indexWorkspacePages(db, dir);
    expect(indexWorkspacePages(db, dir)).toMatchObject({ added: 0, updated: 0, removed: 0, unchanged: 2 });
    writeFileSync(join(dir, 'Winterhold.md'), '# Winterhold\nNow warm.\n');
    expect(indexWorkspacePages(db, dir)).toMatchObject({ updated: 1 });
    expect(pages.getHistory('winterhold').map((r) => r.revision)).toEqual([2, 1]);
    expect(pages.search('warm')[0]?.slug).toBe('winterhold');
    expect(pages.search('cold')).toEqual([]);
    rmSync(join(dir, 'Winterhold.md'));
    expect(indexWorkspacePages(db, dir)).toMatchObject({ removed: 1 });
    expect(pages.getPage('winterhold')).toBeNull();
    expect(pages.getHistory('Winterhold.md')).toHaveLength(2);
    db.close();
  });
});
