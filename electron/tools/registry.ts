import {
  BUILTIN_TOOLS,
  type BuiltinToolArgs,
  type BuiltinToolName,
  toolParameters,
} from '../contract/builtin-tools.js';
import type { LlmToolSpec } from '../llm/index.js';
import { applySkill } from './apply-skill.js';
import { listSkills } from './list-skills.js';
import { readSkill } from './read-skill.js';
import { runPython } from './run-python.js';
import { runScript } from './run-script.js';
import { searchSkills } from './search-skills.js';
import type { ToolContext, ToolModule, ToolOutcome } from './types.js';

/**
 * Every built-in tool's implementation, keyed like the contract's `BUILTIN_TOOLS`: a tool in the
 * table without a module here (or the other way round) fails `tsc`.
 */
export const TOOL_MODULES: { readonly [N in BuiltinToolName]: ToolModule<N> } = {
  list_skills: listSkills,
  search_skills: searchSkills,
  read_skill: readSkill,
  apply_skill: applySkill,
  run_script: runScript,
  run_python: runPython,
};

let specs: LlmToolSpec[] | undefined;
/**
 * The built-in tools as a model is offered them (JSON Schema generated from the zod schemas), made
 * on first use: generating them costs tens of milliseconds that a command offering no tool (the
 * CLI's `skills match`) should not pay at start.
 */
export function allBuiltinToolSpecs(): LlmToolSpec[] {
  specs ??= (Object.keys(BUILTIN_TOOLS) as BuiltinToolName[]).map((name) => ({
    name,
    description: BUILTIN_TOOLS[name].description,
    parameters: toolParameters(BUILTIN_TOOLS[name].args),
  }));
  return specs;
}

/** The built-in tools' specs for one scope: a module that words itself for it does so. */
export function builtinToolSpecs(ctx: Pick<ToolContext, 'scope' | 'runners'>): LlmToolSpec[] {
  return allBuiltinToolSpecs().map((spec) => {
    const module = TOOL_MODULES[spec.name as BuiltinToolName];
    return module.descriptionFor ? { ...spec, description: module.descriptionFor(ctx) } : spec;
  });
}

/**
 * Parse a built-in tool's arguments. A call without arguments counts as `{}`; anything that does
 * not fit comes back as a tool error naming each bad field (an unknown one with the accepted
 * names), so the caller can correct its call.
 */
export function parseToolArgs<N extends BuiltinToolName>(
  name: N,
  args: unknown,
): { ok: true; value: BuiltinToolArgs<N> } | { ok: false; outcome: ToolOutcome } {
  const r = BUILTIN_TOOLS[name].args.safeParse(
    args === undefined || args === null || args === '' ? {} : args,
  );
  if (r.success) return { ok: true, value: r.data as BuiltinToolArgs<N> };
  const problems = r.error.issues.map(
    (i) => `${i.path.length ? i.path.join('.') : 'arguments'}: ${i.message}`,
  );
  return {
    ok: false,
    outcome: {
      ok: false,
      result: {
        error: `invalid arguments for ${name}: ${problems.join('; ')}`,
        expected: allBuiltinToolSpecs().find((t) => t.name === name)!.parameters,
      },
    },
  };
}

/** Run one built-in tool call: arguments checked, then its module. Never throws for bad input. */
export async function callBuiltinTool(
  name: BuiltinToolName,
  args: unknown,
  ctx: ToolContext,
): Promise<ToolOutcome> {
  const parsed = parseToolArgs(name, args);
  if (!parsed.ok) return parsed.outcome;
  const tool = TOOL_MODULES[name] as ToolModule<BuiltinToolName>;
  return tool.run(parsed.value as never, ctx);
}
