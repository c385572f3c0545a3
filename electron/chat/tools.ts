import { z } from 'zod';
import { matchSkills } from '../activation/index.js';
import { AppError } from '../contract/errors.js';
import {
  type ArtifactDispatcher,
  type DispatchResult,
  EXECUTABLE_KINDS,
  type RunScope,
} from '../dispatch/index.js';
import type { LlmToolSpec } from '../llm/index.js';
import { type SkillCatalog, skillSlug } from '../skills/index.js';
import { describeEffects, type SkillEffects, skillEffects } from './skill-effects.js';

/** The outcome of one tool call, as the model sees it. */
export interface ToolOutcome {
  ok: boolean;
  /** JSON-compatible value sent back as the tool result. */
  result: unknown;
  skill?: string;
  artifacts?: string[];
  trace_ids?: string[];
}

/** Per-turn state the built-in tools share. */
export interface ToolDeps {
  /** The turn's scope: session, model, harness keys (which win over the model's ctx), signal. */
  scope: RunScope;
  catalog: SkillCatalog;
  dispatcher: ArtifactDispatcher;
  /** Tools from outside the catalog (MCP servers), offered beside the skill tools. */
  external?: ExternalTools;
}

/** Tools from outside the skill catalog (MCP servers), offered beside the built-ins. */
export interface ExternalTools {
  /** Load the tool list before the first model call (connecting servers); never throws. */
  prepare(): Promise<void>;
  specs(): LlmToolSpec[];
  /** Run a call to one of its tools (asking approval first); undefined when the name is not one. */
  call(name: string, args: unknown, ctx: { call_id: string | null }): Promise<ToolOutcome> | undefined;
  /**
   * A skill was read: offer the tools it declares (Agent Skills `allowed-tools`, metadata
   * `mcp-servers`) for the rest of the turn. Returns the names now offered because of it.
   */
  reveal?(skill: {
    name: string;
    allowed_tools: string | null;
    metadata: Record<string, string> | null;
  }): Promise<string[]>;
  /**
   * Ask the user before a skill with side effects runs (issue 16: the MCP tools' approval flow,
   * server `skill`, tool = the skill's name). Without it such a skill runs unasked.
   */
  approveSkill?(
    ask: { skill: string; args: Record<string, unknown>; effects: SkillEffects; description: string },
    ctx: { call_id: string | null },
  ): Promise<{ allowed: true } | { allowed: false; error: string }>;
}

const MAX_TEXT = 12_000;

/** A JSON object argument; models often send nested objects as a JSON string, which is accepted too. */
const JsonObjectArg = z.preprocess(
  (v) => {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v);
    } catch {
      return v;
    }
  },
  z.record(z.string(), z.unknown()),
);

const SkillName = z.string().min(1).describe('The skill name, as list_skills or search_skills report it.');
const ArtifactName = z.string().min(1).describe('One artifact of the skill, by name.');

/**
 * The arguments of each built-in tool. The model's arguments are untrusted input: they are
 * parsed with these schemas, and the JSON Schema the model sees is generated from them.
 */
export const BUILTIN_TOOL_ARGS = {
  list_skills: z.strictObject({}),
  search_skills: z.strictObject({
    query: z.string().min(1).describe('What the user wants, in their words.'),
    limit: z.int().min(1).max(20).optional().describe('How many skills to return (default 5).'),
  }),
  read_skill: z.strictObject({ name: SkillName, artifact: ArtifactName.optional() }),
  apply_skill: z.strictObject({
    name: SkillName,
    ctx: JsonObjectArg.optional().describe("Variables for the skill's templates and code."),
    artifact: ArtifactName.optional(),
  }),
} as const;

/** The name of a built-in tool. */
export type BuiltinToolName = keyof typeof BUILTIN_TOOL_ARGS;

/** The parsed arguments of built-in tool `N`. */
export type BuiltinToolArgs<N extends BuiltinToolName> = z.output<(typeof BUILTIN_TOOL_ARGS)[N]>;

