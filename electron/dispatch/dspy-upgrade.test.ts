// The DSPy "version upgrade": with the real sidecar, a module whose state blob says an
// older DSPy wrote it is optimized again on its skill's evals when the app's sidecar starts, saved
// as a new version, and reported as a progress task; a module with no evals is skipped with a reason.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { AppError } from '../contract/errors.js';
import type { ProgressTask } from '../contract/progress.js';
import { NO_VENV } from '../sidecar-client/test-lm.js';
import { packageToRows, SkillCatalog } from '../skills/index.js';
import { openStore } from '../store/index.js';
import { skipWithout, tempDir, testHost } from '../test-support/index.js';
import { reoptimizeForDspyVersion, savedDspyVersion, staleDspyModules } from './dspy-upgrade.js';

const evalsFile = {
  evals: [
    {
      id: 1,
      prompt: 'Mara was born in Elst. Mara was born in Vost.',
      expected_output: 'birthplace: Elst vs Vost',
    },
    {
      id: 2,
      prompt: 'The bridge opened in 1901. It opened in 1910.',
      expected_output: 'opening year: 1901 vs 1910',
    },
    { id: 3, prompt: 'Tom is 30. Tom is 41.', expected_output: 'age: 30 vs 41' },
  ],
};

const module = (name: string) => ({
  kind: 'dspy_module',
  name,
  content: JSON.stringify({ template_id: 'predict', signature: 'claims -> contradictions' }),
  metadata: { fallback_artifact: 'Check' },
});
const check = { kind: 'prompt_template', name: 'Check', content: 'Contradictions in: {{ claims }}' };
const withEvals = {
  name: 'Claim Checker',
  description: 'Finds claims that contradict each other.',
  version: '1.0.0',
  source: 'user',
  artifacts: [
    check,
    module('DSPy Check'),
    {
      kind: 'resource',
      name: 'evals/evals.json',
      content: JSON.stringify(evalsFile),
      metadata: { path: 'evals/evals.json' },
    },
  ],
};
const withoutEvals = {
  name: 'Lone Module',
  description: 'A module with nothing to train on.',
  version: '2.0.0',
  source: 'user',
  artifacts: [check, module('DSPy Lone')],
};

describe('savedDspyVersion', () => {
  it('reads the DSPy version a state blob records, or null', () => {
    const blob = (v: unknown) => Buffer.from(JSON.stringify(v));
    expect(savedDspyVersion(blob({ metadata: { dependency_versions: { dspy: '3.0.1' } } }))).toBe('3.0.1');
    expect(savedDspyVersion(blob({ self: {} }))).toBeNull();
    expect(savedDspyVersion(Buffer.from('not json'))).toBeNull();
    expect(savedDspyVersion(null)).toBeNull();
  });
});

describe('reoptimizeForDspyVersion', () => {
  it('is cancellable: the running optimize sees the abort and no further module starts', async () => {
    const store = openStore('account', tempDir())!;
    const old = Buffer.from(JSON.stringify({ metadata: { dependency_versions: { dspy: '2.5.0' } } }));
    for (const name of ['Claim Checker', 'Claim Checker Two']) {
      const rows = packageToRows({ ...withEvals, name } as never);
      store.repo.createSkill(rows.skill);
      for (const a of rows.artifacts)
        store.repo.addArtifact(a.kind === 'dspy_module' ? { ...a, state_blob: old } : a);
    }
    const catalog = new SkillCatalog(store, null);
    expect(staleDspyModules(catalog, '3.4.0').map((m) => m.name)).toEqual([
      'Claim Checker',
      'Claim Checker Two',
    ]);
    expect(staleDspyModules(catalog, '2.5.0')).toEqual([]);
    let cancel = () => {};
    const ended: string[] = [];
    const calls: string[] = [];
    const report = await reoptimizeForDspyVersion(
      {
        catalog: () => catalog,
        optimize: (req, ctx) => {
          calls.push(req.name);
          cancel(); // the user presses cancel while the first module runs
          return new Promise((_, reject) => {
            const fail = () => reject(new AppError('CANCELLED', 'cancelled'));
            if (ctx.signal?.aborted) fail();
            ctx.signal?.addEventListener('abort', fail);
          });
        },
        startTask: (_label, opts) => {
          cancel = opts.cancel;
          return {
            update: () => {},
            done: (d) => ended.push(`done ${d}`),
            fail: (d) => ended.push(`fail ${d}`),
          };
        },
      },
      '3.4.0',
    );
    expect(calls).toEqual(['Claim Checker']);
    expect(report).toMatchObject({ cancelled: true, reoptimized: [], skipped: [] });
    expect(ended).toEqual([]);
    catalog.close();
  });
});

