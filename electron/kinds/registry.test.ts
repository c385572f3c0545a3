import { describe, expect, it } from 'vitest';
import { ARTIFACT_KINDS, type ArtifactKindName, KIND_FACTS } from '../contract/kinds.js';
import type { SkillArtifact } from '../store/index.js';
import { HOST_FUNCTION_EFFECTS, KINDS, type KindModule, runnableArtifacts, succeed } from './index.js';

function artifact(kind: ArtifactKindName, name: string, metadata: Record<string, unknown> | null = null) {
  return {
    id: `${kind}-${name}`,
    skill_id: 's',
    kind,
    name,
    ordinal: 0,
    content: '',
    model_variant: null,
    metadata,
    state_blob: null,
    created_at: '',
    updated_at: '',
  } satisfies SkillArtifact;
}

describe('a kind is handled wherever kinds differ, by its own module', () => {
  it('fails to compile without the hooks the export and the source review ask', () => {
    // @ts-expect-error a module with no Agent Skills rule and no review facts is not a kind module
    const incomplete: KindModule<'example'> = {
      kind: 'example',
      runs_in: 'nothing',
      validate: () => [],
      effects: () => [],
      execute: async () => succeed({ text: null }),
    };
    expect(incomplete.kind).toBe('example');
  });

  it('gives every registered kind an export file, review facts and index facts', () => {
    for (const kind of ARTIFACT_KINDS) {
      const a = artifact(kind, 'Thing');
      const m = KINDS[kind];
      expect(m.kind).toBe(kind);
      const file = m.agentSkills.file(a, 'thing');
      expect(file, kind).toMatch(/^[a-z]+\/thing(\.|$)/);
      expect(m.review(a, HOST_FUNCTION_EFFECTS), kind).toBeTypeOf('object');
      expect(KIND_FACTS[kind].index.body_chars, kind).toBeGreaterThanOrEqual(0);
    }
  });

  it('runs a program without its fallback template, and an LLM skill alone', () => {
    const prompt = artifact('prompt_template', 'Fallback');
    const other = artifact('prompt_template', 'Other');
    const program = artifact('dspy_module', 'Program', { fallback_artifact: 'Fallback' });
    const all = [prompt, other, program];
    expect(runnableArtifacts(all, all).map((a) => a.name)).toEqual(['Other', 'Program']);
    const agent = artifact('llm_agent', 'SKILL.md');
    const code = artifact('code_template', 'tool');
    expect(runnableArtifacts([code, agent], [code, agent])).toEqual([agent]);
  });

  it('lets SKILL.md body go to the strongest claim: LLM prompt, imported approach, approach, description', () => {
    const rank = (a: SkillArtifact) => KINDS[a.kind].agentSkills.body?.(a) ?? null;
    expect(rank(artifact('llm_agent', 'SKILL.md'))).toBe(0);
    expect(rank(artifact('approach', 'Instructions', { frontmatter: '---\n---\n' }))).toBe(1);
    expect(rank(artifact('approach', 'Instructions'))).toBe(2);
    expect(rank(artifact('description', 'Overview'))).toBe(3);
    expect(rank(artifact('example', 'Example'))).toBeNull();
  });
});
