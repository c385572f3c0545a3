import type { BuiltinToolArgs, BuiltinToolName } from '../contract/builtin-tools.js';
import type { ArtifactDispatcher, RunScope, ScriptRunners } from '../dispatch/index.js';
import type { LlmToolSpec } from '../llm/index.js';
import type { SkillCatalog } from '../skills/index.js';

/** The outcome of one tool call, as the model sees it. */
export interface ToolOutcome {
  ok: boolean;
  /** JSON-compatible value sent back as the tool result. */
  result: unknown;
  skill?: string;
  artifacts?: string[];
  trace_ids?: string[];
}

/** The effects of a skill's run, as the approval card shows them. */
export interface SkillEffectsView {
  effects: Array<'network' | 'write'>;
  reasons: string[];
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
   * Ask the user before a skill with side effects runs (the MCP tools' approval flow, server
   * `skill`, tool = the skill's name). Without it such a skill runs unasked.
   */
  approveSkill?(
    ask: { skill: string; args: Record<string, unknown>; effects: SkillEffectsView; description: string },
    ctx: { call_id: string | null },
  ): Promise<{ allowed: true } | { allowed: false; error: string }>;
  /**
   * Ask the user before one of SkillDesk's own tools with effects runs (`run_python`): server
   * `skilldesk`, tool = its name; once / this chat / always / deny apply. Without it the tool runs
   * unasked (evals, where nobody can be asked).
   */
  approveTool?(
    ask: { tool: string; title: string; description: string; args: Record<string, unknown> },
    ctx: { call_id: string | null },
  ): Promise<{ allowed: true } | { allowed: false; error: string }>;
  /** Show what a running call is doing in the chat's activity (an LLM skill's inner steps). */
  progress?(call_id: string, step: number, message: string): void;
}

/** A tool a skill bundles (artifact metadata `tool`), offered once the skill has been read. */
export interface BundledTool {
  spec: LlmToolSpec;
  skill: string;
  artifact: string;
}

/** What a chat turn adds to a call its model made: the turn's own tool table and approvals. */
export interface TurnHooks {
  /** Offer a read skill's own tools for the rest of the turn. */
  offer(tools: BundledTool[]): void;
  external?: ExternalTools;
}

/** Everything one tool call runs with. */
export interface ToolContext {
  /** The call's scope (session, model, harness keys, signal), passed on unchanged. */
  scope: RunScope;
  catalog: SkillCatalog;
  dispatcher: ArtifactDispatcher;
  /** The script runners (`run_script`, `run_python`), beside the dispatcher that runs artifacts. */
  runners: ScriptRunners;
  /** The model's id for this call, when a model made it. */
  call_id: string | null;
  /** Present when a chat's model made the call (absent over MCP). */
  turn?: TurnHooks;
}

/** One built-in tool's implementation; its name, schema and activity text are in the contract. */
export interface ToolModule<N extends BuiltinToolName> {
  readonly name: N;
  /** The description for this call's scope, when it depends on it (default: the contract's). */
  descriptionFor?(ctx: Pick<ToolContext, 'scope' | 'runners'>): string;
  run(args: BuiltinToolArgs<N>, ctx: ToolContext): ToolOutcome | Promise<ToolOutcome>;
}

const MAX_TEXT = 12_000;

/** Long text as a tool result carries it: at most 12,000 characters, saying how many were cut. */
export function clip(text: string): string {
  return text.length > MAX_TEXT
    ? `${text.slice(0, MAX_TEXT)}\n[… ${text.length - MAX_TEXT} more characters]`
    : text;
}