const DESCRIPTIONS: Record<BuiltinToolName, string> = {
  list_skills: 'List every available skill with its description.',
  search_skills: 'Find skills relevant to a query (deterministic keyword ranking).',
  read_skill:
    "Read a skill: its instructions and the list of its artifacts. Pass artifact to read one artifact's full content.",
  apply_skill:
    "Run a skill's executable artifacts (prompt templates, sandboxed Python, DSPy programs) with the variables in ctx, and return their outputs. Pass artifact to run only one.",
};

/**
 * The JSON Schema a provider receives for a zod argument schema: the input side (what the model
 * writes), without `$schema`, and free-form objects as plain `additionalProperties: true`, which
 * every provider accepts.
 */
export function toolParameters(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, {
    io: 'input',
    override: ({ jsonSchema }) => {
      const node = jsonSchema as Record<string, unknown>;
      if (node.type === 'object' && node.propertyNames) {
        delete node.propertyNames;
        node.additionalProperties = true;
      }
    },
  }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

/** The built-in skill tools offered every turn. */
export const BUILTIN_TOOLS: LlmToolSpec[] = (Object.keys(BUILTIN_TOOL_ARGS) as BuiltinToolName[]).map(
  (name) => ({ name, description: DESCRIPTIONS[name], parameters: toolParameters(BUILTIN_TOOL_ARGS[name]) }),
);

/**
 * Parse a built-in tool's arguments. A call without arguments counts as `{}`; anything that does
 * not fit comes back as a tool error naming each bad field, so the model can correct its call.
 */
export function parseToolArgs<N extends BuiltinToolName>(
  name: N,
  args: unknown,
): { ok: true; value: BuiltinToolArgs<N> } | { ok: false; outcome: ToolOutcome } {
  const r = BUILTIN_TOOL_ARGS[name].safeParse(args === undefined || args === null || args === '' ? {} : args);
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
        expected: BUILTIN_TOOLS.find((t) => t.name === name)!.parameters,
      },
    },
  };
}

/** A tool a skill bundles (artifact metadata `tool`), offered once the skill has been read. */
interface BundledTool {
  spec: LlmToolSpec;
  skill: string;
  artifact: string;
}

/**
 * The tool table of one turn: the four built-ins plus tools of skills read during the turn.
 * Every call returns data (an unknown skill is an error result the model can react to).
 */
export class TurnTools {
  private readonly bundled = new Map<string, BundledTool>();

  constructor(private readonly deps: ToolDeps) {}

  /** Connect what the turn's external tools need before the first model call. */
  async prepare(): Promise<void> {
    await this.deps.external?.prepare();
  }

  /** The specs to send with the next model call (a skill's own tool wins a name clash). */
  specs(): LlmToolSpec[] {
    const own = [...BUILTIN_TOOLS, ...[...this.bundled.values()].map((b) => b.spec)];
    const taken = new Set(own.map((s) => s.name));
    return [...own, ...(this.deps.external?.specs() ?? []).filter((s) => !taken.has(s.name))];
  }

  /** Run one tool call. Never throws: bad arguments and failures are error results for the model. */
  async call(name: string, args: unknown, ctx: { call_id?: string } = {}): Promise<ToolOutcome> {
    try {
      switch (name) {
        case 'list_skills':
          return this.parsed('list_skills', args, () => this.list());
        case 'search_skills':
          return this.parsed('search_skills', args, (a) => this.search(a.query, a.limit ?? 5));
        case 'read_skill':
          return await this.parsed('read_skill', args, (a) => this.readAndReveal(a.name, a.artifact));
        case 'apply_skill':
          return await this.parsed('apply_skill', args, (a) =>
            this.apply(a.name, a.ctx ?? {}, a.artifact, { call_id: ctx.call_id ?? null, args: a }),
          );
        default: {
          const b = this.bundled.get(name);
          if (b) {
            const vars = asObject(args);
            return await this.apply(b.skill, vars, b.artifact, {
              call_id: ctx.call_id ?? null,
              args: { name: b.skill, ctx: vars, artifact: b.artifact },
            });
          }
          const ext = this.deps.external?.call(name, args, { call_id: ctx.call_id ?? null });
          if (ext) return await ext;
          return {
            ok: false,
            result: {
              error: `unknown tool "${name}"; available: ${this.specs()
                .map((s) => s.name)
                .join(', ')}`,
            },
          };
        }
      }
    } catch (e) {
      // Only a bug lands here; the model still gets a result so the turn can go on.
      const message = e instanceof AppError ? e.message : `tool failed: ${(e as Error).message}`;
      return { ok: false, result: { error: message } };
    }
  }

