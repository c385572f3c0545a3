// The e5 half of the retrieval harness (bench/retrieval.ts runs it at 1k and 10k skills when the
// model is installed): skill vectors, the full phase 1's quality and latency, the fusion's tuning
// grid (tuning split only), and small talk on a tiny catalog.
//
// Embedding 10,000 skills takes about 20 CPU-minutes, so vectors are cached across runs by the hash
// of the text embedded (the store's own key) in the user's cache folder, not the checkout: a fresh
// clone on the same machine would otherwise spend half the bench's 20 minutes re-embedding the
// same texts. SKILLDESK_BENCH_CACHE moves it. The embedding rate is measured on the 1k catalog,
// embedded from scratch every run, so no figure comes from the cache.
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { cpus, homedir, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { DenseSpace, denseIndex, denseText, denseTextHash } from '../electron/activation/dense.js';
import type { E5Engine } from '../electron/activation/e5.js';
import { type DenseFusion, type MatchOptions, matchSkills } from '../electron/activation/phase1.js';
import { skillIndex } from '../electron/activation/skill-index.js';
import type { SkillCatalog } from '../electron/skills/index.js';
import type { SkillStore } from '../electron/store/index.js';
import { writeTransaction } from '../electron/store/index.js';
import { type BenchOptions, type BenchResult, percentile, r3 } from './lib.js';
import { type LabelledRequest, REQUESTS } from './retrieval/requests.js';

const cacheDir = () =>
  process.env.SKILLDESK_BENCH_CACHE ||
  join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'skilldesk', 'bench');
const cacheFile = (engine: E5Engine) => join(cacheDir(), `e5-${engine.id}.bin`);

/** Saved vectors by text hash (40 hex digits, then dims float32). */
function readCache(engine: E5Engine): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const f = cacheFile(engine);
  if (!existsSync(f)) return out;
  const buf = readFileSync(f);
  const rec = 40 + engine.dims * 4;
  for (let o = 0; o + rec <= buf.length; o += rec)
    out.set(buf.toString('latin1', o, o + 40), buf.subarray(o + 40, o + rec));
  return out;
}

/** Put cached vectors into the store, so the index reads them back instead of embedding. */
function seedFromCache(store: SkillStore, engine: E5Engine, cache: Map<string, Buffer>): number {
  const rows = store.db
    .prepare('SELECT id, name, description, when_to_use, tags, intent_patterns, trigger_phrases FROM skills')
    .all() as Array<Parameters<typeof denseText>[0] & { id: string }>;
  const put = store.db.prepare(
    'INSERT OR REPLACE INTO skill_embeddings (skill_id, model, text_hash, vector) VALUES (?, ?, ?, ?)',
  );
  let n = 0;
  writeTransaction(store.db, () => {
    for (const r of rows) {
      const h = denseTextHash(denseText(r));
      const v = cache.get(h);
      if (v) {
        put.run(r.id, engine.id, h, v);
        n++;
      }
    }
  });
  return n;
}

/** Append the store's vectors missing from the cache. */
function saveToCache(store: SkillStore, engine: E5Engine, cache: Map<string, Buffer>): void {
  mkdirSync(dirname(cacheFile(engine)), { recursive: true });
  const parts: Buffer[] = [];
  for (const [h, v] of store.db
    .prepare('SELECT text_hash, vector FROM skill_embeddings WHERE model = ?')
    .raw()
    .iterate(engine.id) as IterableIterator<[string, Buffer]>) {
    if (cache.has(h)) continue;
    cache.set(h, v);
    parts.push(Buffer.from(h, 'latin1'), v);
  }
  if (parts.length) appendFileSync(cacheFile(engine), Buffer.concat(parts));
}

/** Embed every skill of the store (from the cache where it can); the seconds it took. */
export async function embedStore(
  store: SkillStore,
  engine: E5Engine,
  opts: { cache: boolean; log: (l: string) => void },
) {
  const cache = readCache(engine);
  const seeded = opts.cache ? seedFromCache(store, engine, cache) : 0;
  const dense = denseIndex(skillIndex(store.db), engine)!;
  const t = performance.now();
  const c0 = process.cpuUsage();
  let last = 0;
  await dense.embedMissing((p) => {
    if (p.embedded - last >= 1000) {
      last = p.embedded;
      opts.log(`${engine.id}: ${p.embedded} / ${p.total} embedded`);
    }
  });
  const seconds = (performance.now() - t) / 1000;
  const cpu = process.cpuUsage(c0);
  saveToCache(store, engine, cache);
  return { seconds, cpu_seconds: (cpu.user + cpu.system) / 1e6, seeded, total: dense.progress().total };
}

