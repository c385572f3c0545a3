import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SkillCatalog } from '../skills/index.js';
import { openStore, type SkillStore } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { explainMatch, matchSkills } from './phase1.js';
import {
  currentScanThread,
  scanThreadReady,
  scanThreadStats,
  stopScanThread,
  type ThreadedScanOptions,
  threadedScanOptions,
} from './scan-thread.js';
import { SemanticSpace } from './semantic.js';
import { skillIndex } from './skill-index.js';
import { addSkill } from './test-catalog.js';

const VERBS = ['summarise', 'translate', 'check', 'draft', 'merge', 'clean', 'review', 'plan'];
const THINGS = ['invoices', 'slides', 'poems', 'emails', 'charts', 'tests', 'gifs', 'forms', 'recipes'];
const WHOS = ['the team', 'a client', 'the board', 'students', 'support', 'finance'];

/**
 * Skill `i` of the account catalog: many near neighbours, and every 7th a twin of the one before,
 * its name spelt with `_` for `-`: the same embedded text ("merge invoices 6"), so the same vector
 * and score, the tie going by name.
 */
function skill(i: number): { name: string; description: string } {
  if (i % 7 === 0 && i > 0) {
    const twin = skill(i - 1);
    return { ...twin, name: twin.name.replaceAll('-', '_') };
  }
  const v = VERBS[i % VERBS.length]!;
  const t = THINGS[Math.floor(i / VERBS.length) % THINGS.length]!;
  const w = WHOS[Math.floor(i / 72) % WHOS.length]!;
  return { name: `${v}-${t}-${i}`, description: `${v} ${t} for ${w}` };
}

const MESSAGES = [
  'merge the invoices for finance',
  'a sonnet about autumn for students',
  'clean up these slides before the board meeting',
  'translate our support emails',
  'plan recipes for the team',
  'check the charts a client sent',
  'review tests',
  'summarise',
  'the and of',
  'taco tuesday with the crew',
  'drafft an emial to finanse',
  'poems, gifs and forms!',
  'what should I do about my gifs for the board',
  'spreadsheet of recipes for students',
];

let account: SkillStore;
let workspace: SkillStore;
let catalog: SkillCatalog;
let saved: ThreadedScanOptions;

beforeAll(async () => {
  saved = threadedScanOptions({ from: 0, sample: 5, chunk: 64, startAfter: 0, timeoutMs: 2000 });
  account = openStore('account', tempDir())!;
  workspace = openStore('workspace', tempDir())!;
  account.repo.transaction(() => {
    for (let i = 0; i < 1200; i++) addSkill(account, skill(i));
  });
  workspace.repo.transaction(() => {
    // Overrides (the account skill of the same name is hidden), twins of account skills under
    // other names (ties across stores), and skills of its own.
    for (let i = 0; i < 60; i++)
      addSkill(workspace, { ...skill(i * 17), description: `ours: ${skill(i).description}` });
    for (let i = 0; i < 60; i++) {
      const twin = skill(i * 13 + 5);
      addSkill(workspace, { ...twin, name: twin.name.replaceAll('-', '.') });
    }
    for (let i = 0; i < 60; i++)
      addSkill(workspace, { name: `ws-own-${i}`, description: skill(i * 11 + 3).description });
  });
  catalog = new SkillCatalog(account, workspace);
  expect(await scanThreadReady()).toBe(true);
}, 120_000);

afterAll(() => {
  threadedScanOptions(saved);
  stopScanThread();
});

/**
 * A search on both threads: first waits until the worker let go of the last job (on a loaded
 * machine it may still hold a chunk the caller scanned again, and then takes no new job).
 */
function search(space: SemanticSpace, ...args: Parameters<SemanticSpace['search']>) {
  expect(currentScanThread()?.drain(5000)).toBe(true);
  return space.search(...args);
}

/** Every ranking phase 1 gives for the messages, on the path chosen. */
function rankings(thread: boolean) {
  return MESSAGES.flatMap((m) => [
    matchSkills(catalog, m, { limit: 10, thread }),
    matchSkills(catalog, m, { limit: 1, thread }),
    explainMatch(catalog, m, { limit: 10, thread, skill: 'merge-invoices-4' }),
  ]);
}

