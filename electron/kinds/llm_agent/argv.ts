import type { LlmToolSpec } from '../../llm/index.js';
import type { LlmTool } from './schema.js';

/**
 * The tool's definition as the model sees it: a JSON Schema object of its declared parameters,
 * closed (an argument the tool does not declare is refused before anything runs).
 */
export function toolSpec(tool: LlmTool): LlmToolSpec {
  return {
    name: tool.name,
    description: tool.description,
    parameters: {
      type: 'object',
      properties: Object.fromEntries(
        tool.parameters.map((p) => [p.name, { type: p.type, description: p.description }]),
      ),
      required: tool.parameters.filter((p) => p.required).map((p) => p.name),
      additionalProperties: false,
    },
  };
}

/**
 * The arguments after the command for one call, by fixed rules: the first declared parameter is
 * positional when it is required; every other one (and a first that is optional) is `--name value`;
 * absent optional ones are left out. A value starting with `-` is refused, so nothing the model
 * writes can be read as an option by the script; so is a value that is not a single scalar.
 */
export function buildArgv(
  tool: LlmTool,
  args: unknown,
): { ok: true; argv: string[] } | { ok: false; error: string } {
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    return { ok: false, error: `${tool.name} takes an object of arguments` };
  const given = args as Record<string, unknown>;
  const declared = new Set(tool.parameters.map((p) => p.name));
  const unknown = Object.keys(given).filter((k) => !declared.has(k));
  if (unknown.length > 0) {
    return {
      ok: false,
      error: `${tool.name} has no argument ${unknown.map((k) => JSON.stringify(k)).join(', ')}; it takes: ${[...declared].join(', ') || 'none'}`,
    };
  }
  const argv: string[] = [];
  for (const [i, p] of tool.parameters.entries()) {
    const v = given[p.name];
    if (v === undefined || v === null) {
      if (p.required) return { ok: false, error: `${tool.name} needs the argument "${p.name}"` };
      continue;
    }
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean')
      return {
        ok: false,
        error: `"${p.name}" must be a single ${p.type}, not ${Array.isArray(v) ? 'a list' : 'an object'}`,
      };
    const s = String(v);
    if (s.startsWith('-')) {
      return {
        ok: false,
        error: `refused: the value of "${p.name}" starts with "-", which the script would read as an option; pass it without the leading dash`,
      };
    }
    if (s.includes('\0')) return { ok: false, error: `the value of "${p.name}" contains a NUL character` };
    if (i === 0 && p.required) argv.push(s);
    else argv.push(`--${p.name}`, s);
  }
  return { ok: true, argv };
}
