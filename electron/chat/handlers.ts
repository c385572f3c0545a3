import type { EventName, EventPayload, HandlersFor } from '../contract/channels.js';
import type {
  ChatMessageView,
  ChatModelChoice,
  ChatSessionView,
  GetSessionRes,
  SendMessageRes,
  ToolCallView,
} from '../contract/chat.js';
import { AppError, assertNever, isAppError } from '../contract/errors.js';
import type { ArtifactDispatcher, ScriptRunners } from '../dispatch/index.js';
import type { Llm } from '../llm/index.js';
import {
  addGrant,
  type ChatFolder,
  chatFilesRoot,
  chatFolder,
  chatFolderGrants,
  chatHosts,
  chatRuntime,
  checkGrantableFolder,
  effectiveRuntime,
  runtimePreference,
  setChatFolderGrants,
} from '../scripts/index.js';
import type { SkillCatalog } from '../skills/index.js';
import { namedStorageError, type SkillStore } from '../store/index.js';
import { generateTitle } from './auto-title.js';
import type { BranchMessage, ChatMessage, ChatSession, ChatStore } from './chat-store.js';
import { type ChatDeps, type ChatEvent, prepareTurn, runTurn, type TurnInput } from './engine.js';
import { exportSession } from './export.js';

/** The open workspace as the chat slice uses it (the host's workspace session fits). */
export interface ChatWorkspace {
  workspace: string | undefined;
  catalog: { get(): SkillCatalog };
  /** Chat sessions: `read()` is null while a configured workspace has no store yet. */
  chats: { read(): ChatStore | null; write(): ChatStore; account(): ChatStore | null };
  /** The store sessions write to. */
  writeStore(): SkillStore;
  /** The skill runtime whose traces go to `store`. */
  runtime(store: SkillStore): { dispatcher: ArtifactDispatcher } & ScriptRunners;
}

/** What the chat slice needs. */
export interface ChatHandlerDeps {
  session: ChatWorkspace;
  /** Where the slice publishes `chat/*` events (the host's event hub). */
  events: { emit<E extends EventName>(event: E, payload: EventPayload<E>): void };
  /** Where a turn that failed by a bug is reported (with its stack, never sent to a window). */
  logger: { error(message: string, error?: unknown): void };
  /**
   * The model of a new turn, built from the current settings and keys; null when none is chosen.
   * Given a chat's own choice, that provider and model (with the keys and base URL in Settings).
   */
  llm: (choice?: ChatModelChoice) => Llm | null;
  /** Who shows the replies (the no-model reply names Settings in the app, flags in the CLI). */
  face?: 'app' | 'cli';
  /** MCP tools of a session's turn, offered beside the skill tools. */
  external?: ChatDeps['external'];
  /** Whether a new chat is named by its model after the first reply (asked when a reply ends). */
  autoTitles?: () => boolean;
  /** A stored model id in words (the provider's label), for exports; the id as is without it. */
  modelName?: (modelId: string) => string | null;
  /**
   * The skill listing's budget in tokens for a chat's model (Settings: a share of its context);
   * a turn's own `settings.listing_budget_tokens` wins. Absent: the engine's default.
   */
  listingBudget?: (choice?: ChatModelChoice) => number;
  /** SkillDesk's data folder: never grantable to a chat (nor a folder holding it). */
  home?: string;
}

/** The chat slice and its lifecycle. */
export interface ChatSlice {
  handlers: HandlersFor<'chat'>;
  /** Cancel running turns and stop the skill runtime. */
  dispose(): Promise<void>;
}

function notFound(id: string): AppError {
  return new AppError(
    'NOT_FOUND',
    'That chat no longer exists. It may have been deleted in another window; pick another chat.',
    { session_id: id },
  );
}