/** The nearest of both stores, by the search on both threads and by the one-thread scan. */
function nearestBoth(k: number) {
  const ws = skillIndex(workspace.db);
  const acc = skillIndex(account.db);
  const space = SemanticSpace.of([ws, acc])!;
  const skip = (index: typeof acc, slot: number) => index === acc && ws.byKey.has(acc.docs[slot]!.key);
  const name = (n: { index: typeof acc; slot: number }) =>
    `${n.index === ws ? 'ws' : 'acc'}:${n.index.docs[n.slot]!.name}`;
  return MESSAGES.map((m) => {
    const q = space.query(m);
    if (!q) return null;
    const s = search(space, q, k, skip);
    const threaded = s.threaded;
    return {
      threaded,
      two: s.finish().map((n) => [name(n), n.cos]),
      one: space.nearest(q, k, skip).map((n) => [name(n), n.cos]),
    };
  });
}

describe('the semantic scan on the scan thread', () => {
  it('ranks every request exactly as the one-thread scan: two stores, hidden skills, ties', () => {
    const one = rankings(false);
    const jobs = scanThreadStats.jobs;
    for (const sample of [0, 5, 40]) {
      threadedScanOptions({ sample });
      expect(rankings(true)).toEqual(one);
      for (const k of [1, 5, 20, 60]) {
        for (const r of nearestBoth(k)) {
          if (!r) continue;
          expect(r.threaded).toBe(true);
          expect(r.two).toEqual(r.one);
        }
      }
    }
    expect(scanThreadStats.jobs - jobs).toBeGreaterThan(100);
    // The twins tie: the nearest hold equal cosines somewhere, broken by name.
    const near = nearestBoth(60).flatMap((r) => r?.one ?? []);
    expect(near.some((x, i) => i > 0 && x[1] === near[i - 1]![1])).toBe(true);
  }, 120_000);

  it('keeps a skill that ties with the bar exactly (the bar the first vectors set is not raised)', () => {
    // Every skill has a twin: the same text, so the same score, under a name that sorts first
    // (' ' before '-'). Where the nearest k end with a skill past the first vectors whose score is
    // exactly the k-th best of the first vectors (the bar the rest is scanned at), only a bar that
    // was not raised keeps it.
    const store = openStore('account', tempDir())!;
    const own = Array.from({ length: 300 }, (_, i) => skill(i)).filter((_, i) => i % 7 !== 0);
    store.repo.transaction(() => {
      for (const s of own) addSkill(store, s);
      for (const s of own) addSkill(store, { ...s, name: s.name.replaceAll('-', ' ') });
    });
    const ix = skillIndex(store.db);
    const space = SemanticSpace.of([ix])!;
    try {
      // (Slots follow the skills' random ids: which twin comes first varies from run to run, so
      // several first-vector counts are tried; each finds a few such cases.)
      let tight = 0;
      for (const first of [own.length >> 1, own.length, (own.length * 3) >> 1]) {
        threadedScanOptions({ sample: first });
        for (const m of MESSAGES) {
          const q = space.query(m);
          if (!q) continue;
          const sampled = space.nearest(q, 60, (_, slot) => slot >= first);
          for (let k = 1; k <= 60; k++) {
            const s = search(space, q, k, () => false);
            expect(s.threaded).toBe(true);
            const got = s.finish();
            expect(got).toEqual(space.nearest(q, k, () => false));
            if (got[k - 1]!.slot >= first && got[k - 1]!.cos === sampled[k - 1]!.cos) tight++;
          }
        }
      }
      expect(tight).toBeGreaterThan(0);
      const c = new SkillCatalog(store, null);
      for (const m of MESSAGES)
        expect(matchSkills(c, m, { limit: 10 })).toEqual(matchSkills(c, m, { limit: 10, thread: false }));
    } finally {
      threadedScanOptions({ sample: 5 });
      store.close();
    }
  });

  it('uses what the worker scanned (not only the chunks the caller took)', async () => {
    const acc = skillIndex(account.db);
    const space = SemanticSpace.of([skillIndex(workspace.db), acc])!;
    const before = scanThreadStats.workerChunks;
    for (const m of MESSAGES.slice(0, 4)) {
      const q = space.query(m)!;
      const s = search(space, q, 20, () => false);
      expect(s.threaded).toBe(true);
      // Let the worker scan every chunk before the caller collects.
      await expect.poll(() => currentScanThread()?.finished ?? 0).toBeGreaterThanOrEqual(1200 / 64);
      expect(s.finish()).toEqual(space.nearest(q, 20, () => false));
    }
    expect(scanThreadStats.workerChunks - before).toBeGreaterThanOrEqual(4 * Math.floor(1200 / 64));
  });

  it('stays exact as the catalog grows (a larger shared memory replaces the old one)', () => {
    const grow = (from: number, to: number) =>
      account.repo.transaction(() => {
        for (let i = from; i < to; i++) addSkill(account, skill(i));
      });
    const { workerChunks, chunkFailures } = scanThreadStats;
    grow(1200, 1260); // folded in
    expect(rankings(true)).toEqual(rankings(false));
    grow(1260, 2700); // rebuilt, capacity doubled
    expect(rankings(true)).toEqual(rankings(false));
    for (const r of nearestBoth(20)) if (r) expect(r.two).toEqual(r.one);
    // The worker scanned the new memory (no chunk failed and had to be scanned again).
    expect(scanThreadStats.chunkFailures).toBe(chunkFailures);
    expect(scanThreadStats.workerChunks).toBeGreaterThan(workerChunks);
  }, 120_000);

  it('scans itself a chunk the worker holds, stops a worker that keeps holding it, and restarts it', async () => {
    expect(await scanThreadReady()).toBe(true);
    threadedScanOptions({ timeoutMs: 50 });
    const acc = skillIndex(account.db);
    const space = SemanticSpace.of([skillIndex(workspace.db), acc])!;
    const q = space.query(MESSAGES[0]!)!;
    const stuck = currentScanThread()!;
    stuck.hold(true);
    const { timeouts, chunksLeft } = scanThreadStats;
    const s = search(space, q, 20, () => false);
    expect(s.threaded).toBe(true);
    await expect.poll(() => stuck.held).toBe(true);
    // Not waited for: the caller scans the held chunk again, at once.
    const t = performance.now();
    expect(s.finish()).toEqual(space.nearest(q, 20, () => false));
    expect(performance.now() - t).toBeLessThan(40);
    expect(scanThreadStats.chunksLeft).toBe(chunksLeft + 1);
    // While it holds the chunk the thread takes no job; past the timeout it is stopped.
    expect(space.search(q, 20, () => false).threaded).toBe(false);
    await new Promise((r) => setTimeout(r, 60));
    expect(space.search(q, 20, () => false).threaded).toBe(false);
    expect(scanThreadStats.timeouts).toBe(timeouts + 1);
    expect(stuck.dead).toBe(true);
    await expect.poll(() => stuck.exited).toBe(true);
    expect(currentScanThread()).toBeNull();
    // Until a new worker is up, matches scan on this thread, and the same.
    expect(rankings(true)).toEqual(rankings(false));
    scanThreadStats.failures = 0;
    threadedScanOptions({ timeoutMs: 2000 });
    expect(await scanThreadReady()).toBe(true);
    for (const r of nearestBoth(5)) {
      if (!r) continue;
      expect(r.threaded).toBe(true);
      expect(r.two).toEqual(r.one);
    }
  });

  it('loses nothing when the worker dies: the caller scans what it did not', async () => {
    expect(await scanThreadReady()).toBe(true);
    const one = rankings(false);
    const dying = currentScanThread()!;
    const gone = dying.kill();
    expect(rankings(true)).toEqual(one);
    await gone;
    await expect.poll(() => dying.exited).toBe(true);
    expect(currentScanThread()).toBeNull();
    expect(rankings(true)).toEqual(one);
  });

  it('never keeps the process alive, and stops on request', async () => {
    const here = dirname(fileURLToPath(import.meta.url));
    const script = `
      import { scanThreadReady, currentScanThread } from ${JSON.stringify(join(here, 'scan-thread.ts'))};
      const ok = await scanThreadReady();
      console.log(JSON.stringify({ ok, alive: currentScanThread() !== null }));
    `;
    const t = performance.now();
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, alive: true });
    expect(r.status).toBe(0);
    expect(performance.now() - t).toBeLessThan(15_000);
    const running = currentScanThread()!;
    stopScanThread();
    expect(running.dead).toBe(true);
    await expect.poll(() => running.exited).toBe(true);
    expect(currentScanThread()).toBeNull();
  }, 30_000);
});
