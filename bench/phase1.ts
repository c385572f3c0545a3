// Phase-1 match latency at 1k / 10k / 100k skills of README sentences (target p95 ≤ 0.5 ms at 10k,
// ≤ 3 ms at 100k; bench/retrieval.ts measures realistic catalogs) and import throughput
// (target: 1,000 packages in under 3 s).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { matchSkills, syncSkillIndexes } from '../electron/activation/phase1.js';
import { SkillCatalog } from '../electron/skills/catalog.js';
import { packageToRows } from '../electron/skills/convert.js';
import { importPackages, loadPackages } from '../electron/skills/import.js';
import { DEFAULT_LIMITS } from '../electron/skills/limits.js';
import type { SkillPackage } from '../electron/skills/package-schema.js';
import { openStore } from '../electron/store/stores.js';
import { englishSentences, rng } from './corpus.js';
import { type BenchOptions, type BenchResult, percentile, r3, sample } from './lib.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function words(s: string): string[] {
  return s.toLowerCase().match(/[a-z][a-z'-]+/g) ?? [];
}

function makePackage(i: number, sentences: string[], rand: () => number): SkillPackage {
  const pick = () => sentences[Math.floor(rand() * sentences.length)]!;
  const desc = `${pick()} ${rand() < 0.5 ? pick() : ''}`.trim().slice(0, 1900);
  const w = words(pick());
  const name = `${w.slice(0, 3).join(' ')} ${i}`;
  const phrase = () =>
    words(pick())
      .slice(0, 2 + Math.floor(rand() * 3))
      .join(' ');
  return {
    name,
    description: desc,
    version: '1.0.0',
    tags: words(pick()).slice(0, 3),
    intent_patterns: [phrase(), phrase()],
    trigger_phrases: [phrase()],
    artifacts: [
      { kind: 'description', name: 'Overview', ordinal: 0, content: `${pick()} ${pick()}` },
      { kind: 'prompt_template', name: 'Prompt', ordinal: 1, content: `${pick()}\n\n{{ text }}` },
    ],
  };
}

/** Run the phase-1 benchmarks. */
export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const sentences = englishSentences(root);
  opts.log(`corpus: ${sentences.length} English sentences from installed package READMEs`);
  const half = Math.floor(sentences.length * 0.8);
  const skillText = sentences.slice(0, half);
  const messages = sentences.slice(half);
  const results: BenchResult[] = [];
  const sizes = opts.quick ? [1_000] : [1_000, 10_000, 100_000];
  const tmp = join(tmpdir(), `skilldesk-bench-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  for (const size of sizes) {
    const dir = join(tmp, `s${size}`);
    mkdirSync(dir, { recursive: true });
    const store = openStore('account', dir)!;
    const rand = rng(size);
    const t0 = performance.now();
    store.repo.transaction(() => {
      for (let i = 0; i < size; i++) {
        const rows = packageToRows(makePackage(i, skillText, rand));
        store.repo.createSkill(rows.skill);
        for (const a of rows.artifacts) store.repo.addArtifact(a);
      }
    });
    opts.log(`built ${size} skills in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const catalog = new SkillCatalog(store, null);
    const n = opts.quick ? 200 : 1000;
    const mrand = rng(7);
    const queries = Array.from({ length: n }, () => messages[Math.floor(mrand() * messages.length)]!);
    // What `skills/match` does before its first match: build the index, then the matcher's
    // warm-up matches (timed apart: the index build is the row's `index_build_ms`).
    const tb = performance.now();
    syncSkillIndexes(catalog, { prime: false });
    const buildMs = performance.now() - tb;
    const tp = performance.now();
    syncSkillIndexes(catalog);
    const primeMs = performance.now() - tp;
    const samples = await sample(n, (i) => matchSkills(catalog, queries[i]!, { limit: 5 }));
    // This corpus's trigger phrases are the first words of README sentences ("if you want"), so
    // most messages hold several verbatim: then only those skills are scored. The share says how
    // much of the row is that path; the rest scores every skill sharing a word with the message.
    const filled = queries.filter((q) => {
      const m = matchSkills(catalog, q, { limit: 5 });
      return m.length === 5 && m.every((x) => x.matched_on.includes('exact_trigger'));
    }).length;
    results.push({
      bench: `phase1.match.${size}`,
      unit: 'ms',
      p50: r3(percentile(samples, 50)),
      p95: r3(percentile(samples, 95)),
      p99: r3(percentile(samples, 99)),
      n,
      skills: size,
      index_build_ms: r3(buildMs),
      warm_up_ms: r3(primeMs),
      trigger_filled_share: r3(filled / n),
      target_p95_ms: size === 10_000 ? 0.5 : size === 100_000 ? 3 : undefined,
    });
    store.close();
  }

  // Import throughput: 1,000 package files read, validated and written in one command.
  const count = opts.quick ? 200 : 1000;
  const pkgDir = join(tmp, 'packages');
  mkdirSync(pkgDir, { recursive: true });
  const rand = rng(42);
  for (let i = 0; i < count; i++) {
    writeFileSync(join(pkgDir, `p${i}.json`), JSON.stringify(makePackage(i, skillText, rand)));
  }
  const runs: number[] = [];
  for (let k = 0; k < 3; k++) {
    const store = openStore('account', join(tmp, `import${k}`))!;
    const t = performance.now();
    importPackages(
      store,
      await loadPackages(pkgDir, { ...DEFAULT_LIMITS, maxFiles: 100_000, maxBytes: 1 << 30 }),
    );
    runs.push(performance.now() - t);
    store.close();
  }
  const best = Math.min(...runs);
  results.push({
    bench: 'skills.import',
    unit: 'ms',
    p50: r3(percentile(runs, 50)),
    p95: r3(percentile(runs, 95)),
    n: runs.length,
    packages: count,
    packages_per_s: Math.round((count / best) * 1000),
    target_ms_per_1000: 3000,
  });
  rmSync(tmp, { recursive: true, force: true });
  return results;
}