/** Recall@1/5 and MRR of a ranker. */
export function quality(reqs: LabelledRequest[], rank: (q: LabelledRequest) => string[]) {
  let r1 = 0;
  let r5 = 0;
  let rr = 0;
  const misses: string[] = [];
  for (const q of reqs) {
    const at = rank(q).indexOf(q.target);
    if (at === 0) r1++;
    if (at >= 0 && at < 5) r5++;
    else misses.push(`${q.target} ← ${q.text}`);
    if (at >= 0) rr += 1 / (at + 1);
  }
  const n = reqs.length || 1;
  return { recall_at_1: r1 / n, recall_at_5: r5 / n, mrr: rr / n, misses };
}

const userWords = (r: LabelledRequest) => r.kind === 'paraphrase';

/** The fusion grid, on the tuning split only: each setting's recall@5 and MRR per phrasing. */
export const GRID: Array<Partial<DenseFusion>> = [];
for (const weight of [0.1, 0.15, 0.2, 0.25, 0.3, 0.4])
  for (const floor of [0, 0.05, 0.1])
    for (const ceil of [0.3, 0.45, 0.6]) GRID.push({ mode: 'ramp', weight, floor, ceil, k: 20 });
for (const weight of [0.1, 0.15, 0.2, 0.3, 0.5]) GRID.push({ mode: 'minmax', weight, k: 20 });
for (const weight of [0.05, 0.1, 0.15, 0.2])
  for (const floor of [0, 0.05, 0.1]) GRID.push({ mode: 'weighted', weight, floor, k: 20 });
for (const rrfK of [1, 3, 5, 10, 30])
  for (const weight of [0.3, 0.5, 0.7, 1]) GRID.push({ mode: 'rrf', rrfK, weight, k: 20 });

/** Reciprocal-rank fusion by the number of dense candidates (`SKILLDESK_BENCH_TUNE=k`). */
export const K_GRID: Array<Partial<DenseFusion>> = [];
for (const k of [20, 40, 80])
  for (const rrfK of [1, 3])
    for (const weight of [0.5, 0.7, 1]) K_GRID.push({ mode: 'rrf', rrfK, weight, k });

/**
 * The second model's share, on the tuning split (`SKILLDESK_BENCH_TUNE=second`): its weight and
 * candidates, with e5's weight and the rank offset around the shipped ones.
 */
export const SECOND_GRID: Array<Partial<DenseFusion>> = [];
for (const rrfK of [1, 3])
  for (const weight of [0.5, 1])
    for (const secondWeight of [0, 0.5, 0.7, 1, 1.5])
      for (const secondK of [20, 40]) SECOND_GRID.push({ mode: 'rrf', rrfK, weight, secondWeight, secondK });

/** The sentence models' shares shrinking as the fast path is surer (`SKILLDESK_BENCH_TUNE=sure`). */
export const SURE_GRID: Array<Partial<DenseFusion>> = [];
for (const sureFast of [1, 0.95, 0.9, 0.85, 0.8, 0.7])
  for (const secondWeight of [0.7, 1]) SURE_GRID.push({ mode: 'rrf', sureFast, secondWeight });

