/**
 * An output eval's turn: the eval's prompt answered by the model through the chat's own turn
 * (system prompt with the skill index and always-on skills, the built-in tools, tool rounds), with
 * the skill given up front or hidden from the model altogether (the baseline). Nothing is stored:
 * an eval is no conversation, and no memory is recalled, so one eval cannot leak into the next.
 */

import { denseQuery, matchSkills, type SkillMatch } from '../activation/index.js';
import { toolFacts, toolOutputs } from '../contract/builtin-tools.js';
import { createRunScope, type EvalTurnRunner, type ScriptRunners } from '../dispatch/index.js';
import type { SkillCatalog } from '../skills/index.js';
import { skillNameKey } from '../store/index.js';
import type { ChatMessage } from './chat-store.js';
import { skillAttachments, streamWithTools, type TurnInput, type UserTurn } from './engine.js';
import { buildSystemPrompt } from './prompt.js';
import { type ToolDeps, type ToolOutcome, TurnTools } from './tools.js';

/** The session id an eval's traces carry. */
const EVAL_SESSION = 'evals';
/** At most this many bytes of written files per turn are read back (the rest are named only). */
const MAX_FILE_BYTES = 10 * 1024 * 1024;

/**
 * The files the turn's scripts wrote, read back from the script runner so they can be graded and
 * kept with the run; past the byte budget, or once expired, a file is left out.
 */
function writtenFiles(runners: ScriptRunners, calls: Array<{ name: string; ok: boolean; result: unknown }>) {
  const files: Array<{ path: string; media_type: string; size: number; data_base64: string }> = [];
  let budget = MAX_FILE_BYTES;
  for (const c of calls) {
    for (const f of toolOutputs(c.name, c.result)) {
      if (f.size > budget) continue;
      try {
        const out = runners.scripts?.readOutput(f.run_id, f.path);
        if (!out) continue;
        budget -= out.bytes.length;
        files.push({
          path: f.path,
          media_type: out.media_type,
          size: out.bytes.length,
          data_base64: out.bytes.toString('base64'),
        });
      } catch {
        // Expired or gone: the tool result still names it.
      }
    }
  }
  return files;
}

/**
 * The turn's tools with one skill taken out: it cannot be read, applied or run, and list or search
 * results leave it out, so the baseline's model answers as if the skill were not installed.
 */
class ToolsWithout extends TurnTools {
  constructor(
    deps: ToolDeps,
    private readonly hidden: string,
  ) {
    super(deps);
  }

  private names(args: unknown): unknown[] {
    let v = args;
    if (typeof v === 'string') {
      try {
        v = JSON.parse(v);
      } catch {
        return [];
      }
    }
    if (!v || typeof v !== 'object') return [];
    const o = v as Record<string, unknown>;
    return [o.name, o.skill];
  }

  override async call(name: string, args: unknown, ctx: { call_id?: string } = {}): Promise<ToolOutcome> {
    const named = this.names(args).find((n) => typeof n === 'string' && skillNameKey(n) === this.hidden);
    if (typeof named === 'string') {
      return { ok: false, result: { error: `no skill named "${named}". Use search_skills or list_skills.` } };
    }
    const out = await super.call(name, args, ctx);
    const result = out.result as { skills?: Array<{ name: string }>; matches?: Array<{ name: string }> };
    if (out.ok && result && toolFacts(name)?.read_only) {
      const keep = (list?: Array<{ name: string }>) =>
        list?.filter((s) => skillNameKey(s.name) !== this.hidden);
      return {
        ...out,
        result: {
          ...result,
          ...(result.skills ? { skills: keep(result.skills) } : {}),
          ...(result.matches ? { matches: keep(result.matches) } : {}),
        },
      };
    }
    return out;
  }
}

