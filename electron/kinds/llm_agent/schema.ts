import { z } from 'zod';
import { PROVIDER_ID_VALUES } from '../../contract/settings.js';
import { PROVIDERS } from '../../llm/index.js';
import type { KindArtifact, KindIssue } from '../types.js';

/** The model's tool names as the providers accept them (OpenAI's rule is the narrowest). */
const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
/** A parameter becomes `--name value`: a word that cannot itself look like anything else. */
const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** A host name (or IP literal) with an optional port; no scheme, path or user info. */
const HOST =
  /^(?:(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;
/** `python`, `python3`, `python3.12`: run as Python in the sandbox, never as a native program. */
export const PYTHON_COMMAND = /^python(?:3(?:\.\d{1,2})?)?$/;

/**
 * Every environment name a provider key is read from (the app's providers, plus the names other
 * tools use for the same keys). A `tool_env` naming one is refused: a tool never sees a model key.
 */
export const PROVIDER_KEY_ENV_NAMES: readonly string[] = [
  ...new Set([
    ...Object.values(PROVIDERS).map((p) => p.envVar),
    'GOOGLE_API_KEY',
    'GEMINI_API_KEY',
    'MISTRAL_API_KEY',
    'GROQ_API_KEY',
    'OPENROUTER_API_KEY',
    'AZURE_OPENAI_API_KEY',
    'SKILLDESK_API_KEY',
  ]),
];

const text = (max: number) =>
  z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/** One argument of a tool, as the model fills it in. */
export const ToolParameterSchema = z
  .object({
    name: z.string().regex(PARAM_NAME, 'must be a word of letters, digits and _ (it becomes --name)'),
    description: text(1000),
    required: z.boolean().default(false),
    /** The JSON type the model is asked for; every value reaches the script as one argv string. */
    type: z.enum(['string', 'number', 'integer', 'boolean']).default('string'),
  })
  .strict();

/** One tool of an LLM skill: a script of the skill the model may call. */
export const LlmToolSchema = z
  .object({
    name: z.string().regex(TOOL_NAME, 'must be 1-64 letters, digits, _ or - (starting with a letter or _)'),
    description: text(2000),
    command: z
      .array(z.string().min(1, 'must not be empty').max(500))
      .min(1, 'needs at least one item')
      .max(32),
    parameters: z.array(ToolParameterSchema).max(32).default([]),
  })
  .strict()
  .superRefine((t, ctx) => {
    const seen = new Set<string>();
    t.parameters.forEach((p, i) => {
      if (seen.has(p.name))
        ctx.addIssue({
          code: 'custom',
          message: `duplicates parameter "${p.name}"`,
          path: ['parameters', i, 'name'],
        });
      seen.add(p.name);
    });
  });

/** The fields of a `mode: llm` skill (the `SKILL.md` frontmatter, an `llm_agent` artifact's metadata). */
export const LlmSkillSchema = z
  .object({
    tools: z.array(LlmToolSchema).max(32).default([]),
    provider: z.enum(PROVIDER_ID_VALUES).optional(),
    model: text(200).optional(),
    max_tokens: z.number().int().min(1).max(200_000).optional(),
    timeout_ms: z.number().int().min(100).max(600_000).optional(),
    max_tool_rounds: z.number().int().min(1).max(50).optional(),
    tool_env: z.array(z.string().regex(ENV_NAME, 'must be an environment variable name')).max(32).default([]),
    network: z
      .array(z.string().regex(HOST, 'must be a host name such as api.example.com (optionally :port)'))
      .max(64)
      .default([]),
    /** When the skill's provider is not set up, run on the chat's (or command's) model instead. */
    fallback_to_run_model: z.boolean().optional(),
    /** Assertions, as every artifact may carry (checked by the package schema). */
    assertions: z.unknown().optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    const names = new Set<string>();
    s.tools.forEach((t, i) => {
      if (names.has(t.name))
        ctx.addIssue({ code: 'custom', message: `duplicates tool "${t.name}"`, path: ['tools', i, 'name'] });
      names.add(t.name);
    });
    s.tool_env.forEach((name, i) => {
      if (PROVIDER_KEY_ENV_NAMES.includes(name.toUpperCase())) {
        ctx.addIssue({
          code: 'custom',
          message: `${name} is a model provider's key: provider keys never reach a tool; give the tool its own variable`,
          path: ['tool_env', i],
        });
      }
    });
  });

/** A validated `mode: llm` skill. */
export type LlmSkill = z.infer<typeof LlmSkillSchema>;
/** One validated tool. */
export type LlmTool = z.infer<typeof LlmToolSchema>;

/** Defaults when the skill says nothing. */
export const LLM_SKILL_DEFAULTS = { max_tokens: 4096, timeout_ms: 30_000, max_tool_rounds: 10 } as const;

/** The frontmatter keys of a `mode: llm` skill (besides `mode`), in the order export writes them. */
export const LLM_SKILL_KEYS = [
  'provider',
  'model',
  'max_tokens',
  'timeout_ms',
  'max_tool_rounds',
  'fallback_to_run_model',
  'tool_env',
  'network',
  'tools',
] as const;

/** Normalise a file path as a command names it (`./check.py` and `check.py` are the same file). */
export function normalPath(p: string): string {
  return p.replace(/^(?:\.\/)+/, '');
}

/** The path an artifact is a file of the skill at (its `metadata.path`, or a resource's name). */
export function artifactPath(a: KindArtifact): string | null {
  const p = a.metadata?.path;
  if (typeof p === 'string') return normalPath(p);
  return a.kind === 'resource' || a.kind === 'wasm_component' ? normalPath(a.name) : null;
}

/** What a tool's `command` runs: a Python file of the skill in the sandbox, or a component. */
export type ToolProgram =
  | { type: 'python'; script: string; fixed_args: string[] }
  | { type: 'component'; artifact: string; fixed_args: string[] };

/**
 * Resolve a tool's command against the skill's files, or say why it cannot run: only Python (in
 * the sandbox) and the skill's own WebAssembly components run; imported code never runs natively.
 */
export function toolProgram(
  command: readonly string[],
  artifacts: readonly KindArtifact[],
): { ok: true; program: ToolProgram } | { ok: false; path: number; message: string } {
  const [head, ...rest] = command;
  if (head === undefined) return { ok: false, path: 0, message: 'needs at least one item' };
  if (PYTHON_COMMAND.test(head)) {
    const script = rest[0];
    if (script === undefined)
      return {
        ok: false,
        path: 1,
        message: `${head} needs the skill's .py file to run (e.g. [${head}, check.py])`,
      };
    if (script.startsWith('-'))
      return {
        ok: false,
        path: 1,
        message: `"${script}": interpreter options are not accepted; name the skill's .py file right after ${head}`,
      };
    const file = normalPath(script);
    const found = artifacts.find((a) => artifactPath(a) === file);
    if (!found || !file.endsWith('.py'))
      return { ok: false, path: 1, message: `"${script}" is not a .py file of this skill` };
    return { ok: true, program: { type: 'python', script: file, fixed_args: rest.slice(1) } };
  }
  const target = normalPath(head);
  const component = artifacts.find(
    (a) => a.kind === 'wasm_component' && (a.name === head || artifactPath(a) === target),
  );
  if (component)
    return { ok: true, program: { type: 'component', artifact: component.name, fixed_args: rest } };
  return {
    ok: false,
    path: 0,
    message: `"${head}" cannot run: a tool is a Python file of the skill run in the sandbox (python, python3 or python3.x followed by the .py file) or a wasm_component of the skill; imported code never runs as a native program`,
  };
}

/** Parse the metadata of an `llm_agent` artifact (already validated when it was imported). */
export function parseLlmSkill(metadata: Record<string, unknown> | null | undefined): LlmSkill {
  const { path: _p, ...rest } = metadata ?? {};
  return LlmSkillSchema.parse(rest);
}

/** The kind's checks of one `llm_agent` artifact, with paths under the artifact. */
export function validateLlmAgent(
  artifact: KindArtifact,
  skill: { artifacts: readonly KindArtifact[] },
): KindIssue[] {
  const { path: _p, ...rest } = artifact.metadata ?? {};
  const r = LlmSkillSchema.safeParse(rest);
  if (!r.success) {
    return r.error.issues.map((i) => ({
      path: ['metadata', ...i.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
      message:
        i.code === 'unrecognized_keys'
          ? `unknown key${i.keys.length > 1 ? 's' : ''} ${i.keys.map((k) => `"${k}"`).join(', ')} (an LLM skill takes: ${[...LLM_SKILL_KEYS, 'assertions'].join(', ')})`
          : i.code === 'invalid_type' && i.input === undefined
            ? 'is required'
            : i.message,
    }));
  }
  const issues: KindIssue[] = [];
  r.data.tools.forEach((t, i) => {
    const p = toolProgram(t.command, skill.artifacts);
    if (!p.ok) issues.push({ path: ['metadata', 'tools', i, 'command', p.path], message: p.message });
  });
  if (skill.artifacts.filter((a) => a.kind === 'llm_agent').length > 1)
    issues.push({
      path: ['kind'],
      message: 'a skill has at most one llm_agent artifact (its system prompt)',
    });
  return issues;
}
