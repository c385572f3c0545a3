import { type ArtifactInput, newId, type Skill, type SkillInput } from '../store/index.js';
import type { SkillPackage } from './package-schema.js';

/** Turn a validated package into store rows. `skillId` keeps an existing skill's identity on update. */
export function packageToRows(
  pkg: SkillPackage,
  skillId?: string,
): { skill: SkillInput; artifacts: ArtifactInput[] } {
  const id = skillId ?? pkg.id ?? newId();
  const skill: SkillInput = {
    id,
    name: pkg.name,
    description: pkg.description,
    version: pkg.version,
    tags: pkg.tags ?? null,
    source: pkg.source ?? 'user',
    author: pkg.author ?? null,
    intent_patterns: pkg.intent_patterns ?? null,
    trigger_phrases: pkg.trigger_phrases ?? null,
    when: pkg.when ?? null,
    modalities: pkg.modalities ?? null,
    requires: pkg.requires ?? null,
    always_on: pkg.always_on ?? false,
    license: pkg.license ?? null,
    compatibility: pkg.compatibility ?? null,
    metadata: pkg.metadata ?? null,
    allowed_tools: pkg.allowed_tools ?? null,
    marketplace_id: pkg.marketplace_id ?? null,
    sync_etag: pkg.sync_etag ?? null,
  };
  const artifacts = pkg.artifacts.map(
    (a, i): ArtifactInput => ({
      id: newId(),
      skill_id: id,
      kind: a.kind,
      name: a.name,
      ordinal: a.ordinal ?? i,
      content: a.content,
      model_variant: a.model_variant ?? null,
      metadata: a.metadata ?? null,
      state_blob: a.state_blob == null ? null : Buffer.from(a.state_blob, 'base64'),
    }),
  );
  return { skill, artifacts };
}

/**
 * The canonical JSON package of a stored skill: keys in schema order, absent fields omitted,
 * state blobs base64. Importing this and exporting again gives the same JSON.
 */
export function skillToPackage(skill: Skill): SkillPackage {
  const pkg: Record<string, unknown> = {
    id: skill.id,
    name: skill.name,
    description: skill.description,
    version: skill.version,
  };
  const optional: Array<[string, unknown]> = [
    ['tags', skill.tags],
    ['source', skill.source],
    ['author', skill.author],
    ['intent_patterns', skill.intent_patterns],
    ['trigger_phrases', skill.trigger_phrases],
    ['when', skill.when],
    ['modalities', skill.modalities],
    ['requires', skill.requires],
    ['always_on', skill.always_on ? true : null],
    ['license', skill.license],
    ['compatibility', skill.compatibility],
    ['metadata', skill.metadata],
    ['allowed_tools', skill.allowed_tools],
    ['marketplace_id', skill.marketplace_id],
    ['sync_etag', skill.sync_etag],
  ];
  for (const [k, v] of optional) if (v != null) pkg[k] = v;
  pkg.artifacts = skill.artifacts.map((a) => {
    const out: Record<string, unknown> = {
      kind: a.kind,
      name: a.name,
      ordinal: a.ordinal,
      content: a.content,
    };
    if (a.model_variant != null) out.model_variant = a.model_variant;
    if (a.state_blob != null) out.state_blob = Buffer.from(a.state_blob).toString('base64');
    if (a.metadata != null) out.metadata = a.metadata;
    return out;
  });
  return pkg as SkillPackage;
}
