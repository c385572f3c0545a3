import { matchSkills, type SkillMatch } from '../activation/phase1.js';
import type { ToolCallFinishedEvent, ToolCallStartedEvent } from '../contract/chat.js';
import { AppError, type AppErrorData } from '../contract/errors.js';
import type { ArtifactDispatcher } from '../dispatch/index.js';
import type { Llm, LlmMessage, LlmToolCall } from '../llm/index.js';
import type { SkillCatalog } from '../skills/catalog.js';
import type { ChatStore, RecallOptions, ToolCallRecord } from './chat-store.js';
import { buildSystemPrompt } from './prompt.js';
import { type ToolOutcome, TurnTools } from './tools.js';

/** Streaming events of a turn, in order: started, deltas and tool calls, then finished (or error). */
export type ChatEvent =
  | {
      type: 'turn-started';
      session_id: string;
      user_message_id: string;
      new_session: boolean;
      matches: SkillMatch[];
      memory: number;
    }
  | { type: 'text-delta'; text: string }
  | ({ type: 'tool-call-started' } & Omit<ToolCallStartedEvent, 'session_id'>)
  | ({ type: 'tool-call-finished' } & Omit<ToolCallFinishedEvent, 'session_id'>)
  | {
      type: 'turn-finished';
      session_id: string;
      message_id: string;
      text: string;
      status: 'complete' | 'partial' | 'error';
      input_tokens: number;
      output_tokens: number;
      estimated_cost: number | null;
      trace_ids: string[];
      skills_used: string[];
      error: AppErrorData | null;
    };

/** Knobs of a turn; the defaults follow the design. */
export interface TurnSettings {
  /** Skills in the index (phase-1 top K). */
  index_k?: number;
  max_tool_rounds?: number;
  memory?: RecallOptions;
  /** Earlier messages of the session sent as conversation. */
  history?: number;
  base_prompt?: string;
}

/** One turn's input. */
export interface TurnInput {
  message: string;
  session_id?: string;
  attachments?: Array<{ name: string; text?: string; media_type?: string }>;
  signal?: AbortSignal;
  settings?: TurnSettings;
}

/** What a turn needs from the app. */
export interface ChatDeps {
  catalog: SkillCatalog;
  chats: ChatStore;
  dispatcher: ArtifactDispatcher;
  llm: Llm | null;
  /** The workspace folder, given to skills as a harness key. */
  workspace?: string;
  /** Who reads the no-model reply: the app names its Settings, the CLI its flags (default). */
  face?: 'app' | 'cli';
  /** Called just before the first provider request (benchmarks measure up to here). */
  onBeforeModel?: () => void;
}

/**
 * Text of the reply when no model is configured: still useful, and says what to configure, in
 * the words of the face that shows it (the app has no command-line flags).
 */
export function noModelReply(matches: SkillMatch[], face: 'app' | 'cli' = 'cli'): string {
  const skills = matches.length
    ? ` Skills that match your message: ${matches.map((m) => m.name).join(', ')}.`
    : '';
  if (face === 'app')
    return `No model is configured, so I can't answer yet.${skills} To chat, choose a provider and model in Settings → Providers.`;
  return `No model is configured, so I can't answer yet.${skills} To chat, choose a provider and model: in the app, Settings → Providers; on the command line, --provider and --model (with the provider's API key in the environment, e.g. OPENAI_API_KEY).`;
}

/**
 * One memory-grounded chat turn, in the order that keeps a message out of its own memory:
 * (1) system prompt from phase-1 matches, always-on skills and memory recalled from earlier turns,
 * (2) persist the user turn, (3) bind per-turn context (harness keys), (4) stream the reply,
 * running tool calls up to `max_tool_rounds`, (5) persist the reply with its tool calls and traces.
 */
