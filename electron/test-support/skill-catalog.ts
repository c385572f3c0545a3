// A large catalog for scale tests and benchmarks, written straight into an account store (the
// store API, one transaction) rather than through import, which would validate and lint every
// package and take minutes at 10,000 skills.
import { packageToRows } from '../skills/convert.js';
import type { SkillPackage } from '../skills/package-schema.js';
import { openStore } from '../store/stores.js';

const WORDS =
  'review draft summarize invoice table chart deploy schema query report letter audit translate parse extract convert validate plan refactor test index archive'.split(
    ' ',
  );

/** A deterministic pseudo-random generator (mulberry32), so a fixture is the same on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A skill as people write them: instructions, a prompt, a script, a reference file. */
export function catalogPackage(i: number, rand: () => number = seeded(i)): SkillPackage {
  const word = () => WORDS[Math.floor(rand() * WORDS.length)]!;
  const sentence = (n: number) => Array.from({ length: n }, word).join(' ');
  const name = `${word()} ${word()} ${i}`;
  return {
    name,
    description: `Use when you need to ${sentence(8)}.`,
    version: '1.0.0',
    source: 'user',
    tags: [word(), word()],
    artifacts: [
      { kind: 'approach', name: 'Instructions', ordinal: 0, content: `# ${name}\n\n${sentence(60)}\n` },
      { kind: 'prompt_template', name: 'Prompt', ordinal: 1, content: `${sentence(20)}\n\n{{ text }}` },
      {
        kind: 'resource',
        name: 'reference.md',
        ordinal: 2,
        metadata: { path: 'references/reference.md' },
        content: `# Reference\n\n${sentence(120)}\n`,
      },
    ],
  } as SkillPackage;
}

/**
 * Write `count` generated skills (plus `extra` packages as given) into the account store at
 * `home`; returns how long it took in ms.
 */
export function writeSkillCatalog(home: string, count: number, extra: SkillPackage[] = []): number {
  const t0 = performance.now();
  const store = openStore('account', home)!;
  try {
    store.repo.transaction(() => {
      for (const pkg of [...Array.from({ length: count }, (_, i) => catalogPackage(i)), ...extra]) {
        const rows = packageToRows(pkg);
        store.repo.createSkill(rows.skill);
        for (const a of rows.artifacts) store.repo.addArtifact(a);
      }
    });
  } finally {
    store.close();
  }
  return performance.now() - t0;
}
