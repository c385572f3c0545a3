import type { SkillArtifact } from '../store/index.js';

/** The prompt-variant family of a provider/model: `anthropic`, `openai`, `google`, `xai`, `deepseek`, … */
export function modelFamily(provider: string | null | undefined, model?: string | null): string | null {
  const m = (model ?? '').toLowerCase();
  if (/^claude/.test(m)) return 'anthropic';
  if (/^(gpt|o\d|chatgpt)/.test(m)) return 'openai';
  if (/^gemini/.test(m)) return 'google';
  if (/^grok/.test(m)) return 'xai';
  if (/^deepseek/.test(m)) return 'deepseek';
  if (/^(llama|qwen|mistral|phi|gemma)/.test(m)) return m.match(/^[a-z]+/)![0];
  return provider ?? null;
}

/**
 * Pick one row per artifact name among model variants, as the design says: exact family match →
 * the default variant (NULL or "default") → the first by ordinal.
 */
export function selectVariant(rows: SkillArtifact[], family: string | null): SkillArtifact | undefined {
  const sorted = [...rows].sort((a, b) => a.ordinal - b.ordinal);
  return (
    (family ? sorted.find((a) => a.model_variant === family) : undefined) ??
    sorted.find((a) => a.model_variant === null || a.model_variant === 'default') ??
    sorted[0]
  );
}

/** The artifacts of a skill with one variant per name, in ordinal order. */
export function resolveVariants(artifacts: SkillArtifact[], family: string | null): SkillArtifact[] {
  const byName = new Map<string, SkillArtifact[]>();
  for (const a of artifacts) {
    const key = `${a.kind}\u0000${a.name}`;
    byName.set(key, [...(byName.get(key) ?? []), a]);
  }
  return [...byName.values()]
    .map((rows) => selectVariant(rows, family)!)
    .sort((a, b) => a.ordinal - b.ordinal || a.name.localeCompare(b.name));
}
