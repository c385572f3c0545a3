import { PROVIDER_KIND_IDS, providerFacts } from '../contract/providers.js';
import type { SkillArtifact } from '../store/index.js';

/**
 * The prompt-variant family of a provider/model: the provider whose `family_models` match the
 * model's name (Claude models belong to their maker wherever they are served), else an open-weights family
 * named by the model (`llama`, `qwen`, …), else the provider itself.
 */
export function modelFamily(provider: string | null | undefined, model?: string | null): string | null {
  const m = (model ?? '').toLowerCase();
  const own = PROVIDER_KIND_IDS.find((id) => providerFacts(id).family_models?.test(m));
  if (own) return own;
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
