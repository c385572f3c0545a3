import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../contract/errors.js';
import type { ProviderId } from './providers.js';
import { ProviderIdSchema } from './providers.js';
import type { LlmUsage } from './types.js';

/** USD per million tokens, input and output. */
export interface ModelPrice {
  input_per_mtok: number;
  output_per_mtok: number;
}

/** Prices by provider, then by model id. */
export type PriceTable = Partial<Record<ProviderId, Record<string, ModelPrice>>>;

/**
 * Built-in list prices (USD per million tokens, standard tier, no caching or batch discounts).
 * They go stale: users override or extend them with `prices.json` in the account folder.
 */
export const BUILTIN_PRICES: PriceTable = {
  anthropic: {
    'claude-sonnet-4-6': { input_per_mtok: 3, output_per_mtok: 15 },
    'claude-sonnet-4-5': { input_per_mtok: 3, output_per_mtok: 15 },
    'claude-sonnet-4-0': { input_per_mtok: 3, output_per_mtok: 15 },
    'claude-haiku-4-5': { input_per_mtok: 1, output_per_mtok: 5 },
    'claude-opus-4-1': { input_per_mtok: 15, output_per_mtok: 75 },
  },
  openai: {
    'gpt-4.1-mini': { input_per_mtok: 0.4, output_per_mtok: 1.6 },
    'gpt-4.1': { input_per_mtok: 2, output_per_mtok: 8 },
    'gpt-4.1-nano': { input_per_mtok: 0.1, output_per_mtok: 0.4 },
    'gpt-4o': { input_per_mtok: 2.5, output_per_mtok: 10 },
    'gpt-4o-mini': { input_per_mtok: 0.15, output_per_mtok: 0.6 },
    'gpt-5': { input_per_mtok: 1.25, output_per_mtok: 10 },
    'gpt-5-mini': { input_per_mtok: 0.25, output_per_mtok: 2 },
  },
  google: {
    'gemini-2.5-flash': { input_per_mtok: 0.3, output_per_mtok: 2.5 },
    'gemini-2.5-flash-lite': { input_per_mtok: 0.1, output_per_mtok: 0.4 },
    'gemini-2.5-pro': { input_per_mtok: 1.25, output_per_mtok: 10 },
  },
  xai: {
    'grok-4': { input_per_mtok: 3, output_per_mtok: 15 },
  },
  deepseek: {
    'deepseek-chat': { input_per_mtok: 0.28, output_per_mtok: 0.42 },
    'deepseek-reasoner': { input_per_mtok: 0.28, output_per_mtok: 0.42 },
  },
};

const ModelPriceSchema = z.strictObject({
  input_per_mtok: z.number().nonnegative().finite(),
  output_per_mtok: z.number().nonnegative().finite(),
});

/**
 * Shape of the user's `prices.json`:
 * `{ "openai": { "gpt-4o": { "input_per_mtok": 2.5, "output_per_mtok": 10 } } }`.
 */
export const PriceTableSchema = z.partialRecord(
  ProviderIdSchema,
  z.record(z.string().min(1), ModelPriceSchema),
);

/** The file name of the user's price overrides in the account folder. */
export const PRICES_FILE = 'prices.json';

/** Overlay `extra` on `base`, model by model. */
export function mergePrices(base: PriceTable, extra: PriceTable): PriceTable {
  const out: PriceTable = {};
  for (const table of [base, extra]) {
    for (const [provider, models] of Object.entries(table) as Array<
      [ProviderId, Record<string, ModelPrice>]
    >) {
      out[provider] = { ...out[provider], ...models };
    }
  }
  return out;
}

/**
 * The built-in table merged with `<homeDir>/prices.json` when it exists. A malformed file is an
 * AppError INVALID_INPUT naming the file and the JSON path.
 */
export function loadPriceTable(homeDir: string): PriceTable {
  const file = join(homeDir, PRICES_FILE);
  if (!existsSync(file)) return BUILTIN_PRICES;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new AppError('INVALID_INPUT', `${file}: not valid JSON (${(e as Error).message})`, { file });
  }
  const r = PriceTableSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const path = issue.path.length ? `$.${issue.path.join('.')}` : '$';
    throw new AppError('INVALID_INPUT', `${file}: ${path}: ${issue.message}`, { file, path });
  }
  return mergePrices(BUILTIN_PRICES, r.data);
}

/**
 * {@link loadPriceTable} for callers that only estimate costs: a broken `prices.json` gives the
 * built-in table and a warning saying what is wrong and what to do, never a refused call.
 */
export function readPriceTable(homeDir: string): { table: PriceTable; warning: string | null } {
  try {
    return { table: loadPriceTable(homeDir), warning: null };
  } catch (e) {
    const why = e instanceof AppError ? e.message : `${join(homeDir, PRICES_FILE)}: ${(e as Error).message}`;
    return {
      table: BUILTIN_PRICES,
      warning: `${why.slice(0, 300)} — costs are estimated from the built-in prices until it is fixed or removed.`,
    };
  }
}

/** A model's price: exact id first, then the id without a date suffix (`-20250929`, `-2025-04-14`). */
export function findPrice(table: PriceTable, provider: ProviderId, model: string): ModelPrice | undefined {
  const models = table[provider];
  if (!models) return undefined;
  const exact = models[model];
  if (exact) return exact;
  const undated = model.replace(/-(\d{8}|\d{4}-\d{2}-\d{2})$/, '');
  return undated !== model ? models[undated] : undefined;
}

/** Estimated USD cost of a call, or null when the model has no known price. */
export function estimateCost(
  provider: ProviderId,
  model: string,
  usage: LlmUsage,
  table: PriceTable = BUILTIN_PRICES,
): number | null {
  const price = findPrice(table, provider, model);
  if (!price) return null;
  const cost =
    (usage.input_tokens * price.input_per_mtok + usage.output_tokens * price.output_per_mtok) / 1_000_000;
  // Round away float noise (1e-12 USD is far below any price's precision).
  return Math.round(cost * 1e12) / 1e12;
}
