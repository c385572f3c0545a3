import { statSync } from 'node:fs';
import {
  denseQuery,
  type MatchOptions,
  matchSkills,
  PROMPT_MIN_SCORE,
  type SkillMatch,
  skillIndex,
} from '../activation/index.js';
import { skillUseTool, toolFacts } from '../contract/builtin-tools.js';
import type {
  ChatModelChoice,
  DeltaReceivedEvent,
  ToolCallFinishedEvent,
  ToolCallStartedEvent,
  TurnFinishedEvent,
  TurnStartedEvent,
} from '../contract/chat.js';
import { base64Bytes } from '../contract/chat.js';
import type { GrantedFolder, PythonRuntimeName } from '../contract/chat-files.js';
import { AppError, type AppErrorData, isAppError } from '../contract/errors.js';
import { type ArtifactDispatcher, createRunScope, type ScriptRunners } from '../dispatch/index.js';
import {
  imageModelsOf,
  type Llm,
  type LlmMessage,
  type LlmToolCall,
  modelReadsImages,
} from '../llm/index.js';
import { type ChatFolder, safeChatFileName, setChatRuntime } from '../scripts/index.js';
import type { SkillCatalog } from '../skills/index.js';
import { namedStorageError, readSwitches, type SkillSummary } from '../store/index.js';
import type { ChatMessage, ChatStore, RecalledMemory, RecallOptions, ToolCallRecord } from './chat-store.js';
import { keepPrepared, promptStamp, takePrepared } from './prepared-turns.js';
import { buildSystemPrompt, indexLine } from './prompt.js';
import { type ExternalTools, type ToolOutcome, TurnTools } from './tools.js';

/**
 * Streaming events of a turn, in order: started, deltas and tool calls, then finished (or error).
 * They are the contract's `chat/*` events less what only the host adds (the clock, the model id,
 * the client's turn id); `chat/handlers.ts` maps one to the other.
 */
export type ChatEvent =
  | ({ type: 'turn-started' } & Omit<TurnStartedEvent, 'client_turn_id' | 'created_at' | 'matches'> & {
        matches: SkillMatch[];
      })
  | ({ type: 'text-delta' } & Omit<DeltaReceivedEvent, 'session_id'>)
  | ({ type: 'tool-call-started' } & Omit<ToolCallStartedEvent, 'session_id'>)
  | ({ type: 'tool-call-finished' } & Omit<ToolCallFinishedEvent, 'session_id'>)
  | ({ type: 'turn-finished' } & Omit<TurnFinishedEvent, 'model_id' | 'created_at'>);

/** Knobs of a turn; the defaults follow the design. */
export interface TurnSettings {
  /** Skills in the index (phase-1 top K). */
  index_k?: number;
  max_tool_rounds?: number;
  memory?: RecallOptions;
  /** Earlier messages of the session sent as conversation. */
  history?: number;
  base_prompt?: string;
  /**
   * The listing budget in tokens: when every enabled skill's index line fits it, they are all
   * listed and the model chooses; above it phase 1 chooses (default ≈ 1% of a 128k context).
   */
  listing_budget_tokens?: number;
}

/** The listing budget when none is set: about 1% of a 128k-token context. */
export const DEFAULT_LISTING_BUDGET_TOKENS = 1280;
/** More enabled skills than this are never listed whole, whatever their lines cost. */
const MAX_LISTED_WHOLE = 200;

/** One turn's input. */
export interface TurnInput {
  message: string;
  session_id?: string;
  /**
   * Files sent with the message: text files into the model's context and to skills
   * (`attachments`); images (`data`, base64) to models that read them, never to skills.
   */
  attachments?: Array<{ name: string; text?: string; media_type?: string; data?: string; file?: string }>;
  /** Edit and resend: the user message this one replaces (a new branch beside it). */
  edit_of?: string;
  /** Regenerate: the reply to write again (its user message is answered again; `message` is ignored). */
  regenerate_of?: string;
  /**
   * A skill run by name before the model answers (the `/` menu). With `read`, the skill is read
   * instead (read_skill: its instructions and files), as when the model picks it itself; evals give
   * the model a skill this way.
   */
  skill?: { name: string; variables?: Record<string, unknown>; read?: boolean };
  /** The chat's own model, kept on the session this turn creates or continues. */
  model?: ChatModelChoice;
  signal?: AbortSignal;
  settings?: TurnSettings;
  /** The runtime `run_python` uses in this turn (default Pyodide). */
  python?: PythonRuntimeName;
}