function toMessageView(m: ChatMessage | BranchMessage): ChatMessageView {
  return {
    id: m.id,
    parent_id: m.parent_id,
    sibling_ids: 'sibling_ids' in m ? m.sibling_ids : [m.id],
    attachments: (m.attachments ?? []).map((a) => ({ name: a.name, media_type: a.media_type, size: a.size })),
    role: m.role,
    content: m.content,
    status: m.status,
    tool_calls: (m.tool_calls ?? []).map((c) => ({
      id: c.id,
      name: c.name,
      args: c.args,
      ok: c.ok,
      ...(c.skill ? { skill: c.skill } : {}),
      ...(c.artifacts ? { artifacts: c.artifacts } : {}),
      ...(c.trace_ids ? { trace_ids: c.trace_ids } : {}),
      ...(c.result !== undefined ? { result: c.result } : {}),
    })),
    trace_ids: m.trace_ids ?? [],
    model_id: m.model_id,
    input_tokens: m.input_tokens,
    output_tokens: m.output_tokens,
    estimated_cost: m.estimated_cost,
    error: m.error,
    created_at: m.created_at,
  };
}

/** What the mapper needs to know about a turn besides its engine events. */
interface TurnFacts {
  client_turn_id: string | null;
  model_id: string | null;
}

/** One contract event, as `EventHub.emit`'s arguments. */
type ContractEvent = {
  [E in EventName]: [E, EventPayload<E>];
}[EventName];

/** A turn in flight: how to stop it and what it has written so far. */
interface InFlight {
  abort: AbortController;
  text: string;
  tool_calls: Map<string, ToolCallView & { finished: boolean }>;
}

/** Keep the reply so far of a turn in flight. */
function track(flight: InFlight, e: ChatEvent): void {
  if (e.type === 'text-delta') flight.text += e.text;
  else if (e.type === 'tool-call-started')
    flight.tool_calls.set(e.id, { id: e.id, name: e.name, args: e.args, ok: false, finished: false });
  else if (e.type === 'tool-call-finished') {
    const { type: _t, ...call } = e;
    flight.tool_calls.set(e.id, { ...call, args: flight.tool_calls.get(e.id)?.args, finished: true });
  }
}

/**
 * Map one engine event of a turn in `session_id` to the contract events windows receive. Pure: the
 * clock reading comes in as `now`.
 */
export function toContractEvents(
  e: ChatEvent,
  session_id: string,
  turn: TurnFacts,
  now: string,
): ContractEvent[] {
  switch (e.type) {
    case 'turn-started':
      return [
        [
          'chat/turn-started',
          {
            session_id: e.session_id,
            user_message_id: e.user_message_id,
            message: e.message,
            new_session: e.new_session,
            client_turn_id: turn.client_turn_id,
            matches: e.matches,
            memory: e.memory,
            ...(e.listing ? { listing: e.listing } : {}),
            created_at: now,
            parent_id: e.parent_id,
            regenerated: e.regenerated,
            attachments: e.attachments,
          },
        ],
        ...(e.new_session
          ? [['chat/sessions-changed', { reason: 'created', session_id: e.session_id }] as ContractEvent]
          : []),
      ];
    case 'text-delta':
      return [['chat/delta-received', { session_id, text: e.text }]];
    case 'tool-call-started':
      return [['chat/tool-call-started', { session_id, id: e.id, name: e.name, args: e.args }]];
    case 'tool-call-finished':
      return [
        [
          'chat/tool-call-finished',
          {
            session_id,
            id: e.id,
            name: e.name,
            ok: e.ok,
            ...(e.skill ? { skill: e.skill } : {}),
            ...(e.artifacts ? { artifacts: e.artifacts } : {}),
            ...(e.trace_ids ? { trace_ids: e.trace_ids } : {}),
            ...(e.result !== undefined ? { result: e.result } : {}),
          },
        ],
      ];
    case 'turn-finished':
      return [
        [
          'chat/turn-finished',
          {
            session_id: e.session_id,
            message_id: e.message_id,
            text: e.text,
            status: e.status,
            model_id: turn.model_id,
            input_tokens: e.input_tokens,
            output_tokens: e.output_tokens,
            estimated_cost: e.estimated_cost,
            trace_ids: e.trace_ids,
            skills_used: e.skills_used,
            error: e.error,
            created_at: now,
          },
        ],
        ['chat/sessions-changed', { reason: 'updated', session_id: e.session_id }],
      ];
    default:
      return assertNever(e);
  }
}