/** Quality, tuning grid and latency rows of the full phase 1 at one catalog size. */
export function denseRows(
  catalog: SkillCatalog,
  engine: E5Engine,
  size: number,
  opts: BenchOptions,
  second: E5Engine | null = null,
): BenchResult[] {
  const out: BenchResult[] = [];
  const qv = new Map<string, Float32Array>();
  const qv2 = new Map<string, Float32Array>();
  for (const r of REQUESTS) qv.set(r.text, engine.querySync(r.text));
  if (second) for (const r of REQUESTS) qv2.set(r.text, second.querySync(r.text));
  const dense = (text: string): MatchOptions['dense'] => ({
    engine,
    vector: qv.get(text)!,
    ...(second ? { second: { engine: second, vector: qv2.get(text)! } } : {}),
  });
  const fast = new Map<string, string[]>();
  for (const r of REQUESTS)
    fast.set(
      r.text,
      matchSkills(catalog, r.text, { limit: 10 }).map((m) => m.name),
    );
  // e5 alone: the catalog's skills nearest the message's centred vector (what the fusion takes its
  // dense candidates from), for the ceiling a fusion of the two orders could reach.
  const parts = catalog
    .stores()
    .map((st) => denseIndex(skillIndex(st.db), engine))
    .filter((d) => d !== null);
  const space = DenseSpace.of(parts);
  const alone = new Map<string, string[]>();
  for (const r of REQUESTS)
    alone.set(
      r.text,
      space
        ? space.nearest(space.centre(qv.get(r.text)!), 10, () => false).map((n) => n.index.docs[n.slot]!.name)
        : [],
    );
  const e5Alone = (q: LabelledRequest) => alone.get(q.text)!;
  // The second model alone, the same way.
  const alone2 = new Map<string, string[]>();
  if (second) {
    const parts2 = catalog
      .stores()
      .map((st) => denseIndex(skillIndex(st.db), second))
      .filter((d) => d !== null);
    const space2 = DenseSpace.of(parts2);
    for (const r of REQUESTS)
      alone2.set(
        r.text,
        space2
          ? space2
              .nearest(space2.centre(qv2.get(r.text)!), 10, () => false)
              .map((n) => n.index.docs[n.slot]!.name)
          : [],
      );
  }
  const secondAlone = (q: LabelledRequest) => alone2.get(q.text) ?? [];
  const full = (f?: Partial<DenseFusion>) => (q: LabelledRequest) =>
    matchSkills(catalog, q.text, { limit: 10, dense: dense(q.text), denseFusion: f }).map((m) => m.name);

  if (process.env.SKILLDESK_BENCH_TUNE) {
    const tune = REQUESTS.filter((r) => r.split === 'tune');
    const fastQ = quality(tune, (q) => fast.get(q.text)!);
    // `SKILLDESK_BENCH_TUNE=near`: only the weighted settings around the shipped one (10k is slow).
    const near = process.env.SKILLDESK_BENCH_TUNE === 'near';
    // `SKILLDESK_BENCH_TUNE=k`: reciprocal-rank fusion with more dense candidates (large catalogs,
    // where the distractors crowd e5's own 20 nearest).
    const byK = process.env.SKILLDESK_BENCH_TUNE === 'k';
    const grid = near
      ? GRID.filter((f) => f.mode === 'ramp' && f.weight! >= 0.15 && f.weight! <= 0.3)
      : byK
        ? K_GRID
        : process.env.SKILLDESK_BENCH_TUNE === 'second'
          ? SECOND_GRID
          : process.env.SKILLDESK_BENCH_TUNE === 'sure'
            ? SURE_GRID
            : GRID;
    for (const f of grid) {
      const rank = full(f);
      const all = quality(tune, rank);
      const sw = quality(
        tune.filter((r) => !userWords(r)),
        rank,
      );
      const uw = quality(tune.filter(userWords), rank);
      const lost = all.misses.filter((m) => !fastQ.misses.includes(m)).length;
      opts.log(
        `tune ${size} ${f.mode} rrfK=${f.rrfK ?? '-'} k=${f.k ?? '-'} w=${f.weight} w2=${f.secondWeight ?? '-'} k2=${f.secondK ?? '-'} sure=${f.sureFast ?? '-'} floor=${f.floor ?? '-'} ceil=${f.ceil ?? '-'}: r5 ${r3(all.recall_at_5)} mrr ${r3(all.mrr)} | skill words ${r3(sw.recall_at_5)}/${r3(sw.mrr)} user words ${r3(uw.recall_at_5)}/${r3(uw.mrr)} lost ${lost}`,
      );
    }
  }

  const rank = full();
  // The shipped fusion without the second model: what it adds.
  const e5Only = full({ secondWeight: 0 });
  for (const split of ['tune', 'heldout'] as const) {
    const reqs = REQUESTS.filter((q) => q.split === split);
    const fastQ = quality(reqs, (q) => fast.get(q.text)!);
    const q = quality(reqs, rank);
    const sw = reqs.filter((r) => !userWords(r));
    const uw = reqs.filter(userWords);
    const g = (sub: LabelledRequest[], r: (q: LabelledRequest) => string[]) => quality(sub, r);
    const lost = q.misses.filter((m) => !fastQ.misses.includes(m));
    for (const m of lost) opts.log(`lost by e5 fusion (${size}, ${split}): ${m}`);
    if (split === 'heldout')
      for (const m of q.misses.slice(0, opts.quick ? 0 : 12)) opts.log(`miss@5 e5 (${size}): ${m}`);
    // Centring's part: the same fusion on raw (uncentred) cosines is not offered by the app;
    // the dense-alone ranking here is centred, as the app ranks.
    out.push({
      bench: `retrieval.e5_quality.${size}.${split}`,
      unit: 'ratio',
      recall_at_1: r3(q.recall_at_1),
      recall_at_5: r3(q.recall_at_5),
      mrr: r3(q.mrr),
      recall_at_5_skill_words: r3(g(sw, rank).recall_at_5),
      mrr_skill_words: r3(g(sw, rank).mrr),
      recall_at_5_user_words: r3(g(uw, rank).recall_at_5),
      mrr_user_words: r3(g(uw, rank).mrr),
      fast_recall_at_5_skill_words: r3(g(sw, (x) => fast.get(x.text)!).recall_at_5),
      fast_recall_at_5_user_words: r3(g(uw, (x) => fast.get(x.text)!).recall_at_5),
      fast_mrr_skill_words: r3(g(sw, (x) => fast.get(x.text)!).mrr),
      fast_mrr_user_words: r3(g(uw, (x) => fast.get(x.text)!).mrr),
      e5_alone_recall_at_5_user_words: r3(g(uw, e5Alone).recall_at_5),
      // In either order's top 5: what no fusion of the two orders can exceed.
      either_recall_at_5_user_words: r3(
        uw.filter((x) =>
          [fast.get(x.text)!.slice(0, 5), e5Alone(x).slice(0, 5)].some((t) => t.includes(x.target)),
        ).length / (uw.length || 1),
      ),
      ...(second
        ? {
            second_model: second.id,
            without_second_recall_at_5_user_words: r3(g(uw, e5Only).recall_at_5),
            without_second_recall_at_5_skill_words: r3(g(sw, e5Only).recall_at_5),
            second_alone_recall_at_5_user_words: r3(g(uw, secondAlone).recall_at_5),
            any_recall_at_5_user_words: r3(
              uw.filter((x) =>
                [fast.get(x.text)!, e5Alone(x), secondAlone(x)].some((t) => t.slice(0, 5).includes(x.target)),
              ).length / (uw.length || 1),
            ),
          }
        : {}),
      lost_vs_fast_path: lost.length,
      n_skill_words: sw.length,
      n_user_words: uw.length,
      n: reqs.length,
      skills: size,
      target_recall_at_5_skill_words: 0.97,
      target_recall_at_5_user_words: size === 1_000 ? 0.89 : undefined,
    });
  }

  // Latency of the full phase 1 as a chat turn runs it: the message's embedding (thread pool,
  // awaited; timed here on the calling thread, which is the same work) and the fused ranking.
  const n = opts.quick ? 60 : 300;
  const full1: number[] = [];
  const embedOnly: number[] = [];
  const embedSecond: number[] = [];
  const cpu1: number[] = [];
  const fastOnly: number[] = [];
  for (let i = 0; i < n; i++) {
    const text = REQUESTS[i % REQUESTS.length]!.text;
    const c = process.cpuUsage();
    const t = performance.now();
    const vector = engine.querySync(text);
    const te = performance.now();
    // Both vectors one after the other on this thread: the app computes them at once on the
    // thread pool, so this is the slower bound.
    const v2 = second ? second.querySync(text) : null;
    const te2 = performance.now();
    matchSkills(catalog, text, {
      limit: 5,
      dense: { engine, vector, ...(second && v2 ? { second: { engine: second, vector: v2 } } : {}) },
    });
    embedSecond.push(te2 - te);
    full1.push(performance.now() - t);
    embedOnly.push(te - t);
    const u = process.cpuUsage(c);
    cpu1.push((u.user + u.system) / 1000);
    const tf = performance.now();
    matchSkills(catalog, text, { limit: 5 });
    fastOnly.push(performance.now() - tf);
  }
  out.push({
    bench: `retrieval.e5_match.${size}`,
    unit: 'ms',
    p50: r3(percentile(full1, 50)),
    p95: r3(percentile(full1, 95)),
    cpu_p50: r3(percentile(cpu1, 50)),
    cpu_p95: r3(percentile(cpu1, 95)),
    query_embedding_p50: r3(percentile(embedOnly, 50)),
    query_embedding_p95: r3(percentile(embedOnly, 95)),
    ...(second
      ? {
          second_query_embedding_p50: r3(percentile(embedSecond, 50)),
          second_query_embedding_p95: r3(percentile(embedSecond, 95)),
        }
      : {}),
    fast_path_p50: r3(percentile(fastOnly, 50)),
    fast_path_p95: r3(percentile(fastOnly, 95)),
    n,
    skills: size,
    load_avg_1m: r3(loadavg()[0]!),
    cores: cpus().length,
    target_p95_ms: size === 10_000 ? 50 : undefined,
    target_query_embedding_p95_ms: 15,
  });
  return out;
}