describe.skipIf(skipWithout(NO_VENV, 'DSPy version upgrade'))(
  'DSPy version upgrade (needs sidecar/.venv)',
  () => {
    it('re-optimizes modules an older DSPy wrote when the app starts the sidecar, skipping one without evals', async () => {
      const home = tempDir();
      const ctx = { transport: 'in-process' as const };
      // A CLI-like host optimizes both modules once (their blobs record the sidecar's DSPy)…
      const first = testHost({ home });
      for (const pkg of [withEvals, withoutEvals])
        await first.handlers['skills/import-package']({ package: pkg }, ctx);
      for (const [name, artifact] of [
        ['Claim Checker', 'DSPy Check'],
        ['Lone Module', 'DSPy Lone'],
      ] as const) {
        await first.handlers['skills/optimize'](
          {
            name,
            artifact,
            training_data: [{ claims: 'a', contradictions: 'b' }],
            optimizer: 'labeled_few_shot',
            evaluate: false,
          },
          ctx,
        );
      }
      const status = await first.handlers['sidecar/status']({}, ctx);
      if (!status.available) throw new Error(`the sidecar is unavailable: ${status.error.message}`);
      const dspy = status.version.dspy!;
      expect(dspy).toBeTruthy();
      // …and mode 'test' starts no re-optimization.
      expect((await first.handlers['progress/list']({}, ctx)).tasks.map((t) => t.label)).not.toContainEqual(
        expect.stringMatching(/Re-optimizing/),
      );
      const file = (await first.handlers['app/info']({}, ctx)).stores.account.file;
      await first.dispose();

      // Only the remembered version is faked: as if an older DSPy had written both blobs.
      const db = new Database(file);
      const blobs = () =>
        Object.fromEntries(
          (
            db
              .prepare(
                "SELECT name, state_blob FROM skill_artifacts WHERE kind = 'dspy_module' AND name IN ('DSPy Check', 'DSPy Lone')",
              )
              .all() as Array<{
              name: string;
              state_blob: Buffer;
            }>
          ).map((r) => [r.name, r.state_blob]),
        );
      for (const [name, blob] of Object.entries(blobs())) {
        expect(savedDspyVersion(blob)).toBe(dspy);
        const state = JSON.parse(blob.toString('utf8'));
        state.metadata.dependency_versions.dspy = '2.5.0';
        db.prepare("UPDATE skill_artifacts SET state_blob = ? WHERE kind = 'dspy_module' AND name = ?").run(
          Buffer.from(JSON.stringify(state)),
          name,
        );
      }

      // The app starts its sidecar: the upgrade runs in the background as a progress task.
      const app = testHost({ home, mode: 'web' });
      const seen: ProgressTask[] = [];
      app.events.subscribe('progress/task-updated', (t) => seen.push(t));
      expect((await app.handlers['sidecar/status']({}, ctx)).available).toBe(true);
      await expect
        .poll(
          () =>
            seen.find(
              (t) => t.label === `Re-optimizing DSPy modules for DSPy ${dspy}` && t.state !== 'running',
            ),
          {
            timeout: 120_000,
            interval: 250,
          },
        )
        .toMatchObject({ state: 'done', cancellable: false });
      const upgrade = seen.filter((t) => t.label.startsWith('Re-optimizing'));
      expect(upgrade[0]).toMatchObject({ state: 'running', cancellable: true });
      expect(upgrade.map((t) => t.detail)).toContainEqual(
        expect.stringMatching(/^Claim Checker \/ DSPy Check \(\d of \d+, saved with DSPy 2\.5\.0\)$/),
      );
      const last = upgrade.at(-1)!;
      expect(last.detail).toMatch(/^1 re-optimized, skipped /);
      expect(last.detail).toContain('Lone Module / DSPy Lone: "Lone Module" has no evals');

      const versions = await app.handlers['skills/versions']({ name: 'Claim Checker' }, ctx);
      expect(versions.current?.version).toBe('1.0.1');
      const after = blobs();
      expect(savedDspyVersion(after['DSPy Check'])).toBe(dspy);
      expect(savedDspyVersion(after['DSPy Lone'])).toBe('2.5.0');
      expect((await app.handlers['skills/versions']({ name: 'Lone Module' }, ctx)).current?.version).toBe(
        '2.0.0',
      );
      db.close();
    }, 240_000);
  },
);
