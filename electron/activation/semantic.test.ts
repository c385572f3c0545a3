import { describe, expect, it } from 'vitest';
import { packageToRows } from '../skills/convert.js';
import { SkillCatalog } from '../skills/index.js';
import { type SkillPackage, validatePackage } from '../skills/package-schema.js';
import { openStore, type SkillStore } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { quantize, staticEmbedding } from './embedding.js';
import { explainMatch, matchSkills } from './phase1.js';
import { SkillIndex } from './skill-index.js';

function add(store: SkillStore, raw: Record<string, unknown>): void {
  const r = validatePackage({ artifacts: [{ kind: 'description', name: 'd', content: 'x' }], ...raw });
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  const rows = packageToRows(r.value as SkillPackage);
  store.repo.createSkill(rows.skill);
  for (const a of rows.artifacts) store.repo.addArtifact(a);
}

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('static embedding (the semantic half of phase 1)', () => {
  it('ships with the app and embeds text deterministically, closer for the same meaning', () => {
    const e = staticEmbedding();
    expect(e, 'models/static-embedding/ is missing').not.toBeNull();
    const deck = e!.embed('make a slide deck for the board meeting')!;
    expect(Math.hypot(...deck)).toBeCloseTo(1, 5);
    expect([...e!.embed('make a slide deck for the board meeting')!]).toEqual([...deck]);
    const slides = e!.embed('a presentation with slides')!;
    const tax = e!.embed('compute the sales tax on these invoices')!;
    expect(cos(deck, slides)).toBeGreaterThan(cos(deck, tax) + 0.05);
    expect(e!.embed('')).toBeNull();
    expect(e!.embed('!!! ???')).not.toBeNull(); // punctuation has rows too
    expect(quantize(new Float32Array([1, -1, 0.5]))).toEqual(new Int8Array([127, -127, 64]));
  });

  it('is absent, not an error, where the table is missing', () => {
    expect(staticEmbedding(tempDir())).toBeNull();
    const store = openStore('account', tempDir())!;
    add(store, { name: 'pdf', description: 'Merge and split PDF files' });
    const ix = new SkillIndex(store.db, null);
    ix.sync();
    expect(ix.embedding).toBeNull();
    expect(ix.vectors.length).toBe(0);
    expect(ix.live).toBe(1);
  });

  it('breaks lexical near-ties by meaning, deterministically, and never adds a skill with no overlap', () => {
    const store = openStore('account', tempDir())!;
    // Lexically the two tie on "report" (same lengths, same fields); meaning decides.
    add(store, {
      name: 'expense-report',
      description: 'Expense report: receipts, amounts, cost centres and totals',
    });
    add(store, {
      name: 'status-report',
      description: 'Status report: progress, plans, problems and next steps',
    });
    add(store, { name: 'unrelated', description: 'Rotate and watermark PDF pages' });
    const c = new SkillCatalog(store, null);
    const names = (msg: string, semantic?: boolean) => matchSkills(c, msg, { semantic }).map((m) => m.name);
    const launch = 'a report for my manager on how the launch is going';
    const spend = 'write the report on our spending this month';
    expect(names(launch, false)).toEqual(['expense-report', 'status-report']);
    expect(names(launch)).toEqual(['status-report', 'expense-report']);
    expect(names(spend)).toEqual(['expense-report', 'status-report']);
    expect(names(launch)).toEqual(names(launch));
    for (const m of matchSkills(c, launch)) {
      expect(m.score).toBeGreaterThan(0);
      expect(m.score).toBeLessThan(1);
    }
    const why = explainMatch(c, launch, { skill: 'expense-report' });
    expect(why.candidates.map((x) => x.name)).toEqual(names(launch));
    expect(why.candidates[0]!.semantic!).toBeGreaterThan(why.candidates[1]!.semantic!);
    expect(why.skill).toMatchObject({ rank: 2, reason: 'matched', above: 1 });
    for (const x of explainMatch(c, launch, { semantic: false }).candidates) expect(x.semantic).toBeNull();
  });

  it('saves each skill vector in the store and reads it back instead of embedding again', () => {
    const store = openStore('account', tempDir())!;
    add(store, { name: 'pdf', description: 'Merge and split PDF files' });
    add(store, { name: 'pptx', description: 'Build slide decks' });
    const e = staticEmbedding()!;
    const first = new SkillIndex(store.db, e);
    first.sync();
    for (const slot of first.byKey.values()) expect(first.ensureVector(slot)).toBe(true);
    const rows = store.db
      .prepare(
        'SELECT s.name, e.model, e.vector FROM skill_embeddings e JOIN skills s ON s.id = e.skill_id ORDER BY s.name',
      )
      .all() as Array<{ name: string; model: string; vector: Buffer }>;
    expect(rows.map((r) => [r.name, r.model, r.vector.length])).toEqual([
      ['pdf', e.id, e.dims],
      ['pptx', e.id, e.dims],
    ]);
    // A saved vector is what a new index uses (no embedding again) while the skill's text is unchanged.
    const marked = Buffer.alloc(e.dims, 7);
    store.db
      .prepare(
        "UPDATE skill_embeddings SET vector = ? WHERE skill_id = (SELECT id FROM skills WHERE name = 'pdf')",
      )
      .run(marked);
    const ix = new SkillIndex(store.db, e);
    ix.sync();
    const slot = ix.byKey.get('pdf')!;
    ix.ensureVector(slot);
    expect([...ix.vectors.subarray(slot * e.dims, (slot + 1) * e.dims)]).toEqual([
      ...new Int8Array(e.dims).fill(7),
    ]);
    // A changed skill is embedded anew; a deleted one takes its vector with it.
    store.db
      .prepare("UPDATE skills SET description = 'Merge, split and rotate PDF files' WHERE name = 'pdf'")
      .run();
    ix.sync();
    ix.ensureVector(ix.byKey.get('pdf')!);
    expect([...ix.vectors.subarray(slot * e.dims, (slot + 1) * e.dims)]).not.toEqual([
      ...new Int8Array(e.dims).fill(7),
    ]);
    store.db.prepare("DELETE FROM skills WHERE name = 'pptx'").run();
    expect(store.db.prepare('SELECT count(*) FROM skill_embeddings').pluck().get()).toBe(1);
  });
});