export async function runTurn(deps: ChatDeps, input: TurnInput, emit: (e: ChatEvent) => void = () => {}) {
  const s = input.settings ?? {};
  const maxRounds = s.max_tool_rounds ?? 10;
  let sessionId = input.session_id;
  const newSession = !sessionId || !deps.chats.getSession(sessionId);
  if (sessionId && newSession) {
    throw new AppError('NOT_FOUND', `no chat session ${sessionId}; list them with: skilldesk sessions`, {
      session_id: sessionId,
    });
  }

  // (1) Build the system prompt before the new message is stored.
  const matches = matchSkills(deps.catalog, input.message, { limit: s.index_k ?? 5 });
  const alwaysOn = deps.catalog.stores().flatMap((store) =>
    store.repo
      .listAlwaysOn()
      .filter((e) => store.scope === 'workspace' || !deps.catalog.isOverridden(e.name))
      .map((e) => ({
        name: e.name,
        instructions: store.repo
          .getArtifacts(e.id, ['approach', 'description'])
          .map((t) => t.content)
          .join('\n\n'),
      })),
  );
  const memory = deps.chats.recall(input.message, {
    skip_recent: s.history ?? 20,
    ...s.memory,
    session_id: sessionId,
  });
  const system = buildSystemPrompt({
    base: s.base_prompt,
    matches: matches.flatMap((m) => {
      const entry = deps.catalog.store(m.scope)?.repo.getSummaryByName(m.name);
      return entry ? [{ match: m, entry }] : [];
    }),
    alwaysOn,
    memory,
  });

  // (2) Persist the user turn.
  if (!sessionId) sessionId = deps.chats.createSession().id;
  const history = deps.chats.recentMessages(sessionId, s.history ?? 20);
  const attachmentText = (input.attachments ?? [])
    .filter((a) => a.text)
    .map((a) => `\n\n<attachment name="${a.name}">\n${a.text}\n</attachment>`)
    .join('');
  const userMsg = deps.chats.addMessage({
    session_id: sessionId,
    role: 'user',
    content: input.message + attachmentText,
    status: 'complete',
    tool_calls: null,
    trace_ids: null,
    skills: matches,
    model_id: null,
    input_tokens: null,
    output_tokens: null,
    estimated_cost: null,
    error: null,
  });
  emit({
    type: 'turn-started',
    session_id: sessionId,
    user_message_id: userMsg.id,
    new_session: newSession,
    matches,
    memory: memory.length,
  });

  // (3) Per-turn context that skills receive; these keys win over anything the model passes.
  const harness: Record<string, unknown> = {
    session_id: sessionId,
    attachments: (input.attachments ?? []).map((a) => ({
      name: a.name,
      media_type: a.media_type ?? 'text/plain',
      text: a.text ?? '',
    })),
    ...(deps.workspace ? { workspace: deps.workspace } : {}),
  };
  const tools = new TurnTools({
    catalog: deps.catalog,
    dispatcher: deps.dispatcher,
    llm: deps.llm,
    session_id: sessionId,
    harness,
    signal: input.signal,
  });

  // (4) Stream the reply with the tool loop.
  let text = '';
  let inTok = 0;
  let outTok = 0;
  let cost: number | null = null;
  let error: AppErrorData | null = null;
  const calls: ToolCallRecord[] = [];
  const traceIds: string[] = [];

  if (!deps.llm) {
    text = noModelReply(matches, deps.face);
    emit({ type: 'text-delta', text });
  } else {
    const messages: LlmMessage[] = [
      ...history.map((m): LlmMessage => ({ role: m.role, content: m.content })),
      { role: 'user', content: userMsg.content },
    ];
    deps.onBeforeModel?.();
    for (let round = 0; ; round++) {
      const offerTools = round < maxRounds;
      let roundText = '';
      const pending: LlmToolCall[] = [];
      for await (const ev of deps.llm.stream({
        system,
        messages,
        tools: offerTools ? tools.specs() : undefined,
        signal: input.signal,
      })) {
        if (ev.type === 'text-delta') {
          roundText += ev.text;
          emit({ type: 'text-delta', text: ev.text });
        } else if (ev.type === 'tool-call') pending.push(ev);
        else if (ev.type === 'finish') {
          inTok += ev.usage.input_tokens;
          outTok += ev.usage.output_tokens;
          if (ev.estimated_cost != null) cost = (cost ?? 0) + ev.estimated_cost;
        } else if (ev.type === 'error') error = ev.error.toData();
      }
      text += roundText;
      if (error || pending.length === 0) break;
      messages.push({
        role: 'assistant',
        content: roundText,
        tool_calls: pending.map((c) => ({ id: c.id, name: c.name, args: c.args })),
      });
      for (const c of pending) {
        emit({ type: 'tool-call-started', id: c.id, name: c.name, args: c.args });
        const out: ToolOutcome = c.invalid
          ? { ok: false, result: { error: c.error ?? 'invalid tool call' } }
          : await tools.call(c.name, c.args);
        const activity = { skill: out.skill, artifacts: out.artifacts, trace_ids: out.trace_ids };
        calls.push({ id: c.id, name: c.name, args: c.args, ok: out.ok, result: out.result, ...activity });
        if (out.trace_ids) traceIds.push(...out.trace_ids);
        emit({
          type: 'tool-call-finished',
          id: c.id,
          name: c.name,
          ok: out.ok,
          ...activity,
          result: out.result,
        });
        messages.push({
          role: 'tool',
          tool_call_id: c.id,
          name: c.name,
          content: out.result,
          is_error: !out.ok,
        });
      }
      if (input.signal?.aborted) {
        error = { code: 'CANCELLED', message: 'the turn was cancelled' };
        break;
      }
    }
  }

  // (5) Persist the reply (partial when cancelled, with the error when it failed).
  const status: 'complete' | 'partial' | 'error' = !error
    ? 'complete'
    : error.code === 'CANCELLED'
      ? 'partial'
      : 'error';
  const reply = deps.chats.addMessage({
    session_id: sessionId,
    role: 'assistant',
    content: text,
    status,
    tool_calls: calls.length ? calls : null,
    trace_ids: traceIds,
    skills: null,
    model_id: deps.llm ? `${deps.llm.provider}:${deps.llm.model}` : null,
    input_tokens: deps.llm ? inTok : null,
    output_tokens: deps.llm ? outTok : null,
    estimated_cost: cost,
    error,
  });
  const finished: ChatEvent = {
    type: 'turn-finished',
    session_id: sessionId,
    message_id: reply.id,
    text,
    status,
    input_tokens: inTok,
    output_tokens: outTok,
    estimated_cost: cost,
    trace_ids: traceIds,
    skills_used: [...new Set(calls.filter((c) => c.name === 'apply_skill' && c.skill).map((c) => c.skill!))],
    error,
  };
  emit(finished);
  return finished;
}
