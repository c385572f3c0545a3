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
import type { KindModule } from './types.js';
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
  DspyRunOutput,
  DspyRunRequest,
  HandlerResult,
  KindArtifact,
  KindContext,
  KindEffect,
  KindIssue,
  KindModule,
  KindReview,
  KindServices,
  LlmSkillHost,
  ToolScriptRequest,
  ToolScriptResult,
  TraceDraft,
} from './types.js';
export { modelFamily, resolveVariants, selectVariant } from './variants.js';