/** The system prompt of the eval's turn: the chat's, with the skill pinned in the index or left out. */
function evalSystemPrompt(
  catalog: SkillCatalog,
  phase1: SkillMatch[],
  skill: { name: string; scope: 'account' | 'workspace' },
  withSkill: boolean,
): { system: string; matches: SkillMatch[] } {
  const key = skillNameKey(skill.name);
  const others = phase1.filter((m) => skillNameKey(m.name) !== key);
  const own = phase1.find((m) => skillNameKey(m.name) === key) ?? {
    name: skill.name,
    scope: skill.scope,
    score: 0,
    matched_on: [],
  };
  const matches = withSkill ? [own, ...others].slice(0, Math.max(phase1.length, 1)) : others;
  const alwaysOn = catalog.stores().flatMap((store) =>
    store.repo
      .listAlwaysOn()
      .filter((e) => store.scope === 'workspace' || !catalog.isOverridden(e.name))
      .filter((e) => withSkill || skillNameKey(e.name) !== key)
      .map((e) => ({
        name: e.name,
        instructions: store.repo
          .getArtifacts(e.id, ['approach', 'description'])
          .map((t) => t.content)
          .join('\n\n'),
      })),
  );
  const system = buildSystemPrompt({
    matches: matches.flatMap((m) => {
      const entry = catalog.store(m.scope)?.repo.getSummaryByName(m.name);
      return entry ? [{ match: m, entry }] : [];
    }),
    alwaysOn,
    memory: [],
  });
  return { system, matches };
}

/**
 * Answer an eval's prompt with the model. With the skill, the turn starts as a chat turn does once
 * the model has picked the skill: its `read_skill` call and result (instructions, files, the tools
 * it bundles) precede the model's first request. Without it, the skill is absent from the index
 * and from every tool.
 */
export const runEvalTurn: EvalTurnRunner = async (deps, input) => {
  const dense = await denseQuery(input.prompt).catch(() => null);
  const phase1 = matchSkills(deps.catalog, input.prompt, { limit: 5, dense });
  const prompt = evalSystemPrompt(deps.catalog, phase1, input.skill, input.with_skill);
  const now = new Date().toISOString();
  const attachments = input.attachments.map((a) => ({
    name: a.name,
    media_type: a.media_type ?? 'text/plain',
    size: a.text?.length ?? a.data?.length ?? 0,
    text: a.text ?? '',
    ...(a.data !== undefined ? { data: a.data } : {}),
  }));
  const message: ChatMessage = {
    id: 'eval-prompt',
    seq: 0,
    session_id: EVAL_SESSION,
    role: 'user',
    content: input.prompt,
    status: 'complete',
    tool_calls: null,
    trace_ids: null,
    skills: prompt.matches,
    model_id: null,
    input_tokens: null,
    output_tokens: null,
    estimated_cost: null,
    error: null,
    created_at: now,
    parent_id: null,
    attachments,
  };
  const user: UserTurn = {
    session_id: EVAL_SESSION,
    new_session: true,
    stored_now: false,
    message,
    history: [],
  };
  const toolDeps: ToolDeps = {
    scope: createRunScope({
      session_id: EVAL_SESSION,
      workspace: deps.workspace,
      llm: input.llm,
      harness: { attachments: skillAttachments(input.attachments) },
      signal: input.signal,
    }),
    catalog: deps.catalog,
    dispatcher: deps.dispatcher,
    runners: deps.runners,
  };
  const tools = input.with_skill
    ? new TurnTools(toolDeps)
    : new ToolsWithout(toolDeps, skillNameKey(input.skill.name));
  const turnInput: TurnInput = {
    message: input.prompt,
    attachments: input.attachments,
    signal: input.signal,
    ...(input.with_skill ? { skill: { name: input.skill.name, read: true } } : {}),
  };
  const reply = await streamWithTools(
    { llm: input.llm, face: 'cli' },
    {
      prompt: {
        system: prompt.system,
        matches: prompt.matches,
        memory: 0,
        listing: { whole: false, unlisted: 0 },
      },
      user,
      tools,
      input: turnInput,
    },
    () => {},
  );
  return {
    files: writtenFiles(deps.runners, reply.calls),
    text: reply.text,
    input_tokens: reply.input_tokens,
    output_tokens: reply.output_tokens,
    estimated_cost: reply.estimated_cost,
    error: reply.error,
    calls: reply.calls.map((c) => ({ id: c.id, name: c.name, args: c.args, ok: c.ok, result: c.result })),
  };
};