/** Messages that ask for no skill. */
export const SMALL_TALK = [
  'thanks, that is great',
  'what time is it in Tokyo',
  'hello there',
  'good morning!',
  'ok cool, thank you so much',
  'how are you today?',
  'never mind',
  'that makes sense',
  'lol',
  'can you say that again?',
  'I am back from lunch',
  'have a nice weekend',
];

/**
 * Small talk on a tiny catalog (the seeds alone), where every skill is "near" by default, and the
 * threshold that keeps it out: the fused scores small talk reaches against those the tuning
 * split's targets reach where they rank in the top 5.
 */
export async function smallTalkRows(
  catalog: SkillCatalog,
  engine: E5Engine,
  bigCatalog: SkillCatalog | null,
  opts: BenchOptions,
  second: E5Engine | null = null,
): Promise<BenchResult[]> {
  const full = (c: SkillCatalog, text: string, f?: Partial<DenseFusion>) =>
    matchSkills(c, text, {
      limit: 5,
      dense: {
        engine,
        vector: engine.querySync(text),
        ...(second ? { second: { engine: second, vector: second.querySync(text) } } : {}),
      },
      denseFusion: f,
    });
  const talkTop = SMALL_TALK.map((t) => full(catalog, t, { minScore: 0 })[0]?.score ?? 0);
  const fastMatched = SMALL_TALK.filter((t) => matchSkills(catalog, t, { limit: 5 }).length > 0).length;
  // The targets' scores where they are found (tuning split), on the tiny catalog and the large one.
  const targetScores: number[] = [];
  for (const c of [catalog, bigCatalog]) {
    if (!c) continue;
    for (const r of REQUESTS.filter((x) => x.split === 'tune')) {
      const m = full(c, r.text, { minScore: 0 }).find((x) => x.name === r.target);
      if (m) targetScores.push(m.score);
    }
  }
  targetScores.sort((a, b) => a - b);
  for (const [i, t] of SMALL_TALK.entries()) opts.log(`small talk: ${t} → ${r3(talkTop[i]!)}`);
  const shipped = SMALL_TALK.filter((t) => full(catalog, t).length > 0).length;
  // Each candidate threshold: the small talk it keeps out, the targets it would lose.
  const thresholds: Record<string, number> = {};
  for (const t of [0.05, 0.1, 0.2, 0.3, 0.4, 0.5]) {
    thresholds[`at_${t}_small_talk_kept_out`] = talkTop.filter((x) => x > 0 && x < t).length;
    thresholds[`at_${t}_targets_lost`] = targetScores.filter((x) => x < t).length;
  }
  return [
    {
      bench: 'retrieval.e5_small_talk.seeds',
      unit: 'score',
      skills: catalog.stores().reduce((a, s) => a + skillIndex(s.db).live, 0),
      n: SMALL_TALK.length,
      matched_fast_path: fastMatched,
      matched_full_no_threshold: talkTop.filter((x) => x > 0).length,
      matched_full_shipped_threshold: shipped,
      small_talk_top_score_max: r3(Math.max(...talkTop)),
      small_talk_top_score_p50: r3(percentile(talkTop, 50)),
      target_score_min: r3(targetScores[0] ?? 0),
      target_score_p05: r3(percentile(targetScores, 5)),
      target_score_p10: r3(percentile(targetScores, 10)),
      targets_found: targetScores.length,
      ...thresholds,
    },
  ];
}
