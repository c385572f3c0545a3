// Artifact kinds: one folder each, one registry. The renderer-visible facts of each kind are the
// contract's KIND_FACTS table; everything else about it is its module here.
import type { ArtifactKindName } from '../contract/kinds.js';
import { approachKind } from './approach/index.js';
import { codeTemplateKind } from './code_template/index.js';
import { descriptionKind } from './description/index.js';
import { dspyModuleKind } from './dspy_module/index.js';
import { exampleKind } from './example/index.js';
import { llmAgentKind } from './llm_agent/index.js';
import { promptTemplateKind } from './prompt_template/index.js';
import { resourceKind } from './resource/index.js';
import type { KindArtifact, KindModule } from './types.js';
import { wasmComponentKind } from './wasm_component/index.js';

/**
 * Every kind's module, keyed like the contract's `KIND_FACTS`: a kind in the table without a
 * module (or a module filed under another kind) fails `tsc`.
 */
export const KINDS: { readonly [K in ArtifactKindName]: KindModule<K> } = {
  description: descriptionKind,
  prompt_template: promptTemplateKind,
  code_template: codeTemplateKind,
  dspy_module: dspyModuleKind,
  approach: approachKind,
  example: exampleKind,
  resource: resourceKind,
  wasm_component: wasmComponentKind,
  llm_agent: llmAgentKind,
};

/** The module of a kind. */
export function kindOf<K extends ArtifactKindName>(kind: K): KindModule<K> {
  return KINDS[kind];
}

/** An artifact as an Agent Skills import makes it (the package's artifact shape). */
export interface ImportedArtifact {
  kind: ArtifactKindName;
  name: string;
  ordinal: number;
  content: string;
  metadata: Record<string, unknown>;
}

const modules = Object.values(KINDS) as ReadonlyArray<KindModule<ArtifactKindName>>;

/**
 * SKILL.md of a folder without SkillDesk's manifest, when a kind claims it from its frontmatter
 * (an LLM skill's `mode: llm`); null when none does. A kind's hook throws for a frontmatter that
 * asks for it wrongly.
 */
export function skillMdArtifact(
  frontmatter: Record<string, unknown>,
  body: string,
  file: string,
): ImportedArtifact | null {
  for (const m of modules) {
    const r = m.agentSkills.fromSkillMd?.(frontmatter, body, file);
    if (r) return { kind: m.kind, name: 'SKILL.md', ordinal: 0, ...r };
  }
  return null;
}

/** SKILL.md's body as instructions (what it is unless a kind claims it), keeping the author's header. */
export function skillMdInstructions(body: string, header: string): ImportedArtifact {
  return {
    kind: approachKind.kind,
    name: 'SKILL.md',
    ordinal: 0,
    content: body,
    metadata: { frontmatter: header },
  };
}

/**
 * Whether a SKILL.md body of this kind keeps the author's frontmatter text to write back on export:
 * a text kind does; one whose settings are frontmatter keys of its own (an LLM skill) does not.
 * False for a name that is no kind (a manifest is input).
 */
export function bodyKeepsHeader(kind: string): boolean {
  const m = moduleNamed(kind);
  return m !== undefined && m.runs_in === 'nothing' && m.agentSkills.frontmatter === undefined;
}

/** The compiled-state rule of a kind ({@link KindModule.state}); undefined for one that keeps none or no kind. */
export function stateRule(kind: string): KindModule<ArtifactKindName>['state'] {
  return moduleNamed(kind)?.state;
}

/**
 * The access an artifact declares for its runs ({@link KindModule.declares}); none for a kind that
 * declares nothing or a name that is no kind.
 */
export function declaredAccess(artifact: KindArtifact): { network: string[]; tool_env: string[] } {
  return moduleNamed(artifact.kind)?.declares?.(artifact) ?? { network: [], tool_env: [] };
}

/** The module of a kind named by a string from outside (a manifest, a package), if it is one. */
function moduleNamed(kind: string): KindModule<ArtifactKindName> | undefined {
  return Object.hasOwn(KINDS, kind)
    ? (KINDS as Readonly<Record<string, KindModule<ArtifactKindName>>>)[kind]
    : undefined;
}

/**
 * A bundled file of a folder without the manifest, as an artifact: of the kind whose `reads`
 * claims its path (a component under `components/`), else a plain file; text kept as text,
 * anything else (or a binary kind's file) as base64. `extra` joins its metadata.
 */
export function bundledFileArtifact(
  path: string,
  ordinal: number,
  bytes: Buffer,
  text: string | null,
  extra: Record<string, unknown> = {},
): ImportedArtifact {
  const claim = modules.find((m) => m.agentSkills.reads?.path.test(path));
  const kind = claim?.kind ?? resourceKind.kind;
  const binary = text === null || claim?.agentSkills.reads?.binary === true;
  return {
    kind,
    name: path,
    ordinal,
    content: binary ? bytes.toString('base64') : text!,
    metadata: { path, ...(binary ? { encoding: 'base64' } : {}), ...extra },
  };
}

export { type DspyContent, DspyContentSchema, parseDspyContent } from './dspy_module/index.js';
export {
  describeEffects,
  HOST_FUNCTION_EFFECTS,
  type SkillEffect,
  type SkillEffects,
  type SkillForEffects,
  skillEffects,
} from './effects.js';
export {
  buildArgv,
  LLM_SKILL_DEFAULTS,
  LLM_SKILL_KEYS,
  type LlmSkill,
  LlmSkillSchema,
  type LlmSkillStep,
  PROVIDER_KEY_ENV_NAMES,
  parseLlmSkill,
  skillModel,
} from './llm_agent/index.js';
export { runnableArtifacts } from './pipeline.js';
export { generateOnce } from './prompt_template/index.js';
export { fail, NO_LLM, type Settled, settle, succeed } from './result.js';
export type {
  AgentSkillsRule,
  ArtifactOutput,
  DspyRunner,
  DspyRunOutput,
  DspyRunRequest,
  HandlerResult,
  KindArtifact,
  KindContext,
  KindEffect,
  KindIssue,
  KindModule,
  KindReview,
  KindRuntimes,
  LlmSkillHost,
  SandboxRuntime,
  ToolScriptRequest,
  ToolScriptResult,
  TraceDraft,
} from './types.js';
export { modelFamily, resolveVariants, selectVariant } from './variants.js';