/** What a turn needs from the app. */
export interface ChatDeps {
  catalog: SkillCatalog;
  chats: ChatStore;
  dispatcher: ArtifactDispatcher;
  /** The script runners (a skill's bundled scripts, the model's own Python): their kept files and runs. */
  runners: ScriptRunners;
  llm: Llm | null;
  /** The workspace folder, given to skills as a harness key. */
  workspace?: string;
  /** Who reads the no-model reply: the app names its Settings, the CLI its flags (default). */
  face?: 'app' | 'cli';
  /** Called just before the first provider request (benchmarks measure up to here). */
  onBeforeModel?: () => void;
  /** MCP tools for a session's turn, offered beside the skill tools. */
  external?: (session_id: string, signal?: AbortSignal) => ExternalTools | undefined;
  /** The folder of a chat (`run_python` works in it; the turn's attachments are put in it). */
  files?: (session_id: string) => ChatFolder;
  /** The runtime `run_python` uses in a chat when the turn names none (chat, workspace, Settings). */
  pythonRuntime?: (session_id: string) => PythonRuntimeName;
  /** The hosts the chat granted its run_python code (none when absent). */
  pythonHosts?: (session_id: string) => string[];
  /** The folders of this machine the user granted the chat (none when absent). */
  folderGrants?: (session_id: string) => GrantedFolder[];
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

/** The system prompt of a turn and what went into it. */
export interface TurnPrompt {
  system: string;
  matches: SkillMatch[];
  /** How many earlier messages were recalled as memory. */
  memory: number;
  /** Whether the whole catalog was listed, else how many enabled skills were left out. */
  listing: { whole: boolean; unlisted: number };
}

/** The phase-1 score a match needs to reach the prompt (defined beside phase 1). */
export { PROMPT_MIN_SCORE };

/**
 * Step 1: the system prompt from phase-1 matches, always-on skills and memory recalled from
 * earlier turns. It runs before the new message is stored, so a message never recalls itself.
 */
export function buildTurnPrompt(
  deps: Pick<ChatDeps, 'catalog' | 'chats'>,
  input: Pick<TurnInput, 'message' | 'session_id' | 'settings'>,
  dense?: MatchOptions['dense'],
  recalled?: RecalledMemory[],
): TurnPrompt {
  const s = input.settings ?? {};
  // `dense`: the message's e5 vector, computed before the turn (off the main thread).
  const matches = matchSkills(deps.catalog, input.message, { limit: s.index_k ?? 5, dense });
  const alwaysOn = deps.catalog.stores().flatMap((store) =>
    store.repo
      .listAlwaysOn()
      .filter((e) => store.scope === 'workspace' || !deps.catalog.isOverridden(e.name))
      // A skill switched name-only or off is never put into a prompt unasked.
      .filter((e) => deps.catalog.switchOf(e.name) === 'on')
      .map((e) => ({
        name: e.name,
        instructions: store.repo
          .getArtifacts(e.id, ['approach', 'description'])
          .map((t) => t.content)
          .join('\n\n'),
      })),
  );
  const memory = recalled ?? recallMemory(deps, input);
  const listed = matches.flatMap((m) => {
    if (m.score < PROMPT_MIN_SCORE) return [];
    const entry = deps.catalog.store(m.scope)?.repo.getSummaryByName(m.name);
    return entry ? [{ match: m, entry }] : [];
  });
  const whole = wholeCatalog(deps.catalog, s.listing_budget_tokens ?? DEFAULT_LISTING_BUDGET_TOKENS, listed);
  const unlisted = whole ? 0 : Math.max(0, enabledCount(deps.catalog) - listed.length);
  const system = buildSystemPrompt({
    base: s.base_prompt,
    matches: listed,
    ...(whole ? { catalog: whole } : { unlisted }),
    alwaysOn,
    memory,
  });
  return { system, matches, memory: memory.length, listing: { whole: whole !== null, unlisted } };
}

/** The enabled skills of a catalog, kept until an index or a switch changes (read on every turn). */
const enabledCache = new WeakMap<SkillCatalog, { key: unknown[]; entries: SkillSummary[] }>();

function enabledSkills(catalog: SkillCatalog): SkillSummary[] {
  const key = catalog.stores().flatMap((s) => [skillIndex(s.db).generation, readSwitches(s.db)]);
  const hit = enabledCache.get(catalog);
  if (hit && hit.key.length === key.length && hit.key.every((k, i) => k === key[i])) return hit.entries;
  const entries = catalog
    .listAll()
    .filter(
      (e) =>
        e.metadata?.internal !== 'true' &&
        e.invocation?.model_invocable !== false &&
        catalog.switchOf(e.name) === 'on',
    );
  enabledCache.set(catalog, { key, entries });
  return entries;
}

/** How many skills phase 1 may match (indexes are synced by the match that ran first). */
function enabledCount(catalog: SkillCatalog): number {
  let n = 0;
  for (const store of catalog.stores()) n += skillIndex(store.db).live;
  return n;
}

/**
 * Every enabled skill (not internal, not `disable-model-invocation`, switched on), matched ones
 * first, when all their index lines fit the budget (about four characters a token); else null and
 * phase 1's matches are listed alone. Small catalogs are cheap to list whole, and the model then
 * chooses among everything rather than among what the words found.
 */
function wholeCatalog(
  catalog: SkillCatalog,
  budgetTokens: number,
  matched: ReadonlyArray<{ entry: SkillSummary }>,
): SkillSummary[] | null {
  if (budgetTokens <= 0 || enabledCount(catalog) > MAX_LISTED_WHOLE) return null;
  const first = new Set(matched.map((m) => m.entry.name));
  const rest = enabledSkills(catalog).filter((e) => !first.has(e.name));
  const all = [...matched.map((m) => m.entry), ...rest];
  const chars = all.reduce((n, e) => n + indexLine(e).length + 1, 0);
  return chars <= budgetTokens * 4 ? all : null;
}

/** What a prepared prompt is kept under: the chat, the text and the turn's knobs. */
function preparedKey(input: Pick<TurnInput, 'message' | 'session_id' | 'settings'>): string {
  return JSON.stringify([input.session_id ?? null, input.message, input.settings ?? null]);
}

/**
 * Build the prompt a draft would be sent with, while it is typed (`chat/prepare`), and keep it:
 * sending that text unchanged, with nothing stored in between, then skips matching and recall.
 * The draft's e5 vector is computed too (off the main thread), as a send would.
 */
export async function prepareTurn(
  deps: Pick<ChatDeps, 'catalog' | 'chats'>,
  input: Pick<TurnInput, 'message' | 'session_id' | 'settings'>,
): Promise<TurnPrompt> {
  const dense = await denseQuery(input.message);
  const stamp = () => promptStamp(deps.chats, deps.catalog.stores());
  // Kept only when no write landed while it was computed (it would be stale, or never used). The
  // first match after a catalog change writes its index updates itself: then once more.
  let prompt: TurnPrompt | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    const before = stamp();
    prompt = buildTurnPrompt(deps, input, dense);
    if (stamp() === before) {
      keepPrepared(deps.chats, preparedKey(input), before, prompt);
      break;
    }
  }
  return prompt!;
}