  private parsed<N extends BuiltinToolName, R extends ToolOutcome | Promise<ToolOutcome>>(
    name: N,
    args: unknown,
    run: (a: BuiltinToolArgs<N>) => R,
  ): R | ToolOutcome {
    const r = parseToolArgs(name, args);
    return r.ok ? run(r.value) : r.outcome;
  }

  private list(): ToolOutcome {
    const skills = this.deps.catalog
      .listAll()
      .slice(0, 300)
      .map((s) => ({
        name: s.name,
        description: s.description,
        when: s.when ?? undefined,
        scope: s.scope,
      }));
    return { ok: true, result: { skills } };
  }

  private search(query: string, limit: number): ToolOutcome {
    const matches = matchSkills(this.deps.catalog, query, { limit });
    const result = matches.map((m) => {
      const s = this.deps.catalog.resolve(m.name, m.scope)!.skill;
      return { name: m.name, description: s.description, when: s.when ?? undefined, score: m.score };
    });
    return { ok: true, result: { matches: result } };
  }

  private unknown(name: string): ToolOutcome {
    const near = matchSkills(this.deps.catalog, name, { limit: 3 }).map((m) => m.name);
    return {
      ok: false,
      result: {
        error: `no skill named "${name}"${near.length ? `; did you mean ${near.map((n) => `"${n}"`).join(' or ')}?` : ''} Use search_skills or list_skills.`,
      },
    };
  }

  /** Read a skill and offer the external tools it declares (only when the whole skill is read). */
  private async readAndReveal(name: string, artifact?: string): Promise<ToolOutcome> {
    const out = this.read(name, artifact);
    const reveal = this.deps.external?.reveal;
    if (!out.ok || artifact || !reveal || !out.skill) return out;
    const summary = this.deps.catalog
      .stores()
      .map((st) => st.repo.getSummaryByName(out.skill!))
      .find(Boolean);
    if (!summary || (!summary.allowed_tools && !summary.metadata)) return out;
    const revealed = await reveal.call(this.deps.external, {
      name: summary.name,
      allowed_tools: summary.allowed_tools,
      metadata: summary.metadata,
    });
    if (revealed.length === 0) return out;
    const result = out.result as { tools?: string[] };
    return { ...out, result: { ...result, tools: [...(result.tools ?? []), ...revealed] } };
  }

  private read(name: string, artifact?: string): ToolOutcome {
    const store = this.deps.catalog.stores().find((s) => s.repo.getSummaryByName(name));
    const summary = store?.repo.getSummaryByName(name);
    if (!store || !summary) return this.unknown(name);
    if (artifact) {
      // Lazy: only the requested artifact's rows are loaded.
      const rows = store.repo.getArtifactsByName(summary.id, artifact);
      if (rows.length === 0) {
        const names = store.repo.listArtifactHeaders(summary.id).map((h) => h.name);
        return {
          ok: false,
          skill: summary.name,
          result: {
            error: `skill "${summary.name}" has no artifact "${artifact}"; it has: ${names.join(', ')}`,
          },
        };
      }
      const a = rows[0]!;
      return {
        ok: true,
        skill: summary.name,
        artifacts: [a.name],
        result: {
          skill: summary.name,
          artifact: a.name,
          kind: a.kind,
          variants: rows.map((r) => r.model_variant ?? 'default'),
          content: clip(a.content),
        },
      };
    }
    const headers = store.repo.listArtifactHeaders(summary.id);
    const texts = store.repo.getArtifacts(summary.id, ['description', 'approach']);
    for (const h of headers) {
      const tool = h.metadata?.tool as
        | { name?: string; description?: string; parameters?: Record<string, unknown> }
        | undefined;
      if (tool && EXECUTABLE_KINDS.includes(h.kind)) {
        const toolName =
          `${skillSlug(summary.name).replace(/-/g, '_')}__${skillSlug(tool.name ?? h.name).replace(/-/g, '_')}`.slice(
            0,
            64,
          );
        this.bundled.set(toolName, {
          skill: summary.name,
          artifact: h.name,
          spec: {
            name: toolName,
            description: tool.description ?? `${summary.name}: run ${h.name}`,
            parameters: tool.parameters ?? { type: 'object', additionalProperties: true },
          },
        });
      }
    }
    return {
      ok: true,
      skill: summary.name,
      artifacts: texts.map((t) => t.name),
      result: {
        name: summary.name,
        description: summary.description,
        when: summary.when ?? undefined,
        instructions: clip(texts.map((t) => t.content).join('\n\n')),
        artifacts: headers.map((h) => ({
          name: h.name,
          kind: h.kind,
          model_variant: h.model_variant ?? undefined,
          executable: EXECUTABLE_KINDS.includes(h.kind),
        })),
        tools: [...this.bundled.values()].filter((b) => b.skill === summary.name).map((b) => b.spec.name),
      },
    };
  }

