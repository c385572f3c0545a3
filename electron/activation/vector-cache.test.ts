// The store's one-row copy of a model's vectors (skill_vector_cache) and the centred space built
// without centred copies. A stand-in engine (vectors from the text's hash) keeps these independent
// of the installed models: what is tested is what the store and the space do with any vectors.
import { createHash } from 'node:crypto';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { openStore, type SkillStore } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { DenseIndex, DenseSpace, denseText } from './dense.js';
import type { E5Engine } from './e5.js';
import { SkillIndex } from './skill-index.js';
import { addSkill } from './test-catalog.js';

const DIMS = 8;

/** A unit vector per text, from its SHA-256: the same text, the same vector, in any process. */
function vectorOf(text: string): Float32Array {
  const h = createHash('sha256').update(text).digest();
  const v = Float32Array.from({ length: DIMS }, (_, i) => h[i]! / 255 - 0.3);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

function stubEngine(): E5Engine & { embedded: string[] } {
  const embedded: string[] = [];
  return {
    id: 'stub-model',
    dims: DIMS,
    embedded,
    querySync: vectorOf,
    query: async (t) => vectorOf(t),
    passages: async (texts) => {
      embedded.push(...texts);
      return texts.map(vectorOf);
    },
  };
}

const NAMES = ['pdf', 'xlsx', 'poem', 'translate', 'slides', 'invoice'];

function catalog(): { dir: string; store: SkillStore } {
  const dir = tempDir();
  const store = openStore('account', dir)!;
  for (const name of NAMES) addSkill(store, { name, description: `Work with ${name} things` });
  return { dir, store };
}

/** A new process's view of the store: its own connection, index and vectors. */
function reopen(dir: string) {
  const store = openStore('account', dir)!;
  const ix = new SkillIndex(store.db);
  ix.sync();
  const engine = stubEngine();
  const dense = new DenseIndex(ix, engine);
  dense.sync();
  return { store, ix, dense, engine };
}

const bytesOf = (d: DenseIndex) => Buffer.from(d.vectors.buffer, d.vectors.byteOffset, d.vectors.byteLength);

describe('the one-row copy of a model’s vectors', () => {
  it('gives a new process every vector without reading the rows, slot for slot', async () => {
    const { dir, store } = catalog();
    const ix = new SkillIndex(store.db);
    ix.sync();
    const first = new DenseIndex(ix, stubEngine());
    await first.embedMissing();
    expect(store.db.prepare('SELECT model FROM skill_vector_cache').pluck().all()).toEqual(['stub-model']);
    // Without the rows, the copy alone must serve.
    store.db.prepare('DELETE FROM skill_embeddings').run();
    const next = reopen(dir);
    expect(next.dense.progress()).toEqual({ embedded: NAMES.length, total: NAMES.length });
    const n = NAMES.length * DIMS * 4;
    expect(bytesOf(next.dense).subarray(0, n)).toEqual(bytesOf(first).subarray(0, n));
    await next.dense.embedMissing();
    expect(next.engine.embedded).toEqual([]);
    next.store.close();
    store.close();
  });

  it('is ignored when damaged, the rows read instead, and written again', async () => {
    const { dir, store } = catalog();
    const ix = new SkillIndex(store.db);
    ix.sync();
    await new DenseIndex(ix, stubEngine()).embedMissing();
    const data = store.db.prepare('SELECT data FROM skill_vector_cache').pluck().get() as Buffer;
    data.writeUInt8(data.readUInt8(data.length - 3) ^ 0xff, data.length - 3);
    store.db.prepare('UPDATE skill_vector_cache SET data = ?').run(data);
    const next = reopen(dir);
    expect(next.dense.progress().embedded).toBe(NAMES.length);
    const fixed = next.store.db.prepare('SELECT data FROM skill_vector_cache').pluck().get() as Buffer;
    expect(fixed.equals(data)).toBe(false);
    next.store.close();
    store.close();
  });

  it('never gives a skill whose text changed the vector of its old text', async () => {
    const { dir, store } = catalog();
    const ix = new SkillIndex(store.db);
    ix.sync();
    await new DenseIndex(ix, stubEngine()).embedMissing();
    const poem = store.repo.getSkillByName('poem')!;
    store.db
      .prepare('UPDATE skills SET description = ? WHERE id = ?')
      .run('Write sonnets and haiku', poem.id);
    const next = reopen(dir);
    // The copy and the row hold the old text's vector: neither is taken; the new text is embedded.
    expect(next.dense.progress()).toEqual({ embedded: NAMES.length - 1, total: NAMES.length });
    await next.dense.embedMissing();
    expect(next.engine.embedded).toHaveLength(1);
    expect(next.engine.embedded[0]).toContain('Write sonnets and haiku');
    next.store.close();
    store.close();
  });
});

describe('the catalog-centred space', () => {
  it('gives the cosines of explicitly centred vectors without making them', async () => {
    const { store } = catalog();
    const ix = new SkillIndex(store.db);
    ix.sync();
    const engine = stubEngine();
    const dense = new DenseIndex(ix, engine);
    await dense.embedMissing();
    const space = DenseSpace.of([dense])!;
    const slots = NAMES.map((_, i) => i).filter((slot) => dense.has[slot]);
    const mean = new Float32Array(DIMS);
    for (const slot of slots)
      for (let d = 0; d < DIMS; d++) mean[d]! += dense.vectors[slot * DIMS + d]! / slots.length;
    const centred = (v: ArrayLike<number>) => {
      const c = Array.from({ length: DIMS }, (_, d) => v[d]! - mean[d]!);
      const n = Math.hypot(...c);
      return c.map((x) => x / n);
    };
    const q = vectorOf('turn these pages into one file');
    const qc = space.centre(q);
    const want = slots
      .map((slot) => {
        const s = centred(dense.vectors.subarray(slot * DIMS, (slot + 1) * DIMS));
        const cq = centred(q);
        return { slot, cos: s.reduce((a, x, d) => a + x * cq[d]!, 0) };
      })
      .sort((a, b) => b.cos - a.cos);
    const got = space.nearest(qc, slots.length, () => false);
    expect(got.map((n) => n.slot)).toEqual(want.map((w) => w.slot));
    got.forEach((n, i) => {
      expect(n.cos).toBeCloseTo(want[i]!.cos, 5);
    });
    for (const w of want) expect(space.cosine(qc, ix, w.slot)).toBeCloseTo(w.cos, 5);
    store.close();
  });
});

describe('vectors made in another realm', () => {
  it('are stored as floats, slot for slot, as the engine gave them', async () => {
    // The engine's arrays come from the addon's realm. Under a jsdom test environment that is not
    // the caller's, and `instanceof Float32Array` was false for them: each fresh vector was copied
    // as if it were saved bytes, into the wrong place.
    const { store } = catalog();
    const ix = new SkillIndex(store.db);
    ix.sync();
    const base = stubEngine();
    const foreign = (v: Float32Array) =>
      runInNewContext('Float32Array.from(xs)', { xs: [...v] }) as Float32Array;
    expect(foreign(vectorOf('x')) instanceof Float32Array).toBe(false);
    const dense = new DenseIndex(ix, {
      ...base,
      passages: async (texts) => (await base.passages(texts)).map(foreign),
    });
    await dense.embedMissing();
    for (let slot = 0; slot < ix.docs.length; slot++) {
      const doc = ix.docs[slot];
      if (!doc) continue;
      const row = store.db.prepare('SELECT * FROM skills WHERE id = ?').get(doc.id) as Parameters<
        typeof denseText
      >[0];
      expect([...dense.vectors.subarray(slot * DIMS, (slot + 1) * DIMS)]).toEqual([
        ...vectorOf(denseText(row)),
      ]);
    }
    store.close();
  });
});