/** Earlier messages relevant to the turn's message (before it is stored: never itself). */
export function recallMemory(
  deps: Pick<ChatDeps, 'chats'>,
  input: Pick<TurnInput, 'message' | 'session_id' | 'settings'>,
): RecalledMemory[] {
  const s = input.settings ?? {};
  return deps.chats.recall(input.message, {
    skip_recent: s.history ?? 20,
    ...s.memory,
    session_id: input.session_id,
  });
}

/** A turn's prompt when none was prepared from its draft. */
async function computeTurnPrompt(deps: ChatDeps, input: TurnInput): Promise<TurnPrompt> {
  // The message's e5 vector is computed off the main thread; memory is recalled meanwhile, so the
  // turn waits for the slower of the two rather than for both.
  const dense = denseQuery(input.message);
  // Awaited below; this only keeps a failure while recall runs from counting as unhandled.
  dense.catch(() => undefined);
  const memory = recallMemory(deps, input);
  return buildTurnPrompt(deps, input, await dense, memory);
}

/** The stored user turn and the conversation that precedes it. */
export interface UserTurn {
  session_id: string;
  new_session: boolean;
  /** False when the turn regenerates a reply to a message already stored. */
  stored_now: boolean;
  message: ChatMessage;
  /** Earlier messages of the session, sent to the model as conversation. */
  history: ChatMessage[];
}

