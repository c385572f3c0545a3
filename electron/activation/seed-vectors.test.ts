import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { seedAccountStore } from '../skills/index.js';
import { openStore } from '../store/index.js';
import { runCli, tempDir } from '../test-support/index.js';
import { denseText, denseTextHash } from './dense.js';
import { e5Engine, minilmEngine } from './e5.js';
import { SEED_VECTORS_FILE, SEED_VECTORS_SECOND_FILE } from './seed-vectors.js';
import { describeWithE5, dot } from './test-catalog.js';

describeWithE5('the seed skills’ shipped e5 vectors', () => {
  it.each([
    ['e5', SEED_VECTORS_FILE],
    ['MiniLM', SEED_VECTORS_SECOND_FILE],
  ])(
    'cover every seed skill’s current text under the current %s engine (else: npx tsx scripts/seed-vectors.mts)',
    async (name, file) => {
      const engine = (name === 'e5' ? e5Engine() : minilmEngine())!;
      expect(engine, `${name} is not installed`).toBeTruthy();
      const shipped = JSON.parse(readFileSync(file, 'utf8')) as {
        model: string;
        vectors: Record<string, string>;
      };
      const why = 'the shipped seed vectors are stale: run npx tsx scripts/seed-vectors.mts';
      expect(shipped.model, why).toBe(engine.id);
      const store = openStore('account', tempDir())!;
      seedAccountStore(store);
      const rows = store.db
        .prepare(
          "SELECT name, description, when_to_use, tags, intent_patterns, trigger_phrases FROM skills WHERE source = 'system'",
        )
        .all() as Array<Parameters<typeof denseText>[0]>;
      expect(rows.length).toBeGreaterThan(3);
      for (const r of rows) {
        const text = denseText(r);
        const b64 = shipped.vectors[denseTextHash(text)];
        expect(b64, `${r.name}: ${why}`).toBeDefined();
        // The shipped vector is the engine's own for that text (not merely a vector of the right size).
        const bytes = Buffer.from(b64!, 'base64');
        const v = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
        const now = (await engine.passages([text]))[0]!;
        expect(dot(v, now)).toBeGreaterThan(0.999);
      }
      store.db.close();
    },
  );

  it('let a new home’s first match use e5 without embedding anything', async () => {
    const home = tempDir();
    const ask = 'turn my meeting notes into a list of who does what';
    const r = await runCli(['--home', home, '--json', 'skills', 'match', ask]);
    expect(r.code).toBe(0);
    const out = r.json() as {
      matches: Array<{ name: string }>;
      e5: { used: boolean; embedded: number; total: number; second?: { embedded: number; total: number } };
    };
    expect(out.e5).toMatchObject({ used: true });
    expect(out.e5.embedded).toBe(out.e5.total);
    // The second model's too (where it is installed: CI fails without it, see minilm.test.ts).
    if (minilmEngine()) expect(out.e5.second).toMatchObject({ used: true, embedded: out.e5.total });
    expect(out.matches[0]!.name).toBe('Meeting Action Items');
  });
});
