import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/**
 * The sentence vectors of the shipped seed skills, one file per model beside the seeds, not among
 * them (`seed-skills/vectors/e5.json`, `minilm.json`, written by `npx tsx scripts/seed-vectors.mts`),
 * keyed like the store's by model and text hash. A new home's built-in skills then match by meaning
 * from its first command, instead of saying they have no vector yet until `skills embed` spends a
 * second on them. Content-addressed: a skill whose text differs from a seed's (edited, or a newer
 * seed with an older file) is embedded as any other.
 */
export const SEED_VECTORS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../seed-skills/vectors');
/** The file of the e5 vectors. */
export const SEED_VECTORS_FILE = join(SEED_VECTORS_DIR, 'e5.json');
/** The file of the second model's (all-MiniLM-L6-v2) vectors. */
export const SEED_VECTORS_SECOND_FILE = join(SEED_VECTORS_DIR, 'minilm.json');

const FileSchema = z.object({
  model: z.string().min(1),
  dims: z.number().int().positive(),
  vectors: z.record(z.string().regex(/^[0-9a-f]{40}$/), z.string()),
});

/** Per model id, its shipped vectors by text hash. */
let loaded: Map<string, Map<string, Float32Array>> | undefined;

function read(file: string): { model: string; vectors: Map<string, Float32Array> } | null {
  if (!existsSync(file)) return null;
  try {
    const f = FileSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
    const vectors = new Map<string, Float32Array>();
    for (const [hash, b64] of Object.entries(f.vectors)) {
      const bytes = Buffer.from(b64, 'base64');
      // A damaged entry is skipped (that skill is embedded as usual), never half used.
      if (bytes.length !== f.dims * 4) continue;
      vectors.set(
        hash,
        new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)),
      );
    }
    return { model: f.model, vectors };
  } catch {
    return null;
  }
}

/** The shipped vector of the text with this hash under `model`, if a seed skill has that text. */
export function seedVector(model: string, textHash: string): Float32Array | undefined {
  if (loaded === undefined) {
    loaded = new Map();
    for (const file of [SEED_VECTORS_FILE, SEED_VECTORS_SECOND_FILE]) {
      const f = read(file);
      if (f) loaded.set(f.model, f.vectors);
    }
  }
  return loaded.get(model)?.get(textHash);
}