  private async apply(
    name: string,
    ctx: Record<string, unknown>,
    artifact: string | undefined,
    call: { call_id: string | null; args: Record<string, unknown> },
  ): Promise<ToolOutcome> {
    const found = this.deps.catalog.resolve(name);
    if (!found) return this.unknown(name);
    const { skill, scope } = found;
    if (artifact && !skill.artifacts.some((a) => a.name === artifact)) {
      return {
        ok: false,
        skill: skill.name,
        result: {
          error: `skill "${skill.name}" has no artifact "${artifact}"; it has: ${[...new Set(skill.artifacts.map((a) => a.name))].join(', ')}`,
        },
      };
    }
    const executable = skill.artifacts.filter((a) => EXECUTABLE_KINDS.includes(a.kind));
    if (!artifact && executable.length === 0) {
      return {
        ok: true,
        skill: skill.name,
        result: {
          skill: skill.name,
          note: 'this skill has no executable artifacts; follow its instructions (read_skill) instead',
        },
      };
    }
    // A skill that may write or reach the network runs only once the user approves it.
    const effects = skillEffects(skill, artifact);
    const approve = this.deps.external?.approveSkill;
    if (effects.effects.length > 0 && approve) {
      const verdict = await approve.call(
        this.deps.external,
        { skill: skill.name, args: call.args, effects, description: describeEffects(effects) },
        { call_id: call.call_id },
      );
      if (!verdict.allowed)
        return { ok: false, skill: skill.name, result: { error: verdict.error, denied: true } };
    }
    const results = await this.deps.dispatcher.runSkill(this.deps.scope, {
      skill: { id: skill.id, name: skill.name, scope, version: skill.version },
      // Only executable artifacts run here: instructions come through read_skill.
      artifacts: artifact
        ? skill.artifacts
        : skill.artifacts.filter((a) => EXECUTABLE_KINDS.includes(a.kind)),
      variables: ctx,
      artifact,
    });
    return {
      ok: results.every((r) => r.ok),
      skill: skill.name,
      artifacts: results.map((r) => r.artifact.name),
      trace_ids: results.map((r) => r.trace_id),
      result: { skill: skill.name, outputs: results.map(toolView) },
    };
  }
}

function toolView(r: DispatchResult) {
  return {
    artifact: r.artifact.name,
    kind: r.artifact.kind,
    ok: r.ok,
    ...(r.output?.text != null ? { text: clip(r.output.text) } : {}),
    ...(r.output?.data !== undefined ? { data: r.output.data } : {}),
    ...(r.output?.fallback ? { fallback: r.output.fallback } : {}),
    ...(r.error ? { error: r.error.message } : {}),
    ...(r.assertions.some((a) => !a.passed && !a.skipped)
      ? {
          failed_assertions: r.assertions
            .filter((a) => !a.passed && !a.skipped)
            .map((a) => `${a.description}: ${a.explanation ?? ''}`),
        }
      : {}),
  };
}

function clip(text: string): string {
  return text.length > MAX_TEXT
    ? `${text.slice(0, MAX_TEXT)}\n[… ${text.length - MAX_TEXT} more characters]`
    : text;
}

function asObject(v: unknown): Record<string, unknown> {
  if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  if (typeof v === 'string') {
    try {
      const parsed = JSON.parse(v);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed;
    } catch {
      // not JSON: ignore
    }
  }
  return {};
}
