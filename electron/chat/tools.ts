import { AppError } from '../contract/errors.js';
import { isBuiltinTool } from '../contract/index.js';
import type { ArtifactDispatcher, RunScope, ScriptRunners } from '../dispatch/index.js';
import type { LlmToolSpec } from '../llm/index.js';
import type { SkillCatalog } from '../skills/index.js';
import {
  type BundledTool,
  builtinToolSpecs,
  callBuiltinTool,
  type ExternalTools,
  runSkillTool,
  type ToolContext,
  type ToolOutcome,
} from '../tools/index.js';

export type { ExternalTools, ToolOutcome } from '../tools/index.js';

/** Per-turn state the tools share. */
export interface ToolDeps {
  /** The turn's scope: session, model, harness keys (which win over the model's ctx), signal. */
  scope: RunScope;
  catalog: SkillCatalog;
  dispatcher: ArtifactDispatcher;
  /** The script runners (a skill's bundled scripts, the model's own Python). */
  runners: ScriptRunners;
  /** Tools from outside the catalog (MCP servers), offered beside the skill tools. */
  external?: ExternalTools;
}

/**
 * One kind of tool a turn offers: its specs, and the run of a call to one of its tools (null when
 * the name is not one of its). Every source gets the same call context: the turn's run scope
 * (session, model, harness keys and the cancellation signal), the catalog, the dispatcher and the
 * runners.
 */
interface ToolSource {
  specs(): LlmToolSpec[];
  call(name: string, args: unknown, ctx: ToolContext): Promise<ToolOutcome> | null;
}

/**
 * The tool table of one turn: the built-in tools (the registry in electron/tools, the same modules
 * the MCP server serves), the tools of skills read during the turn, and MCP servers' tools. One
 * door: a call goes to the first source that owns its name, in that order (so a skill's own tool
 * wins a name clash with a server's). Every call returns data (an unknown tool is an error result
 * the model can react to).
 */
export class TurnTools {
  private readonly bundled = new Map<string, BundledTool>();
  private readonly sources: ToolSource[];

  constructor(private readonly deps: ToolDeps) {
    const bundled = this.bundled;
    const external = deps.external;
    this.sources = [
      {
        specs: () => builtinToolSpecs(deps),
        call: (name, args, ctx) => (isBuiltinTool(name) ? callBuiltinTool(name, args, ctx) : null),
      },
      {
        specs: () => [...bundled.values()].map((b) => b.spec),
        call: (name, args, ctx) => {
          const b = bundled.get(name);
          if (!b) return null;
          const vars = asObject(args);
          return runSkillTool(ctx, b.skill, vars, b.artifact, {
            name: b.skill,
            ctx: vars,
            artifact: b.artifact,
          });
        },
      },
      {
        specs: () => external?.specs() ?? [],
        call: (name, args, ctx) => external?.call(name, args, { call_id: ctx.call_id }) ?? null,
      },
    ];
  }

  /** Connect what the turn's external tools need before the first model call. */
  async prepare(): Promise<void> {
    await this.deps.external?.prepare();
  }

  /** The specs to send with the next model call: each name once, from the first source that has it. */
  specs(): LlmToolSpec[] {
    const taken = new Set<string>();
    const out: LlmToolSpec[] = [];
    for (const source of this.sources)
      for (const s of source.specs()) {
        if (taken.has(s.name)) continue;
        taken.add(s.name);
        out.push(s);
      }
    return out;
  }

  /** Run one tool call. Never throws: bad arguments and failures are error results for the model. */
  async call(name: string, args: unknown, ctx: { call_id?: string } = {}): Promise<ToolOutcome> {
    const tool: ToolContext = {
      scope: this.deps.scope,
      catalog: this.deps.catalog,
      dispatcher: this.deps.dispatcher,
      runners: this.deps.runners,
      call_id: ctx.call_id ?? null,
      turn: {
        offer: (tools) => {
          for (const b of tools) this.bundled.set(b.spec.name, b);
        },
        external: this.deps.external,
      },
    };
    try {
      for (const source of this.sources) {
        const run = source.call(name, args, tool);
        if (run) return await run;
      }
      return {
        ok: false,
        result: {
          error: `unknown tool "${name}"; available: ${this.specs()
            .map((s) => s.name)
            .join(', ')}`,
        },
      };
    } catch (e) {
      // Only a bug lands here; the model still gets a result so the turn can go on.
      const message = e instanceof AppError ? e.message : `tool failed: ${(e as Error).message}`;
      return { ok: false, result: { error: message } };
    }
  }
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
