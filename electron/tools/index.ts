// The built-in skill tools: one module each, one registry, one handler slice for calls from
// outside a chat. Their names, schemas and activity text are in contract/builtin-tools.ts.

export {
  describeEffects,
  HOST_FUNCTION_EFFECTS,
  type SkillEffect,
  type SkillEffects,
  type SkillForEffects,
  skillEffects,
} from '../kinds/index.js';
export { runSkillTool } from './apply-skill.js';
export { createToolHandlers, MCP_FOLDER, type ToolHandlerDeps } from './handlers.js';
export {
  allBuiltinToolSpecs,
  builtinToolSpecs,
  callBuiltinTool,
  parseToolArgs,
  TOOL_MODULES,
} from './registry.js';
export type {
  BundledTool,
  ExternalTools,
  SkillEffectsView,
  ToolContext,
  ToolModule,
  ToolOutcome,
  TurnHooks,
} from './types.js';