/**
 * What the model reads for a user message: its text, then each attached file in an
 * `<attachment>` block (the stored message keeps them apart, so the chat shows the text alone).
 */
export function userContent(m: Pick<ChatMessage, 'content' | 'attachments'>): string {
  const files = (m.attachments ?? [])
    .map((a) =>
      a.text
        ? attachmentBlock(a.name, `\n${a.text}\n`)
        : // A file kept as itself with no text to read (a workbook, a document): the model learns it
          // is there and how a script reaches it.
          a.file && a.data === undefined
          ? attachmentBlock(
              a.name,
              `[a ${a.media_type || 'binary'} file of ${a.size} bytes, not readable as text here; run_script gives it to a skill's script as inputs/${a.name}]`,
              a.media_type,
            )
          : '',
    )
    .join('');
  return m.content + files;
}

/** An `<attachment>` block of the text the model reads (quotes in the name made single). */
function attachmentBlock(name: string, body: string, type?: string): string {
  const typed = type ? ` type="${type}"` : '';
  return `\n\n<attachment name="${name.replace(/"/g, "'")}"${typed}>${body}</attachment>`;
}

/**
 * A note in place of each image of a message a model that does not read images is sent (an
 * earlier turn's, from before a switch of model), so the model knows there was one and can say
 * it cannot see it instead of answering as if nothing had been attached.
 */
function unsentImages(m: Pick<ChatMessage, 'attachments'>, model: string): string {
  return (m.attachments ?? [])
    .filter((a) => !a.text && a.media_type.startsWith('image/'))
    .map((a) =>
      attachmentBlock(a.name, `[an image; not sent, because ${model} does not read images]`, a.media_type),
    )
    .join('');
}

/** The images a user message carries, as the model is sent them. */
function imagesOf(m: Pick<ChatMessage, 'attachments'>): Array<{ media_type: string; data: string }> {
  return (m.attachments ?? []).flatMap((a) =>
    a.data !== undefined ? [{ media_type: a.media_type, data: a.data }] : [],
  );
}

/**
 * Images sent to a model that does not read them are refused before anything is stored or
 * called (INVALID_INPUT naming models that can). Unknown models are taken not to read images.
 */
export function checkImages(llm: Llm | null, input: TurnInput): void {
  const pics = (input.attachments ?? []).filter((a) => a.data !== undefined);
  if (!llm || pics.length === 0 || modelReadsImages(llm.provider, llm.model)) return;
  throw new AppError(
    'INVALID_INPUT',
    `${llm.model} cannot read images; choose a model that can, e.g. ${imageModelsOf(llm.provider).join(', ')}. (SkillDesk takes a model it does not know to read images as not reading them.) Or remove ${pics.map((p) => p.name).join(', ')}.`,
    { model: llm.model, provider: llm.provider, images: pics.map((p) => p.name) },
  );
}

