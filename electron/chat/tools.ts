import { matchSkills } from '../activation/phase1.js';
import { AppError } from '../contract/errors.js';
import { EXECUTABLE_KINDS } from '../dispatch/dispatcher.js';
import type { ArtifactDispatcher, DispatchResult } from '../dispatch/index.js';
import type { Llm, LlmToolSpec } from '../llm/index.js';
import { skillSlug } from '../skills/agent-skill.js';
import type { SkillCatalog } from '../skills/catalog.js';

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
  catalog: SkillCatalog;
  dispatcher: ArtifactDispatcher;
  llm: Llm | null;
  session_id: string;
  /** Harness-owned keys every skill receives; they win over the model's ctx. */
  harness: Record<string, unknown>;
  signal?: AbortSignal;
}

const MAX_TEXT = 12_000;

const obj = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

/** The built-in skill tools offered every turn. */
export const BUILTIN_TOOLS: LlmToolSpec[] = [
  {
    name: 'list_skills',
    description: 'List every available skill with its description.',
    parameters: obj({}),
  },
  {
    name: 'search_skills',
    description: 'Find skills relevant to a query (deterministic keyword ranking).',
    parameters: obj({ query: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 20 } }, [
      'query',
    ]),
  },
  {
    name: 'read_skill',
    description:
      "Read a skill: its instructions and the list of its artifacts. Pass artifact to read one artifact's full content.",
    parameters: obj({ name: { type: 'string' }, artifact: { type: 'string' } }, ['name']),
  },
  {
    name: 'apply_skill',
    description:
      "Run a skill's executable artifacts (prompt templates, sandboxed Python, DSPy programs) with the variables in ctx, and return their outputs. Pass artifact to run only one.",
    parameters: obj(
      {
        name: { type: 'string' },
        ctx: { type: 'object', additionalProperties: true },
        artifact: { type: 'string' },
      },
      ['name'],
    ),
  },
];

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

  /** The specs to send with the next model call. */
  specs(): LlmToolSpec[] {
    return [...BUILTIN_TOOLS, ...[...this.bundled.values()].map((b) => b.spec)];
  }

  /** Run one tool call. Never throws. */
  async call(name: string, args: unknown): Promise<ToolOutcome> {
    const a = (args && typeof args === 'object' && !Array.isArray(args) ? args : {}) as Record<
      string,
      unknown
    >;
    try {
      switch (name) {
        case 'list_skills':
          return this.list();
        case 'search_skills':
          return this.search(String(a.query ?? ''), Number(a.limit ?? 5));
        case 'read_skill':
          return this.read(String(a.name ?? ''), typeof a.artifact === 'string' ? a.artifact : undefined);
        case 'apply_skill':
          return await this.apply(
            String(a.name ?? ''),
            asObject(a.ctx),
            typeof a.artifact === 'string' ? a.artifact : undefined,
          );
        default: {
          const b = this.bundled.get(name);
          if (b) return await this.apply(b.skill, a, b.artifact);
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
      const message = e instanceof AppError ? e.message : `tool failed: ${(e as Error).message}`;
      return { ok: false, result: { error: message } };
    }
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
    const matches = matchSkills(this.deps.catalog, query, { limit: Math.min(Math.max(1, limit || 5), 20) });
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

  private async apply(name: string, ctx: Record<string, unknown>, artifact?: string): Promise<ToolOutcome> {
    const found = this.deps.catalog.resolve(name);
    if (!found) return this.unknown(name);
    const { skill, scope } = found;
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
    const results = await this.deps.dispatcher.runSkill({
      session_id: this.deps.session_id,
      skill: { id: skill.id, name: skill.name, scope, version: skill.version },
      // Only executable artifacts run here: instructions come through read_skill.
      artifacts: artifact
        ? skill.artifacts
        : skill.artifacts.filter((a) => EXECUTABLE_KINDS.includes(a.kind)),
      variables: ctx,
      harness: this.deps.harness,
      llm: this.deps.llm,
      signal: this.deps.signal,
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
