import { describe, expect, it } from 'vitest';
import { packageToRows } from '../skills/convert.js';
import { SkillCatalog } from '../skills/index.js';
import { type SkillPackage, validatePackage } from '../skills/package-schema.js';
import { openStore } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { quantize, staticEmbedding } from './embedding.js';
import { explainMatch, matchSkills } from './phase1.js';
import { SemanticSpace } from './semantic.js';
import { SkillIndex, skillIndex } from './skill-index.js';
import { addSkill, PLAIN_CATALOG, plainCatalogStore } from './test-catalog.js';
import { createVectorScanner } from './vector-scan.js';

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
    addSkill(store, { name: 'pdf', description: 'Merge and split PDF files' });
    const ix = new SkillIndex(store.db, null);
    ix.sync();
    expect(ix.embedding).toBeNull();
    expect(ix.vectors.length).toBe(0);
    expect(ix.live).toBe(1);
  });

  it('breaks lexical near-ties by meaning, deterministically', () => {
    const store = openStore('account', tempDir())!;
    // Lexically the two tie on "report" (same lengths, same fields); meaning decides.
    addSkill(store, {
      name: 'expense-report',
      description: 'Expense report: receipts, amounts, cost centres and totals',
    });
    addSkill(store, {
      name: 'status-report',
      description: 'Status report: progress, plans, problems and next steps',
    });
    addSkill(store, { name: 'unrelated', description: 'Rotate and watermark PDF pages' });
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
    addSkill(store, { name: 'pdf', description: 'Merge and split PDF files' });
    addSkill(store, { name: 'pptx', description: 'Build slide decks' });
    const e = staticEmbedding()!;
    const first = new SkillIndex(store.db, e);
    first.sync();
    for (const slot of first.byKey.values()) expect(first.hasVector(slot)).toBe(true);
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
    // (Without the saved phase-1 index, which holds the vectors too and would be loaded instead.)
    store.db.prepare('DELETE FROM skill_index_cache').run();
    const ix = new SkillIndex(store.db, e);
    ix.sync();
    const slot = ix.byKey.get('pdf')!;
    expect([...ix.vectors.subarray(slot * e.dims, (slot + 1) * e.dims)]).toEqual([
      ...new Int8Array(e.dims).fill(7),
    ]);
    // A changed skill is embedded anew; a deleted one takes its vector with it.
    store.db
      .prepare("UPDATE skills SET description = 'Merge, split and rotate PDF files' WHERE name = 'pdf'")
      .run();
    ix.sync();
    expect(ix.byKey.get('pdf')).toBe(slot);
    expect([...ix.vectors.subarray(slot * e.dims, (slot + 1) * e.dims)]).not.toEqual([
      ...new Int8Array(e.dims).fill(7),
    ]);
    store.db.prepare("DELETE FROM skills WHERE name = 'pptx'").run();
    expect(store.db.prepare('SELECT count(*) FROM skill_embeddings').pluck().get()).toBe(1);
  });
});

// No word of it (nor a synonym or spelling fix) is in any skill: only meaning can find slack-gif.
const TACO = 'a tiny moving picture of a taco for our team chat';