/**
 * The message a regeneration answers again, or the parent an edit branches from; checked before
 * anything is stored (NOT_FOUND / INVALID_INPUT name what was wrong).
 */
function resolveBranch(
  deps: ChatDeps,
  input: TurnInput,
): { regenerate: ChatMessage | null; parent_id: string | null | undefined; edited?: ChatMessage } {
  const sid = input.session_id;
  const target = input.regenerate_of ?? input.edit_of;
  if (!target) return { regenerate: null, parent_id: undefined };
  if (!sid) throw new AppError('INVALID_INPUT', 'editing or regenerating needs the chat it belongs to');
  const m = deps.chats.getMessage(sid, target);
  if (!m) throw new AppError('NOT_FOUND', 'That message is no longer in this chat.', { message_id: target });
  if (input.edit_of) {
    if (m.role !== 'user') throw new AppError('INVALID_INPUT', 'only your own messages can be edited');
    return { regenerate: null, parent_id: m.parent_id, edited: m };
  }
  const question = m.role === 'assistant' && m.parent_id ? deps.chats.getMessage(sid, m.parent_id) : null;
  if (question?.role !== 'user')
    throw new AppError('INVALID_INPUT', 'only a reply to one of your messages can be regenerated');
  return { regenerate: question, parent_id: question.id };
}

