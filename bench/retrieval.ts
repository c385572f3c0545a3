// Retrieval quality and speed of phase-1 activation on realistic catalogs: 17 seed skills among
// realistic distractors (1k / 10k / 100k skills), 100+ labelled requests in the skills' words and
// in users' own words. Reports recall@1, recall@5 and MRR per split (the held-out split is never
// tuned on) and per phrasing, warm match latency (target p95 ≤ 1 ms at 10k, ≤ 5 ms at 100k),
// the in-memory index's build and update cost, and plain FTS5 BM25 over the same catalog.
import { mkdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { e5Engine, minilmEngine } from '../electron/activation/e5.js';
import { buildFtsQuery, matchSkills } from '../electron/activation/phase1.js';
import { scanThreadReady, scanThreadStats, threadedScanOptions } from '../electron/activation/scan-thread.js';
import { SemanticSpace } from '../electron/activation/semantic.js';
import { SkillIndex, skillIndex } from '../electron/activation/skill-index.js';
import { SkillCatalog } from '../electron/skills/catalog.js';
import { packageToRows } from '../electron/skills/convert.js';
import type { SkillPackage } from '../electron/skills/package-schema.js';
import { openStore, type SkillStore } from '../electron/store/stores.js';
import { type BenchOptions, type BenchResult, percentile, r3 } from './lib.js';
import { distractorPackages } from './retrieval/distractors.js';
import { type LabelledRequest, REQUESTS } from './retrieval/requests.js';
import { seedPackages } from './retrieval/seeds.js';
import { denseRows, embedStore, smallTalkRows } from './retrieval-e5.js';

/** The FTS5 table phase 1 once searched, built from the store's skills as they are now. */
function buildFtsBaseline(store: SkillStore): void {
  const list = (col: string) => `(SELECT group_concat(value, ' | ') FROM json_each(coalesce(${col}, '[]')))`;
  store.db.exec(`
    DROP TABLE IF EXISTS temp.bench_skills_fts;
    CREATE VIRTUAL TABLE temp.bench_skills_fts USING fts5(
      name, description, tags, intent_patterns, trigger_phrases,
      tokenize = 'porter unicode61 remove_diacritics 2'
    );
    INSERT INTO temp.bench_skills_fts(rowid, name, description, tags, intent_patterns, trigger_phrases)
      SELECT rowid, name, description, ${list('tags')}, ${list('intent_patterns')}, ${list('trigger_phrases')}
      FROM skills;
    INSERT INTO temp.bench_skills_fts(bench_skills_fts, rank) VALUES ('rank', 'bm25(6.0, 2.0, 3.0, 3.0, 4.0)');
  `);
}

function insert(store: SkillStore, pkgs: SkillPackage[]): void {
  store.repo.transaction(() => {
    for (const p of pkgs) {
      const rows = packageToRows(p);
      store.repo.createSkill(rows.skill);
      for (const a of rows.artifacts) store.repo.addArtifact(a);
    }
  });
}

/** Recall@1, recall@5 and MRR of a ranker over labelled requests. */
export function quality(reqs: LabelledRequest[], rank: (text: string) => string[]) {
  let r1 = 0;
  let r5 = 0;
  let rr = 0;
  const misses: string[] = [];
  for (const q of reqs) {
    const names = rank(q.text);
    const at = names.indexOf(q.target);
    if (at === 0) r1++;
    if (at >= 0 && at < 5) r5++;
    else misses.push(`${q.target} ← ${q.text}`);
    if (at >= 0) rr += 1 / (at + 1);
  }
  const n = reqs.length || 1;
  return { recall_at_1: r3(r1 / n), recall_at_5: r3(r5 / n), mrr: r3(rr / n), n: reqs.length, misses };
}

/** Run the retrieval benchmark. */
export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  // SKILLDESK_BENCH_SIZES=1000,10000 runs some sizes only (the e5 rows stop at 10k: embedding
  // 100k skills takes hours).
  const sizes = process.env.SKILLDESK_BENCH_SIZES
    ? process.env.SKILLDESK_BENCH_SIZES.split(',').map(Number)
    : opts.quick
      ? [1_000]
      : [100, 1_000, 10_000, 100_000];
  const engine = e5Engine();
  if (!engine) opts.log('e5 model not installed: no e5 rows (node scripts/setup-e5.mjs)');
  const second = engine ? minilmEngine() : null;
  if (engine && !second) opts.log('MiniLM not installed: e5 fused alone (node scripts/setup-minilm.mjs)');
  const tmp = join(tmpdir(), `skilldesk-bench-retrieval-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  const out: BenchResult[] = [];
  const seeds = seedPackages();
  try {
    for (const size of sizes) {
      const dir = join(tmp, `s${size}`);
      mkdirSync(dir, { recursive: true });
      const store = openStore('account', dir)!;
      const t0 = performance.now();
      insert(store, [...seeds, ...distractorPackages(size - seeds.length, size)]);
      opts.log(`built ${size} skills in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      const catalog = new SkillCatalog(store, null);

      // The first build embeds every skill (none saved yet); a later process reads them back.
      const tb = performance.now();
      const index = skillIndex(store.db);
      const buildMs = performance.now() - tb;
      const tr = performance.now();
      new SkillIndex(store.db).sync();
      const rebuildMs = performance.now() - tr;
      const space = SemanticSpace.of([index]);
      const semanticOnly = (text: string) => {
        const q = space?.query(text);
        return q && space ? space.nearest(q, 10, () => false).map((n) => index.docs[n.slot]!.name) : [];
      };

      const rank = (text: string) => matchSkills(catalog, text, { limit: 10 }).map((m) => m.name);
      const lexical = (text: string) =>
        matchSkills(catalog, text, { limit: 10, semantic: false }).map((m) => m.name);
      for (const split of ['tune', 'heldout', 'all'] as const) {
        const reqs = REQUESTS.filter((q) => split === 'all' || q.split === split);
        const { misses, ...q } = quality(reqs, rank);
        // The lexical half alone, and the requests it matched (top 5) that the fused ranking lost.
        const { misses: lexMisses, ...lq } = quality(reqs, lexical);
        const lost = misses.filter((m) => !lexMisses.includes(m));
        const byKind: Record<string, number> = {};
        // The request kinds the issue asks to see apart: in the skill's words (its vocabulary,
        // file types, product names, misspellings, loanwords) and in the user's own words.
        for (const [group, pick] of [
          ['skill_words', (r: LabelledRequest) => r.kind !== 'paraphrase'],
          ['user_words', (r: LabelledRequest) => r.kind === 'paraphrase'],
        ] as const) {
          const sub = reqs.filter(pick);
          const g = quality(sub, rank);
          const gl = quality(sub, lexical);
          byKind[`recall_at_5_${group}`] = g.recall_at_5;
          byKind[`mrr_${group}`] = g.mrr;
          byKind[`lexical_recall_at_5_${group}`] = gl.recall_at_5;
          byKind[`n_${group}`] = sub.length;
        }
        byKind.semantic_only_recall_at_5 = quality(reqs, semanticOnly).recall_at_5;
        if (split === 'all') {
          for (const kind of [...new Set(reqs.map((r) => r.kind))]) {
            byKind[`recall_at_5_${kind}`] = quality(
              reqs.filter((r) => r.kind === kind),
              rank,
            ).recall_at_5;
          }
          for (const m of misses.slice(0, opts.quick ? 0 : 12)) opts.log(`miss@5 (${size}): ${m}`);
        }
        out.push({
          bench: `retrieval.quality.${size}.${split}`,
          unit: 'ratio',
          ...q,
          skills: size,
          ...byKind,
          lexical_recall_at_5: lq.recall_at_5,
          lexical_mrr: lq.mrr,
          lost_vs_lexical: lost.length,
        });
        for (const m of lost) opts.log(`lost by fusion (${size}, ${split}): ${m}`);
      }

      // Warm latency: every request in turn, after a warm-up pass; the hybrid as the app runs it
      // (from 32,768 skills its vector scan shared with the scan thread) and on one thread alone,
      // interleaved match by match so both see the same machine; then lexical alone.
      const n = opts.quick ? 300 : 2000;
      // Beside wall time, each match's CPU time (user + system, every thread of the process): on
      // a machine shared with other jobs it leaves out the waits for a core, which otherwise make
      // the p95.
      const large = size >= threadedScanOptions().from;
      for (const q of REQUESTS) matchSkills(catalog, q.text, { limit: 5 });
      const threadUp = large ? await scanThreadReady() : false;
      const timed = (o: { semantic: boolean; thread: boolean }[]) => {
        for (const x of o) for (const q of REQUESTS) matchSkills(catalog, q.text, { limit: 5, ...x });
        const { jobs, workerChunks } = scanThreadStats;
        const wall = o.map(() => [] as number[]);
        const cpu = o.map(() => [] as number[]);
        for (let i = 0; i < n; i++) {
          const text = REQUESTS[i % REQUESTS.length]!.text;
          for (let j = 0; j < o.length; j++) {
            const at = (i + j) % o.length;
            const c = process.cpuUsage();
            const t = performance.now();
            matchSkills(catalog, text, { limit: 5, ...o[at]! });
            wall[at]!.push(performance.now() - t);
            const u = process.cpuUsage(c);
            cpu[at]!.push((u.user + u.system) / 1000);
          }
        }
        return {
          wall,
          cpu,
          jobs: scanThreadStats.jobs - jobs,
          chunks: scanThreadStats.workerChunks - workerChunks,
        };
      };
      const hybrid = timed([
        { semantic: true, thread: true },
        { semantic: true, thread: false },
      ]);
      const [samples, singleSamples] = hybrid.wall as [number[], number[]];
      const [cpuSamples, singleCpu] = hybrid.cpu as [number[], number[]];
      const lexicalSamples = timed([{ semantic: false, thread: false }]).wall[0]!;
      // The semantic recall stage alone (the message's embedding and the nearest 20 of the whole
      // catalog, exactly, at every size): the other half of the hybrid's time.
      const nearestSamples: number[] = [];
      if (space) {
        for (let i = 0; i < n; i++) {
          const text = REQUESTS[i % REQUESTS.length]!.text;
          const t = performance.now();
          const q = space.query(text);
          if (q) space.nearest(q, 20, () => false);
          nearestSamples.push(performance.now() - t);
        }
      }
      // One skill imported, then a match: the index catches up with the change alone. Five times:
      // the first runs the catch-up code cold, the median is what a user saving skills sees.
      const updates: number[] = [];
      for (let i = 0; i < 5; i++) {
        const tu = performance.now();
        insert(
          store,
          distractorPackages(1, 999_999 - i).map((p) => ({ ...p, name: `${p.name}-update-probe-${i}` })),
        );
        matchSkills(catalog, 'merge these PDFs', { limit: 5 });
        updates.push(performance.now() - tu);
      }
      const updateMs = updates[0]!;
      out.push({
        bench: `retrieval.match.${size}`,
        unit: 'ms',
        p50: r3(percentile(samples, 50)),
        p95: r3(percentile(samples, 95)),
        p99: r3(percentile(samples, 99)),
        cpu_p50: r3(percentile(cpuSamples, 50)),
        cpu_p95: r3(percentile(cpuSamples, 95)),
        // The same matches with the vector scan on the calling thread alone (no scan thread).
        p50_single_thread_ms: r3(percentile(singleSamples, 50)),
        p95_single_thread_ms: r3(percentile(singleSamples, 95)),
        cpu_p50_single_thread: r3(percentile(singleCpu, 50)),
        cpu_p95_single_thread: r3(percentile(singleCpu, 95)),
        // Matches whose scan the scan thread shared, and the chunks it scanned of them.
        scan_thread: threadUp,
        threaded_matches: hybrid.jobs,
        scan_thread_chunks: hybrid.chunks,
        n,
        skills: size,
        lexical_p50: r3(percentile(lexicalSamples, 50)),
        lexical_p95: r3(percentile(lexicalSamples, 95)),
        nearest_p50: space ? r3(percentile(nearestSamples, 50)) : undefined,
        nearest_p95: space ? r3(percentile(nearestSamples, 95)) : undefined,
        load_avg_1m: r3(loadavg()[0]!),
        simd: space?.simd,
        index_build_ms: r3(buildMs),
        index_build_saved_vectors_ms: r3(rebuildMs),
        import_one_then_match_ms: r3(updateMs),
        import_one_then_match_median_ms: r3(percentile(updates, 50)),
        heap_mb: r3(process.memoryUsage().heapUsed / 2 ** 20),
        target_p95_ms: size === 10_000 ? 1 : size === 100_000 ? 5 : undefined,
      });

      // The full phase 1 with e5 (the skills' vectors first: measured fresh at 1k, from the
      // bench's cache at 10k).
      if (engine && size <= 10_000) {
        // Measured fresh at 1k (never from the cache), each model's own row.
        const embedRow = (name: string, emb: Awaited<ReturnType<typeof embedStore>>) => ({
          bench: `retrieval.${name}_embed.1000`,
          unit: 's',
          seconds: r3(emb.seconds),
          per_skill_ms: r3((emb.seconds * 1000) / emb.total),
          cpu_seconds: r3(emb.cpu_seconds),
          cpu_seconds_per_1000_skills: r3((emb.cpu_seconds * 1000) / emb.total),
          n: emb.total,
          load_avg_1m: r3(loadavg()[0]!),
        });
        const emb = await embedStore(store, engine, { cache: size !== 1_000, log: opts.log });
        if (size === 1_000)
          out.push({ ...embedRow('e5', emb), target_s: 120, target_cpu_seconds_per_1000_skills: 12 });
        if (second) {
          const emb2 = await embedStore(store, second, { cache: size !== 1_000, log: opts.log });
          if (size === 1_000)
            out.push({
              ...embedRow('minilm', emb2),
              // What a user's import costs now: both models' vectors.
              both_models_cpu_seconds_per_1000_skills: r3(
                ((emb.cpu_seconds + emb2.cpu_seconds) * 1000) / emb2.total,
              ),
              target_cpu_seconds_per_1000_skills: 12,
            });
        }
        out.push(...denseRows(catalog, engine, size, opts, second));
        if (size === Math.min(10_000, sizes.filter((x) => x <= 10_000).at(-1)!)) {
          const seedsDir = join(tmp, 'seeds');
          mkdirSync(seedsDir, { recursive: true });
          const seedStore = openStore('account', seedsDir)!;
          insert(seedStore, seeds);
          await embedStore(seedStore, engine, { cache: true, log: opts.log });
          if (second) await embedStore(seedStore, second, { cache: true, log: opts.log });
          out.push(
            ...(await smallTalkRows(new SkillCatalog(seedStore, null), engine, catalog, opts, second)),
          );
          seedStore.close();
        }
      }

      // Baseline: FTS5 BM25 over the same catalog (the previous phase 1, without its work budget).
      // The store keeps no FTS5 index of its skills, so the bench builds the old one, same columns,
      // tokenizer and weights, in the connection's temp schema (not timed; the store is untouched).
      buildFtsBaseline(store);
      const fts = store.db.prepare(
        'SELECT s.name FROM temp.bench_skills_fts f JOIN skills s ON s.rowid = f.rowid WHERE bench_skills_fts MATCH ? ORDER BY f.rank LIMIT 10',
      );
      const ftsRank = (text: string) => {
        const q = buildFtsQuery(text);
        return q ? (fts.all(q) as Array<{ name: string }>).map((r) => r.name) : [];
      };
      const { misses: _m, ...fq } = quality(REQUESTS, ftsRank);
      const fs: number[] = [];
      for (let i = 0; i < Math.min(n, 500); i++) {
        const t = performance.now();
        ftsRank(REQUESTS[i % REQUESTS.length]!.text);
        fs.push(performance.now() - t);
      }
      out.push({
        bench: `retrieval.fts5_baseline.${size}`,
        unit: 'ms',
        p50: r3(percentile(fs, 50)),
        p95: r3(percentile(fs, 95)),
        n: fs.length,
        skills: size,
        recall_at_1: fq.recall_at_1,
        recall_at_5: fq.recall_at_5,
        mrr: fq.mrr,
      });
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return out;
}