describe('semantic recall stage', () => {
  it('finds a skill that shares no word with the message, over the whole catalog, and says why', () => {
    const c = new SkillCatalog(plainCatalogStore(), null);
    expect(matchSkills(c, TACO, { semantic: false })).toEqual([]);
    const m = matchSkills(c, TACO);
    expect(m[0]).toMatchObject({ name: 'slack-gif', matched_on: ['meaning'] });
    expect(m[0]!.score).toBeGreaterThan(0);
    expect(m[0]!.score).toBeLessThan(1);
    const e = explainMatch(c, TACO, { skill: 'slack-gif' });
    expect(e.candidates[0]).toMatchObject({ name: 'slack-gif', bm25: 0, fields: {} });
    expect(e.candidates[0]!.semantic!).toBeGreaterThan(0.45);
    expect(e.skill).toMatchObject({ rank: 1, reason: 'matched' });
    // A message that asks for no skill matches none by meaning either.
    for (const msg of ['thanks, that is great', 'what time is it in Tokyo', 'the and of']) {
      expect(matchSkills(c, msg)).toEqual([]);
    }
  });

  it('ranks the same whatever order the catalog was built in, and on every call', () => {
    const a = new SkillCatalog(plainCatalogStore(), null);
    const b = new SkillCatalog(plainCatalogStore([...PLAIN_CATALOG].reverse()), null);
    for (const msg of [
      TACO,
      'my lecture needs visual pages for the projector',
      'numbers for the accountant',
    ]) {
      const first = matchSkills(a, msg, { limit: 8 });
      expect(matchSkills(a, msg, { limit: 8 })).toEqual(first);
      expect(matchSkills(b, msg, { limit: 8 })).toEqual(first);
    }
  });

  it('ranks lexically alone where the embedding table is absent', () => {
    const store = plainCatalogStore();
    skillIndex(store.db, (db) => new SkillIndex(db, null));
    const c = new SkillCatalog(store, null);
    expect(matchSkills(c, TACO)).toEqual([]);
    const e = explainMatch(c, 'merge these PDF files');
    expect(e.matches[0]!.name).toBe('pdf');
    for (const x of e.candidates) expect(x.semantic).toBeNull();
  });

  it('lets a lexical top-5 skill give way only to one within 0.014 of its lexical score', () => {
    const store = plainCatalogStore();
    // Near neighbours sharing words, so the lexical top 5 is full and meaning has calls to make.
    for (const [name, description] of [
      ['pdf-forms', 'Fill in PDF forms and flatten them'],
      ['invoice-pdf', 'Read invoices from PDF files: totals, tax and vendors'],
      ['deck-review', 'Review slide decks for clarity and speaker notes'],
      ['report-writer', 'Write reports with tables and charts for the company'],
      ['chart-maker', 'Make charts from tables in spreadsheets'],
    ]) {
      addSkill(store, { name, description });
    }
    const c = new SkillCatalog(store, null);
    const messages = [
      'put the tables of this PDF in a spreadsheet with charts',
      'a report for the company with charts and speaker notes',
      'fill the tax form in the PDF and compute the totals',
      'slides for the leadership update with a chart',
      TACO,
    ];
    // Meaning moved scores (it has calls to make); the ties it breaks are tested above.
    let moved = 0;
    for (const msg of messages) {
      const lexical = new Map(
        matchSkills(c, msg, { semantic: false, limit: 50 }).map((m) => [m.name, m.score]),
      );
      const lexTop = [...lexical.keys()].slice(0, 5);
      const fused = matchSkills(c, msg);
      const hybrid = fused.map((m) => m.name);
      if (fused.some((m) => m.score !== lexical.get(m.name))) moved++;
      for (const gone of lexTop.filter((n) => !hybrid.includes(n))) {
        for (const n of hybrid)
          expect(lexical.get(n) ?? 0).toBeGreaterThanOrEqual(lexical.get(gone)! - 0.014);
      }
    }
    expect(moved).toBeGreaterThan(0);
  });

  it('scans with integer arithmetic that WebAssembly SIMD and JavaScript agree on exactly', () => {
    const simd = createVectorScanner(32);
    const js = createVectorScanner(32, false);
    expect(js.simd).toBe(false);
    const n = 1000;
    simd.reserve(n);
    js.reserve(n);
    for (let i = 0; i < n * 32; i++) {
      const x = (Math.imul(i + 1, 2654435761) >>> 25) - 64;
      simd.vectors[i] = x * 2 - 1;
      js.vectors[i] = x * 2 - 1;
    }
    const q = new Int16Array(32).map((_, i) => (i % 2 ? 1 : -1) * (16384 - i * 500));
    expect([...simd.scan(n, q)]).toEqual([...js.scan(n, q)]);
    expect(js.scan(1, q)[0]).toBe([...js.vectors.subarray(0, 32)].reduce((a, v, i) => a + v * q[i]!, 0));
    // Keeping only the vectors whose weighted score reaches a bar: the same rows on both paths,
    // and the ones a full scan says.
    for (let i = 0; i < n; i++) simd.weights[i] = js.weights[i] = ((i * 7919) % 1000) / 1000;
    const dots = [...js.scan(n, q)];
    const want = dots
      .map((_, i) => i)
      .filter((i) => i >= 100 && (dots[i]! - 37.5) * js.weights[i]! >= 40_000);
    expect(want.length).toBeGreaterThan(10);
    expect(want.length).toBeLessThan(n / 2);
    for (const s of [simd, js]) {
      const kept = s.scanAbove(100, n, q, 37.5, 40_000);
      expect([...kept.rows]).toEqual(want);
      expect([...kept.dots]).toEqual(want.map((i) => dots[i]));
    }
    // Growing keeps the vectors and the weights.
    const w = [...simd.weights.subarray(0, n)];
    simd.reserve(n * 5);
    expect([...simd.weights.subarray(0, n)]).toEqual(w);
    expect([...simd.scan(n, q)]).toEqual(dots);
    expect(() => createVectorScanner(20)).toThrow(/multiple of 16/);
  });

  it('assembles a scan for any vector length the table may have, equal to JavaScript', () => {
    // 16 (one step), 48 (an odd number of steps), 256 (more query than the registers hold).
    for (const dims of [16, 48, 256]) {
      const simd = createVectorScanner(dims);
      const js = createVectorScanner(dims, false);
      expect(simd.simd).toBe(true);
      const n = 300;
      simd.reserve(n);
      js.reserve(n);
      for (let i = 0; i < n * dims; i++)
        simd.vectors[i] = js.vectors[i] = (Math.imul(i + 7, 2654435761) >>> 24) - 128;
      for (let i = 0; i < n; i++) simd.weights[i] = js.weights[i] = 1 + (i % 5);
      const q = new Int16Array(dims).map((_, i) => (Math.imul(i + 3, 40503) % 32768) - 16384);
      const dots = [...js.scan(n, q)];
      expect([...simd.scan(n, q)], `${dims}`).toEqual(dots);
      const brute = (i: number) =>
        [...js.vectors.subarray(i * dims, (i + 1) * dims)].reduce((a, v, j) => a + v * q[j]!, 0);
      expect(dots[n - 1]).toBe(brute(n - 1));
      const least = [...dots].sort((a, b) => b - a)[40]!;
      const a = simd.scanAbove(0, n, q, 0, least);
      const b = js.scanAbove(0, n, q, 0, least);
      expect([...a.rows], `${dims}`).toEqual([...b.rows]);
      expect(a.rows.length).toBeGreaterThanOrEqual(41);
    }
  });

  it('finds exactly the nearest skills, as comparing the message with every skill would', () => {
    const store = plainCatalogStore();
    const topics = ['invoices', 'slides', 'poems', 'emails', 'charts', 'tests', 'gifs', 'forms'];
    const verbs = ['summarise', 'translate', 'check', 'draft', 'merge', 'clean'];
    for (const t of topics)
      for (const v of verbs) addSkill(store, { name: `${v}-${t}`, description: `${v} ${t} for the team` });
    const ix = skillIndex(store.db);
    const space = SemanticSpace.of([ix])!;
    for (const msg of [
      TACO,
      'numbers for the accountant',
      'a sonnet about autumn',
      'clean up these slides',
    ]) {
      const q = space.query(msg)!;
      const all = [...ix.byKey.values()]
        .map((slot) => ({ slot, cos: space.cosine(q, ix, slot), name: ix.docs[slot]!.name }))
        .sort((a, b) => b.cos - a.cos || (a.name < b.name ? -1 : 1));
      expect(space.nearest(q, 7, () => false).map((n) => [ix.docs[n.slot]!.name, n.cos])).toEqual(
        all.slice(0, 7).map((x) => [x.name, x.cos]),
      );
    }
  });

  it('centres vectors on the catalog mean, recomputed when the catalog changes', () => {
    const store = plainCatalogStore();
    const ix = skillIndex(store.db);
    const before = SemanticSpace.of([ix])!;
    expect(SemanticSpace.of([ix])).toBe(before);
    addSkill(store, { name: 'sql-style', description: 'Format SQL queries in our house style' });
    skillIndex(store.db);
    const mean = [...before.mean];
    const after = SemanticSpace.of([ix])!;
    expect(after).toBe(before); // caught up with the change, not rebuilt
    expect(after.stats).toEqual({ builds: 1, updates: 1 });
    expect([...after.mean]).not.toEqual(mean);
  });
});

