// Calibrates the score a phase-1 match needs to reach the chat's system prompt. On the retrieval
// harness's catalog (17 seed skills among realistic distractors), every top-5 match of a labelled
// request is relevant when it is the request's target and irrelevant otherwise; every match of a
// message that asks for no skill (small talk, arithmetic) is irrelevant. For each cut: precision
// (relevant among kept) and recall (targets kept), on the tuning split, then the chosen cut on the
// held-out split. Run: npx tsx bench/match-threshold.ts [catalog size, default 1000] [--e5]
// (`--e5`: the full phase 1, the e5 vectors from the retrieval bench's cache where it has them;
// the distractors are then the retrieval bench's own for that size, whose vectors it caches; 0 is
// the seed skills alone, a small catalog).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { e5Engine, minilmEngine } from '../electron/activation/e5.js';
import { type DenseFusion, type MatchOptions, matchSkills } from '../electron/activation/phase1.js';
import { SkillCatalog } from '../electron/skills/catalog.js';
import { packageToRows } from '../electron/skills/convert.js';
import { openStore } from '../electron/store/stores.js';
import { distractorPackages } from './retrieval/distractors.js';
import { type LabelledRequest, REQUESTS } from './retrieval/requests.js';
import { seedPackages } from './retrieval/seeds.js';
import { embedStore, SMALL_TALK } from './retrieval-e5.js';

/** Messages that ask for no skill beyond small talk: what leaked into the prompt in the issue. */
const NO_SKILL = [
  ...SMALL_TALK,
  'what is 2+40',
  'what is the capital of France',
  'tell me a joke',
  'who won',
  'write me a haiku about the sea',
];

const size = Number(process.argv[2] ?? 1000);
const withE5 = process.argv.includes('--e5');
const engine = withE5 ? e5Engine() : null;
if (withE5 && !engine) throw new Error('--e5: the e5 model is not installed (node scripts/setup-e5.mjs)');
// The second model joins e5 as the app fuses them (SKILLDESK_MINILM=off: e5 alone, as before it).
const second = engine ? minilmEngine() : null;
const dir = mkdtempSync(join(tmpdir(), 'skilldesk-threshold-'));
const store = openStore('account', dir)!;
const distractors = withE5
  ? distractorPackages(Math.max(0, size - seedPackages().length), size)
  : distractorPackages(size);
store.repo.transaction(() => {
  for (const p of [...seedPackages(), ...distractors]) {
    const rows = packageToRows(p);
    store.repo.createSkill(rows.skill);
    for (const a of rows.artifacts) store.repo.addArtifact(a);
  }
});
const catalog = new SkillCatalog(store, null);
if (engine) await embedStore(store, engine, { cache: true, log: () => {} });
if (second) await embedStore(store, second, { cache: true, log: () => {} });
const vectors = new Map<string, Float32Array>();
const vectors2 = new Map<string, Float32Array>();
/** The match options of a message: its e5 vector with `--e5`. */
const denseOf = (text: string): MatchOptions => {
  if (!engine) return {};
  let v = vectors.get(text);
  if (!v) {
    v = engine.querySync(text);
    vectors.set(text, v);
  }
  // SKILLDESK_DENSE_FUSION='{"mode":"weighted",…}': another fusion, to compare with the shipped one.
  const f = process.env.SKILLDESK_DENSE_FUSION;
  let v2 = second ? vectors2.get(text) : undefined;
  if (second && !v2) {
    v2 = second.querySync(text);
    vectors2.set(text, v2);
  }
  return {
    dense: { engine, vector: v, ...(second && v2 ? { second: { engine: second, vector: v2 } } : {}) },
    ...(f ? { denseFusion: JSON.parse(f) as Partial<DenseFusion> } : {}),
  };
};
const match = (text: string) => matchSkills(catalog, text, { limit: 5, ...denseOf(text) });

type Scored = { score: number; relevant: boolean };
function pairs(reqs: LabelledRequest[]): { scored: Scored[]; targets: number } {
  const scored: Scored[] = [];
  for (const q of reqs)
    for (const m of match(q.text)) scored.push({ score: m.score, relevant: m.name === q.target });
  for (const t of NO_SKILL) for (const m of match(t)) scored.push({ score: m.score, relevant: false });
  return { scored, targets: reqs.length };
}
function at(cut: number, p: { scored: Scored[]; targets: number }) {
  const kept = p.scored.filter((s) => s.score >= cut);
  const rel = kept.filter((s) => s.relevant).length;
  const precision = kept.length ? rel / kept.length : 1;
  const recall = rel / p.targets;
  return {
    cut,
    precision,
    recall,
    f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0,
    kept: kept.length,
  };
}
const tune = pairs(REQUESTS.filter((r) => r.split === 'tune'));
const held = pairs(REQUESTS.filter((r) => r.split === 'heldout'));
const cuts = Array.from({ length: 100 }, (_, i) => i / 100);
const rows = cuts.map((c) => at(c, tune));
const base = rows[0]!;
// The highest cut that keeps the tuning split's recall within 2 points of no cut at all: weak
// matches go, the skills people asked for stay.
const chosen = [...rows].reverse().find((r) => r.recall >= base.recall - 0.02)!;
const f = (x: number) => x.toFixed(3);
console.log(
  `catalog: ${store.db.prepare('SELECT count(*) FROM skills').pluck().get()} skills${engine ? ` (full phase 1, e5${second ? ' and MiniLM' : ''})` : ''}; tune ${tune.targets} requests, held-out ${held.targets}, no-skill ${NO_SKILL.length}`,
);
console.log('cut   precision recall  f1     kept (tuning split)');
for (const r of rows.filter((_, i) => i % 5 === 0 || rows[i] === chosen))
  console.log(
    `${r.cut.toFixed(2)}  ${f(r.precision)}     ${f(r.recall)}  ${f(r.f1)}  ${r.kept}${r === chosen ? '  <- chosen' : ''}`,
  );
const h0 = at(0, held);
const hc = at(chosen.cut, held);
console.log(`held-out at 0.00: precision ${f(h0.precision)} recall ${f(h0.recall)}`);
console.log(`held-out at ${chosen.cut.toFixed(2)}: precision ${f(hc.precision)} recall ${f(hc.recall)}`);
// The same cuts on the held-out split and on the no-skill messages, to pick one cut for every size.
console.log('cut   held-out precision recall  no-skill messages with a kept match');
for (const c of [0, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.88, 0.9]) {
  const h = at(c, held);
  const leak = NO_SKILL.filter((t) => match(t).some((m) => m.score >= c)).length;
  console.log(`${c.toFixed(2)}  ${f(h.precision)}            ${f(h.recall)}  ${leak}/${NO_SKILL.length}`);
}
const noSkill = NO_SKILL.map((t) => match(t).filter((m) => m.score >= chosen.cut).length);
console.log(
  `no-skill messages with a match kept at the cut: ${noSkill.filter((n) => n > 0).length}/${NO_SKILL.length}`,
);
const haiku = match('write me a haiku about the sea').map((m) => `${m.name} ${f(m.score)}`);
console.log(`"write me a haiku about the sea": ${haiku.join(', ') || 'no match'}`);
catalog.close();
rmSync(dir, { recursive: true, force: true });
