// How many tokens a model's context holds, for sizing what goes into a prompt (the skill listing's
// budget is a share of it). Providers' `/models` answers do not say it, so known model families
// are listed here; anything else is taken as 128k, the common size of current chat models.

/** The context size assumed for a model this table does not know. */
export const DEFAULT_CONTEXT_TOKENS = 128_000;

/** Model-name prefixes (lowercase, without a provider's `vendor/` prefix) and their context. */
const KNOWN: ReadonlyArray<readonly [string, number]> = [
  ['claude-', 200_000],
  ['gpt-4.1', 1_047_576],
  ['gpt-4o', 128_000],
  ['gpt-5', 400_000],
  ['o3', 200_000],
  ['o4-mini', 200_000],
  ['gpt-3.5', 16_385],
  ['gemini-', 1_048_576],
  ['grok-4', 256_000],
  ['grok-3', 131_072],
  ['deepseek-', 128_000],
  ['llama3.2', 128_000],
  ['qwen2.5', 32_768],
];

/** A model's context in tokens, and whether it came from the table (false: the default). */
export function contextWindow(model: string | null | undefined): { tokens: number; known: boolean } {
  const name = (model ?? '').toLowerCase().split('/').pop() ?? '';
  // The longest matching prefix wins ("gpt-4.1" over a shorter "gpt-4" were both listed).
  let best: readonly [string, number] | null = null;
  for (const k of KNOWN) if (name.startsWith(k[0]) && (!best || k[0].length > best[0].length)) best = k;
  return best ? { tokens: best[1], known: true } : { tokens: DEFAULT_CONTEXT_TOKENS, known: false };
}

/** The skill listing's budget in tokens: `percent` of the model's context, rounded down. */
export function listingBudgetTokens(percent: number, contextTokens: number): number {
  return Math.floor((contextTokens * percent) / 100);
}