describe('semantic recall stage after a change', () => {
  it('folds a save into a 10k-skill index without rebuilding its vectors, ranking as a fresh index does', () => {
    const dir = tempDir();
    const store = openStore('account', dir)!;
    const verbs = [
      'summarise',
      'translate',
      'check',
      'draft',
      'merge',
      'clean',
      'review',
      'plan',
      'chart',
      'file',
    ];
    const things = [
      'invoices',
      'slides',
      'poems',
      'emails',
      'charts',
      'tests',
      'gifs',
      'forms',
      'contracts',
      'recipes',
    ];
    const whos = [
      'the team',
      'a client',
      'the board',
      'students',
      'support',
      'finance',
      'a landlord',
      'the lab',
    ];
    store.repo.transaction(() => {
      for (let i = 0; i < 10_000; i++) {
        const v = verbs[i % verbs.length]!;
        const t = things[Math.floor(i / verbs.length) % things.length]!;
        const w = whos[Math.floor(i / 100) % whos.length]!;
        const r = validatePackage({
          name: `${v}-${t}-${i}`,
          description: `${v} ${t} for ${w}, batch ${i % 37}`,
          artifacts: [{ kind: 'description', name: 'd', content: `${t} ${w}` }],
        });
        if (!r.ok) throw new Error(JSON.stringify(r.issues));
        const rows = packageToRows(r.value as SkillPackage);
        store.repo.createSkill(rows.skill);
        for (const a of rows.artifacts) store.repo.addArtifact(a);
      }
    });
    const c = new SkillCatalog(store, null);
    const messages = ['pick a colour palette for our brand', 'merge the invoices for finance', TACO];
    for (const m of messages) matchSkills(c, m);
    const ix = skillIndex(store.db);
    const space = SemanticSpace.of([ix])!;
    expect(space.stats.builds).toBe(1);

    // A save in the Composer (a new skill), an edit and a delete, each followed by a match.
    addSkill(store, {
      name: 'palette-picker',
      description: 'Choose brand colours: hues, contrast and swatches',
    });
    expect(matchSkills(c, messages[0]!).map((m) => m.name)).toContain('palette-picker');
    const edited = store.repo.getSummaryByName('merge-invoices-4')!;
    store.repo.updateSkill({ ...edited, description: 'Merge invoice PDFs into one file for finance' });
    matchSkills(c, messages[1]!);
    store.repo.deleteSkill(store.repo.getSkillByName('draft-invoices-3')!.id);
    matchSkills(c, messages[2]!);
    expect(SemanticSpace.of([ix])).toBe(space);
    expect(space.stats).toEqual({ builds: 1, updates: 3 });

    // A fresh index over the same catalog (another connection) ranks exactly the same.
    const fresh = new SkillCatalog(openStore('account', dir)!, null);
    for (const m of [
      ...messages,
      'a spreadsheet of recipes for students',
      'review contracts for a landlord',
    ]) {
      expect(matchSkills(c, m, { limit: 10 })).toEqual(matchSkills(fresh, m, { limit: 10 }));
    }
    const other = new SkillIndex(store.db);
    other.sync();
    const again = SemanticSpace.of([other])!;
    expect(again).not.toBe(space);
    for (const m of messages) {
      const near = (s: SemanticSpace, x: SkillIndex) =>
        s.nearest(s.query(m)!, 20, () => false).map((n) => [x.docs[n.slot]!.name, n.cos]);
      expect(near(space, ix)).toEqual(near(again, other));
    }
    // Past 8,192 slots the scan keeps only what can still reach the top k: still exactly the
    // nearest that comparing the message with every visible skill gives.
    const hidden = (slot: number) => slot % 3 === 0;
    for (const m of [...messages, 'a spreadsheet of recipes for students']) {
      const q = space.query(m)!;
      const all = [...ix.byKey.values()]
        .filter((slot) => !hidden(slot) && ix.hasVector(slot))
        .map((slot) => ({ name: ix.docs[slot]!.name, cos: space.cosine(q, ix, slot) }))
        .sort((a, b) => b.cos - a.cos || (a.name < b.name ? -1 : 1));
      expect(
        space.nearest(q, 20, (_, slot) => hidden(slot)).map((n) => [ix.docs[n.slot]!.name, n.cos]),
      ).toEqual(all.slice(0, 20).map((x) => [x.name, x.cos]));
    }
  }, 120_000);
});