/**
 * The `chat/*` slice: a turn runs in the background after `chat/send-message` replies, its
 * engine events republished as `chat/*` events; one turn per session at a time.
 */
export function createChatHandlers(deps: ChatHandlerDeps): ChatSlice {
  // Turns in flight, with the reply so far: a window opening the chat mid-stream starts from it.
  const running = new Map<string, InFlight>();
  // Titles being written for new chats, by session: renaming or deleting the chat stops its call.
  const titling = new Map<string, AbortController>();
  const ws = deps.session;
  /** A chat's folder, beside the store its messages are in. */
  const folderOf = (sessionId: string): ChatFolder => chatFolder(chatFilesRoot(ws.writeStore()), sessionId);
  /** The folder of a chat that exists (NOT_FOUND otherwise). */
  const existingFolder = (sessionId: string): ChatFolder => {
    if (!ws.chats.read()?.getSession(sessionId)) throw notFound(sessionId);
    return folderOf(sessionId);
  };

  /**
   * Name a chat from its first exchange with the chat's model, in the background. The title set
   * from the first message is replaced only if it is still there when the model answers.
   */
  const autoTitle = (sessionId: string, llm: Llm, exchange: { user: string; reply: string }) => {
    const chats = ws.chats.write();
    const before = chats.getSession(sessionId)?.title;
    if (before === undefined) return;
    const abort = new AbortController();
    titling.set(sessionId, abort);
    generateTitle(llm, exchange, abort.signal)
      .then((title) => {
        if (abort.signal.aborted || !title || title === before) return;
        if (chats.replaceTitle(sessionId, before, title))
          deps.events.emit('chat/sessions-changed', { reason: 'renamed', session_id: sessionId });
      })
      .catch((e: unknown) => {
        // A title is a nicety: a failed or cancelled call leaves the first message's title.
        if (!abort.signal.aborted && !isAppError(e)) deps.logger.error('naming a chat failed', e);
      })
      .finally(() => {
        if (titling.get(sessionId) === abort) titling.delete(sessionId);
      });
  };
  const stopTitle = (sessionId: string) => {
    titling.get(sessionId)?.abort();
    titling.delete(sessionId);
  };

  const toSessionView = (s: ChatSession): ChatSessionView => ({
    id: s.id,
    title: s.title,
    created_at: s.created_at,
    updated_at: s.updated_at,
    message_count: s.message_count ?? 0,
    running: running.has(s.id),
    model: s.model ?? null,
  });

  const sessionRes = (chats: ChatStore, session: ChatSession): GetSessionRes => {
    const flight = running.get(session.id);
    return {
      session: toSessionView(session),
      messages: chats.branch(session.id).map(toMessageView),
      usage: chats.usage(session.id),
      in_flight: flight ? { text: flight.text, tool_calls: [...flight.tool_calls.values()] } : null,
    };
  };

  /** A turn's knobs with the listing budget of its model filled in (unless the turn set one). */
  const withListingBudget = (
    settings: TurnInput['settings'],
    choice: ChatModelChoice | undefined,
  ): TurnInput['settings'] => {
    if (!deps.listingBudget || settings?.listing_budget_tokens !== undefined) return settings;
    return { ...settings, listing_budget_tokens: deps.listingBudget(choice) };
  };

  /** Start a turn in the background; resolves once its user message is stored. */
  const startTurn = (
    input: Omit<TurnInput, 'signal'> & { client_turn_id?: string },
  ): Promise<SendMessageRes> => {
    {
      const req = input;
      if (req.session_id && running.has(req.session_id)) {
        throw new AppError(
          'CONFLICT',
          'A reply is still being written in this chat. Stop it or wait for it to finish.',
          {
            session_id: req.session_id,
          },
        );
      }
      const store = ws.writeStore();
      const chats = ws.chats.write();
      const existing = req.session_id ? chats.getSession(req.session_id) : null;
      if (req.session_id && !existing) throw notFound(req.session_id);
      // The turn's model is fixed here and travels with it: a change of Settings or of another
      // chat's model mid-turn reaches none of its calls.
      const llm = deps.llm(req.model ?? existing?.model ?? undefined);
      const rt = ws.runtime(store);
      const flight: InFlight = { abort: new AbortController(), text: '', tool_calls: new Map() };
      const abort = flight.abort;
      if (req.session_id) running.set(req.session_id, flight);
      // Only this turn's own entry: the next turn of the chat may start (and register) as soon as
      // this one's turn-finished is out, before this promise settles, and its Stop must still work.
      const release = (id: string) => {
        if (running.get(id) === flight) running.delete(id);
      };
      const modelId = llm ? `${llm.provider}:${llm.model}` : null;

      // Only a chat's first exchange names it.
      const firstExchange = !existing || (existing.message_count ?? 0) === 0;
      let finished: { status: string; text: string } | null = null;
      return new Promise<SendMessageRes>((resolve, reject) => {
        let sid = req.session_id;
        let started = false;
        const { events } = deps;
        const turn = { client_turn_id: req.client_turn_id ?? null, model_id: modelId };
        const emit = (e: ChatEvent) => {
          if (e.type === 'turn-started') {
            sid = e.session_id;
            started = true;
            running.set(sid, flight);
          } else track(flight, e);
          if (e.type === 'turn-finished') {
            release(e.session_id);
            finished = { status: e.status, text: e.text };
          }
          for (const [name, payload] of toContractEvents(e, sid!, turn, new Date().toISOString()))
            events.emit(name, payload as never);
          if (e.type === 'turn-started') resolve({ session_id: sid!, user_message_id: e.user_message_id });
        };
        const settings = withListingBudget(req.settings, req.model ?? existing?.model ?? undefined);
        runTurn(
          {
            catalog: ws.catalog.get(),
            chats,
            dispatcher: rt.dispatcher,
            runners: rt,
            llm,
            workspace: ws.workspace,
            face: deps.face,
            external: deps.external,
            files: folderOf,
            pythonRuntime: (id) => {
              const cat = ws.catalog.get();
              return effectiveRuntime({
                chat: chatRuntime(chats.db, id),
                workspace: cat.workspace ? runtimePreference(cat.workspace.db) : null,
                settings: runtimePreference(cat.account.db),
              }).runtime;
            },
            pythonHosts: (id) => chatHosts(chats.db, id),
            folderGrants: (id) => chatFolderGrants(chats.db, id),
          },
          { ...req, ...(settings ? { settings } : {}), signal: abort.signal },
          emit,
        ).then(
          () => {
            if (sid) release(sid);
            const done = finished as { status: string; text: string } | null;
            if (
              sid &&
              llm &&
              firstExchange &&
              done?.status === 'complete' &&
              done.text.trim() &&
              deps.autoTitles?.()
            )
              autoTitle(sid, llm, { user: req.message, reply: done.text });
          },
          (e: unknown) => {
            if (sid) release(sid);
            if (!started) {
              reject(e);
              return;
            }
            // The turn had started, so the window is waiting for its end: tell it.
            if (!isAppError(e)) deps.logger.error('a chat turn failed', e);
            deps.events.emit('chat/turn-finished', {
              session_id: sid!,
              message_id: '',
              text: '',
              status: 'error',
              model_id: modelId,
              input_tokens: 0,
              output_tokens: 0,
              estimated_cost: null,
              trace_ids: [],
              skills_used: [],
              // A full disk or a store held by another writer is named, not reported as a bug.
              error: isAppError(e)
                ? e.toData()
                : (namedStorageError(e)?.toData() ?? {
                    code: 'INTERNAL',
                    message: 'The reply failed inside SkillDesk. The details are in the app log.',
                  }),
              created_at: new Date().toISOString(),
            });
          },
        );
      });
    }
  };

  const handlers = {
    'chat/send-message': (req) => startTurn(req),

    'chat/prepare': async (req) => {
      // Read only: a draft never creates a store (a chat's first send does).
      const chats = ws.chats.read();
      if (!chats) return { matches: 0, memory: 0 };
      if (req.session_id && !chats.getSession(req.session_id)) throw notFound(req.session_id);
      // The same knobs a send will use, so the prompt prepared here is the one it takes.
      const model = req.session_id ? (chats.getSession(req.session_id)?.model ?? undefined) : undefined;
      const settings = withListingBudget(req.settings, model);
      const prompt = await prepareTurn(
        { catalog: ws.catalog.get(), chats },
        { ...req, ...(settings ? { settings } : {}) },
      );
      return { matches: prompt.matches.length, memory: prompt.memory };
    },

    'chat/regenerate': (req) => {
      const chats = ws.chats.read();
      if (!chats?.getSession(req.session_id)) throw notFound(req.session_id);
      return startTurn({
        session_id: req.session_id,
        message: '',
        regenerate_of: req.message_id,
        client_turn_id: req.client_turn_id,
        settings: req.settings,
      });
    },

    'chat/cancel': (req) => {
      stopTitle(req.session_id);
      const flight = running.get(req.session_id);
      if (!flight) return { cancelled: false };
      flight.abort.abort();
      return { cancelled: true };
    },

    'chat/list-sessions': (req) => {
      const chats = ws.chats.read();
      const account = ws.chats.account();
      const outside = account ? { account_chats: account.countSessions() } : {};
      if (!chats) return { sessions: [], ...outside };
      return { sessions: chats.listSessions(req.limit ?? 200).map(toSessionView), ...outside };
    },

    'chat/get-session': (req) => {
      const chats = ws.chats.read();
      const session = chats?.getSession(req.session_id);
      if (!chats || !session) throw notFound(req.session_id);
      return sessionRes(chats, session);
    },

    'chat/get-attachment': (req) => {
      const chats = ws.chats.read();
      if (!chats?.getSession(req.session_id)) throw notFound(req.session_id);
      const a = chats.getMessage(req.session_id, req.message_id)?.attachments?.[req.index];
      if (!a)
        throw new AppError('NOT_FOUND', 'That file is no longer in this chat.', {
          message_id: req.message_id,
          index: req.index,
        });
      return {
        name: a.name,
        media_type: a.media_type,
        size: a.size,
        ...(a.data !== undefined ? { data: a.data } : { text: a.text }),
      };
    },

    'chat/switch-branch': (req) => {
      const chats = ws.chats.read();
      const session = chats?.getSession(req.session_id);
      if (!chats || !session) throw notFound(req.session_id);
      if (running.has(session.id))
        throw new AppError(
          'CONFLICT',
          'A reply is still being written in this chat. Stop it or wait for it to finish.',
          {
            session_id: session.id,
          },
        );
      if (!chats.switchBranch(session.id, req.message_id))
        throw new AppError('NOT_FOUND', 'That message is no longer in this chat.', {
          message_id: req.message_id,
        });
      return sessionRes(chats, session);
    },

    'chat/search': (req) => {
      const chats = ws.chats.read();
      return { hits: chats ? chats.search(req.query, req.limit ?? 50) : [] };
    },

    'chat/export-session': (req) => {
      const chats = ws.chats.read();
      const session = chats?.getSession(req.session_id);
      if (!chats || !session) throw notFound(req.session_id);
      const folder = folderOf(session.id);
      const files = folder.list().map((f) => ({
        name: f.name,
        media_type: f.media_type,
        size: f.size,
        data_base64: req.format === 'json' ? folder.read(f.name).bytes.toString('base64') : '',
      }));
      const grants = chatFolderGrants(chats.db, session.id).map((g) => g.name);
      return exportSession(chats, session, req.format, files, deps.modelName, grants);
    },

    'chat/set-model': (req) => {
      const chats = ws.chats.read();
      if (!chats?.setModel(req.session_id, req.model)) throw notFound(req.session_id);
      deps.events.emit('chat/sessions-changed', { reason: 'updated', session_id: req.session_id });
      return { session: toSessionView(chats.getSession(req.session_id)!) };
    },

    'chat/delete-session': (req) => {
      const chats = ws.chats.read();
      const session = chats?.getSession(req.session_id);
      if (!chats || !session) throw notFound(req.session_id);
      running.get(session.id)?.abort.abort();
      stopTitle(session.id);
      chats.deleteSession(session.id);
      folderOf(session.id).removeAll();
      deps.events.emit('chat/sessions-changed', { reason: 'deleted', session_id: session.id });
      return { deleted: { id: session.id, title: session.title } };
    },

    'chat/rename-session': (req) => {
      // The user's title wins over one the model is still writing.
      stopTitle(req.session_id);
      const chats = ws.chats.read();
      const session = chats?.renameSession(req.session_id, req.title);
      if (!session) throw notFound(req.session_id);
      deps.events.emit('chat/sessions-changed', { reason: 'renamed', session_id: session.id });
      return { session: toSessionView(session) };
    },

    'chat/list-files': (req) => {
      const files = existingFolder(req.session_id).list();
      return { files, total_bytes: files.reduce((n, f) => n + f.size, 0) };
    },

    'chat/read-file': (req) => {
      const { file, bytes } = existingFolder(req.session_id).read(req.name);
      return { ...file, data_base64: bytes.toString('base64') };
    },

    'chat/delete-file': (req) => ({ deleted: existingFolder(req.session_id).remove(req.name) }),

    'chat/upload-file': (req) => {
      const bytes = Buffer.from(req.data_base64, 'base64');
      return { file: existingFolder(req.session_id).write(req.name, bytes) };
    },

    'chat/list-folders': (req) => {
      const chats = ws.chats.read();
      if (!chats?.getSession(req.session_id)) throw notFound(req.session_id);
      return { session_id: req.session_id, folders: chatFolderGrants(chats.db, req.session_id) };
    },

    'chat/grant-folder': (req) => {
      const chats = ws.chats.read();
      if (!chats?.getSession(req.session_id)) throw notFound(req.session_id);
      if (!deps.home)
        throw new AppError(
          'HANDLER_NOT_AVAILABLE',
          'folders cannot be granted here (no data folder is known)',
        );
      const grant = checkGrantableFolder(req.path, { home: deps.home });
      const folders = addGrant(chatFolderGrants(chats.db, req.session_id), grant);
      setChatFolderGrants(chats.db, req.session_id, folders);
      return { session_id: req.session_id, folders };
    },

    'chat/revoke-folder': (req) => {
      const chats = ws.chats.read();
      if (!chats?.getSession(req.session_id)) throw notFound(req.session_id);
      const folders = chatFolderGrants(chats.db, req.session_id).filter((f) => f.name !== req.name);
      setChatFolderGrants(chats.db, req.session_id, folders);
      return { session_id: req.session_id, folders };
    },
  } satisfies HandlersFor<'chat'>;

  return {
    handlers,
    async dispose() {
      for (const flight of running.values()) flight.abort.abort();
      running.clear();
      for (const abort of titling.values()) abort.abort();
      titling.clear();
    },
  };
}
