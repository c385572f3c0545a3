import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/**
 * The e5 vectors of the shipped seed skills (`seed-skills/vectors/e5.json`, beside the seeds, not among them, written by
 * `npx tsx scripts/seed-vectors.mts`), keyed like the store's by model and text hash. A new home's
 * built-in skills then match by meaning from its first command, instead of saying they have no
 * vector yet until `skills embed` spends a second on them. Content-addressed: a skill whose text
 * differs from a seed's (edited, or a newer seed with an older file) is embedded as any other.
 */
export const SEED_VECTORS_FILE = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../seed-skills/vectors/e5.json',
);

const FileSchema = z.object({
  model: z.string().min(1),
  dims: z.number().int().positive(),
  vectors: z.record(z.string().regex(/^[0-9a-f]{40}$/), z.string()),
});

let loaded: { model: string; vectors: Map<string, Float32Array> } | null | undefined;

function read(): { model: string; vectors: Map<string, Float32Array> } | null {
  if (!existsSync(SEED_VECTORS_FILE)) return null;
  try {
    const f = FileSchema.parse(JSON.parse(readFileSync(SEED_VECTORS_FILE, 'utf8')));
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
  if (loaded === undefined) loaded = read();
  return loaded?.model === model ? loaded.vectors.get(textHash) : undefined;
}