/** Step 2: store the user's message (in a new session when there is none), attachments beside it. */
export function persistUserTurn(
  deps: ChatDeps,
  input: TurnInput,
  matches: SkillMatch[],
  branch: { regenerate: ChatMessage | null; parent_id: string | null | undefined } = {
    regenerate: null,
    parent_id: undefined,
  },
): UserTurn {
  const newSession = !input.session_id;
  const sessionId = input.session_id ?? deps.chats.createSession().id;
  if (input.model) deps.chats.setModel(sessionId, input.model);
  // A turn that names a runtime chooses it for the chat from then on (as a model does).
  if (input.python) setChatRuntime(deps.chats.db, sessionId, input.python);
  const n = input.settings?.history ?? 20;
  if (branch.regenerate) {
    const message = branch.regenerate;
    return {
      session_id: sessionId,
      new_session: false,
      stored_now: false,
      message,
      history: deps.chats.recentMessages(sessionId, n, message.parent_id),
    };
  }
  const history = deps.chats.recentMessages(sessionId, n, branch.parent_id);
  const message = deps.chats.addMessage({
    session_id: sessionId,
    ...(branch.parent_id !== undefined ? { parent_id: branch.parent_id } : {}),
    attachments: (input.attachments ?? []).map((a) => {
      const kept = a.file ? keptFileSize(deps, a.name, a.file) : null;
      return {
        name: a.name,
        media_type: a.media_type ?? 'text/plain',
        size:
          kept ??
          (a.data !== undefined ? base64Bytes(a.data) : new TextEncoder().encode(a.text ?? '').length),
        text: a.text ?? '',
        ...(a.data !== undefined ? { data: a.data } : {}),
        ...(a.file ? { file: a.file } : {}),
      };
    }),
    role: 'user',
    content: input.message,
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
  return { session_id: sessionId, new_session: newSession, stored_now: true, message, history };
}

/**
 * The size of an attachment kept as a file (the user's file store, by SHA-256): INVALID_INPUT when
 * the store has no such file, before anything is stored.
 */
function keptFileSize(deps: Pick<ChatDeps, 'runners'>, name: string, sha256: string): number {
  const path = deps.runners.scripts?.files.pathOf(sha256) ?? null;
  if (!path)
    throw new AppError('INVALID_INPUT', `${name}: the attached file is no longer kept; attach it again`, {
      attachment: name,
    });
  return statSync(path).size;
}

/**
 * The `attachments` harness key skills receive: text files with their text, and every file kept
 * as itself (`file`, its SHA-256 in the user's file store) — which `run_script` gives a script as
 * `inputs/<name>`. Images without a kept file go to the model alone.
 */
export function skillAttachments(
  list: TurnInput['attachments'],
): Array<{ name: string; media_type: string; text: string; file?: string }> {
  return (list ?? [])
    .filter((a) => a.data === undefined || a.file)
    .map((a) => ({
      name: a.name,
      media_type: a.media_type ?? 'text/plain',
      text: a.text ?? '',
      ...(a.file ? { file: a.file } : {}),
    }));
}

/**
 * Put a message's attachments in the chat's folder as files, by their names (a same name is
 * replaced: the newest wins), so `run_python` finds them where the user said they are. One that
 * does not fit the folder's limits stays in the message only.
 */
export function keepAttachments(folder: ChatFolder, list: TurnInput['attachments']): void {
  for (const [i, a] of (list ?? []).entries()) {
    const name = safeChatFileName(a.name, `attachment-${i + 1}`);
    const bytes = a.data !== undefined ? Buffer.from(a.data, 'base64') : Buffer.from(a.text ?? '', 'utf8');
    try {
      folder.write(name, bytes);
    } catch (e) {
      if (!isAppError(e)) throw e;
    }
  }
}

/**
 * Step 3: the tools of this turn, bound to its context. Skills receive these harness keys, which
 * win over anything the model passes.
 */
export function bindTurnTools(deps: ChatDeps, input: TurnInput, sessionId: string): TurnTools {
  const files = deps.files?.(sessionId);
  if (files) keepAttachments(files, input.attachments);
  const scope = createRunScope({
    session_id: sessionId,
    workspace: deps.workspace,
    llm: deps.llm,
    harness: { attachments: skillAttachments(input.attachments) },
    signal: input.signal,
    files,
    python: input.python ?? deps.pythonRuntime?.(sessionId),
    python_hosts: deps.pythonHosts?.(sessionId),
    folders: deps.folderGrants?.(sessionId),
  });
  return new TurnTools({
    scope,
    catalog: deps.catalog,
    dispatcher: deps.dispatcher,
    runners: deps.runners,
    external: deps.external?.(sessionId, input.signal),
  });
}

/** What the model replied, with its tool calls, usage and any error (data, never thrown). */
export interface StreamedReply {
  text: string;
  input_tokens: number;
  output_tokens: number;
  estimated_cost: number | null;
  error: AppErrorData | null;
  calls: ToolCallRecord[];
  trace_ids: string[];
}

/**
 * Step 4: stream the reply, running the model's tool calls for up to `max_tool_rounds` rounds
 * (the last round offers no tools, so the model must answer). Without a model the reply says
 * what to configure.
 */
export async function streamWithTools(
  deps: Pick<ChatDeps, 'llm' | 'face' | 'onBeforeModel'>,
  turn: { prompt: TurnPrompt; user: UserTurn; tools: TurnTools; input: TurnInput },
  emit: (e: ChatEvent) => void,
): Promise<StreamedReply> {
  const reply: StreamedReply = {
    text: '',
    input_tokens: 0,
    output_tokens: 0,
    estimated_cost: null,
    error: null,
    calls: [],
    trace_ids: [],
  };
  const images = !!deps.llm && modelReadsImages(deps.llm.provider, deps.llm.model);
  const asUser = (m: ChatMessage): LlmMessage => {
    const pics = images ? imagesOf(m) : [];
    const content = userContent(m) + (images || !deps.llm ? '' : unsentImages(m, deps.llm.model));
    return { role: 'user', content, ...(pics.length ? { images: pics } : {}) };
  };
  const messages: LlmMessage[] = [
    ...turn.user.history.map(
      (m): LlmMessage => (m.role === 'user' ? asUser(m) : { role: m.role, content: m.content }),
    ),
    asUser(turn.user.message),
  ];
  const runCall = async (c: LlmToolCall) => {
    emit({ type: 'tool-call-started', id: c.id, name: c.name, args: c.args });
    const out: ToolOutcome = c.invalid
      ? { ok: false, result: { error: c.error ?? 'invalid tool call' } }
      : await turn.tools.call(c.name, c.args, { call_id: c.id });
    const activity = { skill: out.skill, artifacts: out.artifacts, trace_ids: out.trace_ids };
    reply.calls.push({ id: c.id, name: c.name, args: c.args, ok: out.ok, result: out.result, ...activity });
    if (out.trace_ids) reply.trace_ids.push(...out.trace_ids);
    emit({ type: 'tool-call-finished', id: c.id, name: c.name, ok: out.ok, ...activity, result: out.result });
    messages.push({ role: 'tool', tool_call_id: c.id, name: c.name, content: out.result, is_error: !out.ok });
  };
  // A skill the user invoked by name runs first, as if the model had applied it; the model then
  // answers with its result in view.
  const invoked = turn.input.skill;
  if (invoked) {
    const call = invoked.read
      ? { id: 'invoke_skill', name: skillUseTool('read'), args: { name: invoked.name } }
      : {
          id: 'invoke_skill',
          name: skillUseTool('apply'),
          args: { name: invoked.name, ...(invoked.variables ? { ctx: invoked.variables } : {}) },
        };
    messages.push({ role: 'assistant', content: '', tool_calls: [call] });
    await runCall(call);
  }
  if (!deps.llm) {
    reply.text = noModelReply(turn.prompt.matches, deps.face);
    emit({ type: 'text-delta', text: reply.text });
    return reply;
  }
  const { signal } = turn.input;
  const maxRounds = turn.input.settings?.max_tool_rounds ?? 10;
  deps.onBeforeModel?.();
  for (let round = 0; ; round++) {
    let roundText = '';
    const pending: LlmToolCall[] = [];
    for await (const ev of deps.llm.stream({
      system: turn.prompt.system,
      messages,
      tools: round < maxRounds ? turn.tools.specs() : undefined,
      signal,
    })) {
      if (ev.type === 'text-delta') {
        roundText += ev.text;
        emit({ type: 'text-delta', text: ev.text });
      } else if (ev.type === 'tool-call') pending.push(ev);
      else if (ev.type === 'finish') {
        reply.input_tokens += ev.usage.input_tokens;
        reply.output_tokens += ev.usage.output_tokens;
        if (ev.estimated_cost != null) reply.estimated_cost = (reply.estimated_cost ?? 0) + ev.estimated_cost;
      } else if (ev.type === 'error') reply.error = ev.error.toData();
    }
    reply.text += roundText;
    if (reply.error || pending.length === 0) break;
    messages.push({
      role: 'assistant',
      content: roundText,
      tool_calls: pending.map((c) => ({ id: c.id, name: c.name, args: c.args })),
    });
    for (const c of pending) await runCall(c);
    if (signal?.aborted) {
      reply.error = { code: 'CANCELLED', message: 'the turn was cancelled' };
      break;
    }
  }
  return reply;
}

/**
 * Why a streamed reply could not be stored, as the error the turn ends with (the reply's text is
 * still returned). Only storage failures are kept this way; anything else is a bug and thrown.
 */
function unsavedReplyError(e: unknown): AppErrorData {
  const named = isAppError(e, 'DISK_FULL', 'STORE_BUSY', 'STORE_FAILED') ? e : namedStorageError(e);
  if (!named) throw e;
  return {
    code: named.code,
    message: `The reply above could not be saved, so it is not in the chat's history: copy it now. ${named.message}`,
    ...(named.details ? { details: named.details } : {}),
  };
}

/** The end of a turn, as emitted and returned. */
export type TurnFinished = Extract<ChatEvent, { type: 'turn-finished' }>;

/** Step 5: store the reply after its user message (partial when cancelled, with the error when it failed). */
export function persistReply(
  deps: ChatDeps,
  sessionId: string,
  reply: StreamedReply,
  parentId?: string,
): TurnFinished {
  let status: 'complete' | 'partial' | 'error' = !reply.error
    ? 'complete'
    : reply.error.code === 'CANCELLED'
      ? 'partial'
      : 'error';
  let error = reply.error;
  let stored: { id: string };
  try {
    stored = deps.chats.addMessage({
      session_id: sessionId,
      ...(parentId ? { parent_id: parentId } : {}),
      role: 'assistant',
      content: reply.text,
      status,
      tool_calls: reply.calls.length ? reply.calls : null,
      trace_ids: reply.trace_ids,
      skills: null,
      model_id: deps.llm ? `${deps.llm.provider}:${deps.llm.model}` : null,
      input_tokens: deps.llm ? reply.input_tokens : null,
      output_tokens: deps.llm ? reply.output_tokens : null,
      estimated_cost: reply.estimated_cost,
      error: reply.error,
    });
  } catch (e) {
    // The reply streamed but cannot be stored (a full disk, another writer): hand it back whole
    // with the reason, so the window and the CLI still show it to copy instead of losing it.
    const unsaved = unsavedReplyError(e);
    stored = { id: '' };
    error = unsaved;
    status = 'error';
  }
  return {
    type: 'turn-finished',
    session_id: sessionId,
    message_id: stored.id,
    text: reply.text,
    status,
    input_tokens: reply.input_tokens,
    output_tokens: reply.output_tokens,
    estimated_cost: reply.estimated_cost,
    trace_ids: reply.trace_ids,
    skills_used: [
      ...new Set(
        reply.calls.filter((c) => toolFacts(c.name)?.skill_use === 'apply' && c.skill).map((c) => c.skill!),
      ),
    ],
    error,
  };
}

/**
 * One memory-grounded chat turn, in the order that keeps a message out of its own memory:
 * build the prompt → persist the user turn → bind the turn's tools → stream with tools → persist
 * the reply. A session id that does not exist is refused (NOT_FOUND) before anything is stored.
 */
export async function runTurn(
  deps: ChatDeps,
  input: TurnInput,
  emit: (e: ChatEvent) => void = () => {},
): Promise<TurnFinished> {
  if (input.session_id && !deps.chats.getSession(input.session_id)) {
    throw new AppError(
      'NOT_FOUND',
      `no chat session ${input.session_id}; list them with: skilldesk sessions`,
      {
        session_id: input.session_id,
      },
    );
  }
  const branch = resolveBranch(deps, input);
  const turnInput: TurnInput = branch.regenerate
    ? {
        ...input,
        message: branch.regenerate.content,
        attachments: (branch.regenerate.attachments ?? []).map((a) => ({
          name: a.name,
          text: a.text,
          media_type: a.media_type,
          ...(a.data !== undefined ? { data: a.data } : {}),
          ...(a.file ? { file: a.file } : {}),
        })),
      }
    : branch.edited && input.attachments === undefined
      ? // An edit keeps the files the message carried unless it says otherwise.
        { ...input, attachments: (branch.edited.attachments ?? []).map(({ size: _s, ...a }) => a) }
      : input;
  checkImages(deps.llm, turnInput);
  const prompt =
    takePrepared<TurnPrompt>(deps.chats, preparedKey(turnInput), () =>
      promptStamp(deps.chats, deps.catalog.stores()),
    ) ?? (await computeTurnPrompt(deps, turnInput));
  const user = persistUserTurn(deps, turnInput, prompt.matches, branch);
  emit({
    type: 'turn-started',
    session_id: user.session_id,
    user_message_id: user.message.id,
    message: user.message.content,
    new_session: user.new_session,
    matches: prompt.matches,
    memory: prompt.memory,
    listing: prompt.listing,
    parent_id: user.message.parent_id,
    regenerated: !user.stored_now,
    attachments: (user.message.attachments ?? []).map((a) => ({
      name: a.name,
      media_type: a.media_type,
      size: a.size,
    })),
  });
  const tools = bindTurnTools(deps, turnInput, user.session_id);
  if (deps.llm) await tools.prepare();
  const reply = await streamWithTools(deps, { prompt, user, tools, input: turnInput }, emit);
  const finished = persistReply(deps, user.session_id, reply, user.message.id);
  emit(finished);
  return finished;
}
