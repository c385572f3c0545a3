import { describe, expect, it } from 'vitest';
import { ARTIFACT_KINDS, type ArtifactKindName, KIND_FACTS } from '../contract/kinds.js';
import type { SkillArtifact } from '../store/index.js';
import {
  bodyKeepsHeader,
  bundledFileArtifact,
  HOST_FUNCTION_EFFECTS,
  KINDS,
  type KindModule,
  runnableArtifacts,
  skillMdArtifact,
  skillMdInstructions,
  stateRule,
  succeed,
} from './index.js';

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

describe('the Agent Skills import hooks', () => {
  it('reads SKILL.md as the kind its frontmatter names, else as instructions keeping the header', () => {
    expect(
      skillMdArtifact({ name: 'x', description: 'd', mode: 'llm', tools: [] }, 'Be brief.', 'x'),
    ).toEqual({
      kind: 'llm_agent',
      name: 'SKILL.md',
      ordinal: 0,
      content: 'Be brief.',
      metadata: { tools: [] },
    });
    expect(skillMdArtifact({ name: 'x', description: 'd' }, 'Steps.', 'x')).toBeNull();
    // A key only an LLM skill takes, without `mode: llm`, is refused naming the fix.
    expect(() => skillMdArtifact({ name: 'x', description: 'd', tools: [] }, '', 'x')).toThrow(
      /only a "mode: llm" skill takes tools; add "mode: llm"/,
    );
    expect(() => skillMdArtifact({ name: 'x', description: 'd', mode: 'agent' }, '', 'x')).toThrow(
      /mode: must be "llm"/,
    );
    expect(skillMdInstructions('Steps.', '---\nname: x\n---\n')).toMatchObject({
      kind: 'approach',
      metadata: { frontmatter: '---\nname: x\n---\n' },
    });
    expect(bodyKeepsHeader('approach')).toBe(true);
    expect(bodyKeepsHeader('description')).toBe(true);
    expect(bodyKeepsHeader('llm_agent')).toBe(false);
    expect(bodyKeepsHeader('no such kind')).toBe(false);
    // A manifest is input: names an object already has are no kinds either.
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(bodyKeepsHeader(name), name).toBe(false);
      expect(stateRule(name), name).toBeUndefined();
    }
    expect(stateRule('dspy_module')?.problem(Buffer.from('{}').toString('base64'))).toBeNull();
    expect(stateRule('dspy_module')?.problem(Buffer.from('[1]').toString('base64'))).toMatch(/JSON object/);
    expect(stateRule('prompt_template')).toBeUndefined();
  });

  it('reads a bundled file as the kind that claims its path, binary as base64', () => {
    const wasm = Buffer.from([0, 97, 115, 109]);
    expect(bundledFileArtifact('components/calc.wasm', 3, wasm, null, { executable: true })).toEqual({
      kind: 'wasm_component',
      name: 'components/calc.wasm',
      ordinal: 3,
      content: wasm.toString('base64'),
      metadata: { path: 'components/calc.wasm', encoding: 'base64', executable: true },
    });
    expect(bundledFileArtifact('scripts/run.py', 1, Buffer.from('print(1)'), 'print(1)')).toEqual({
      kind: 'resource',
      name: 'scripts/run.py',
      ordinal: 1,
      content: 'print(1)',
      metadata: { path: 'scripts/run.py' },
    });
    const png = Buffer.from([137, 80, 78, 71, 0]);
    expect(bundledFileArtifact('assets/logo.png', 2, png, null)).toMatchObject({
      kind: 'resource',
      content: png.toString('base64'),
      metadata: { path: 'assets/logo.png', encoding: 'base64' },
    });
  });
});
