import { type ChatEvent, type ChatMessage, type ChatSession, ChatStore, runTurn } from '../chat/index.js';
import type { HandlersFor } from '../contract/channels.js';
import type { ChatMessageView, ChatSessionView, SendMessageRes } from '../contract/chat.js';
import { AppError, isAppError } from '../contract/errors.js';
import { createSkillRuntime, type SkillRuntime } from '../dispatch/index.js';
import type { Logger } from '../host.js';
import type { Llm } from '../llm/index.js';
import type { SpawnSandboxProcess } from '../sandbox/index.js';
import type { Db } from '../store/db.js';
import type { SkillStore } from '../store/index.js';
import { TraceStore } from '../traces/index.js';
import { indexWorkspacePages, WorkspacePages } from '../workspace/index.js';
import type { EventHub } from './events.js';
import type { CatalogRef } from './skills-handlers.js';

/** What the chat slice needs. */
export interface ChatHandlerDeps {
  catalog: CatalogRef;
  events: EventHub;
  logger: Logger;
  home: string;
  /** The workspace folder (sessions then live in its store, as in the CLI). */
  workspace?: string;
  /** The model of a new turn, built from the current settings and keys; null when none is chosen. */
  llm: () => Llm | null;
  /** Override the skill runtime (tests). */
  createRuntime?: typeof createSkillRuntime;
  spawnSandbox?: SpawnSandboxProcess;
  resourcesPath?: string;
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

function toMessageView(m: ChatMessage): ChatMessageView {
  return {
    id: m.id,
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

/**
 * The `chat/*` slice: a turn runs in the background after `chat/send-message` replies, its
 * engine events republished as `chat/*` events; one turn per session at a time.
 */
export function createChatHandlers(deps: ChatHandlerDeps): ChatSlice {
  const running = new Map<string, AbortController>();
  let runtime: { db: Db; rt: SkillRuntime } | null = null;
  let pagesIndexed = false;

  const toSessionView = (s: ChatSession): ChatSessionView => ({
    id: s.id,
    title: s.title,
    created_at: s.created_at,
    updated_at: s.updated_at,
    message_count: s.message_count ?? 0,
    running: running.has(s.id),
  });

  /** The store sessions live in, for reading: null while a configured workspace has no store yet. */
  const readStore = (): SkillStore | null => {
    const c = deps.catalog.get();
    return deps.catalog.hasWorkspace() ? c.workspace : c.account;
  };
  /** The store sessions live in, created if needed. */
  const writeStore = (): SkillStore =>
    deps.catalog.hasWorkspace() ? deps.catalog.withStore('workspace').store : deps.catalog.get().account;

  const runtimeFor = (store: SkillStore, llm: Llm | null): SkillRuntime => {
    if (runtime && runtime.db !== store.db) {
      void runtime.rt.dispose();
      runtime = null;
    }
    if (!runtime) {
      let workspace: WorkspacePages | undefined;
      if (deps.workspace && store.scope === 'workspace') {
        if (!pagesIndexed) {
          indexWorkspacePages(store.db, deps.workspace);
          pagesIndexed = true;
        }
        workspace = new WorkspacePages(store.db);
      }
      const rt = (deps.createRuntime ?? createSkillRuntime)({
        traces: new TraceStore(store.db),
        home: deps.home,
        llm,
        workspace,
        spawnSandbox: deps.spawnSandbox,
        resourcesPath: deps.resourcesPath,
        log: (line) => deps.logger.info(line),
      });
      runtime = { db: store.db, rt };
    }
    runtime.rt.setLlm(llm);
    return runtime.rt;
  };

  const handlers = {
    'chat/send-message': (req) => {
      if (req.session_id && running.has(req.session_id)) {
        throw new AppError(
          'CONFLICT',
          'A reply is still being written in this chat. Stop it or wait for it to finish.',
          {
            session_id: req.session_id,
          },
        );
      }
      const store = writeStore();
      const chats = new ChatStore(store.db);
      if (req.session_id && !chats.getSession(req.session_id)) throw notFound(req.session_id);
      const llm = deps.llm();
      const rt = runtimeFor(store, llm);
      const abort = new AbortController();
      if (req.session_id) running.set(req.session_id, abort);
      const modelId = llm ? `${llm.provider}:${llm.model}` : null;

      return new Promise<SendMessageRes>((resolve, reject) => {
        let sid = req.session_id;
        let started = false;
        const { events } = deps;
        const emit = (e: ChatEvent) => {
          switch (e.type) {
            case 'turn-started':
              sid = e.session_id;
              started = true;
              running.set(sid, abort);
              events.emit('chat/turn-started', {
                session_id: sid,
                user_message_id: e.user_message_id,
                message: req.message,
                new_session: e.new_session,
                client_turn_id: req.client_turn_id ?? null,
                matches: e.matches,
                memory: e.memory,
                created_at: new Date().toISOString(),
              });
              if (e.new_session) events.emit('chat/sessions-changed', { reason: 'created', session_id: sid });
              resolve({ session_id: sid, user_message_id: e.user_message_id });
              return;
            case 'text-delta':
              events.emit('chat/delta-received', { session_id: sid!, text: e.text });
              return;
            case 'tool-call-started':
              events.emit('chat/tool-call-started', {
                session_id: sid!,
                id: e.id,
                name: e.name,
                args: e.args,
              });
              return;
            case 'tool-call-finished':
              events.emit('chat/tool-call-finished', {
                session_id: sid!,
                id: e.id,
                name: e.name,
                ok: e.ok,
                ...(e.skill ? { skill: e.skill } : {}),
                ...(e.artifacts ? { artifacts: e.artifacts } : {}),
                ...(e.trace_ids ? { trace_ids: e.trace_ids } : {}),
              });
              return;
            case 'turn-finished':
              running.delete(e.session_id);
              events.emit('chat/turn-finished', {
                session_id: e.session_id,
                message_id: e.message_id,
                text: e.text,
                status: e.status,
                model_id: modelId,
                input_tokens: e.input_tokens,
                output_tokens: e.output_tokens,
                estimated_cost: e.estimated_cost,
                trace_ids: e.trace_ids,
                skills_used: e.skills_used,
                error: e.error,
                created_at: new Date().toISOString(),
              });
              events.emit('chat/sessions-changed', { reason: 'updated', session_id: e.session_id });
              return;
          }
        };
        runTurn(
          { catalog: deps.catalog.get(), chats, dispatcher: rt.dispatcher, llm, workspace: deps.workspace },
          { message: req.message, session_id: req.session_id, signal: abort.signal },
          emit,
        ).then(
          () => {
            if (sid) running.delete(sid);
          },
          (e: unknown) => {
            if (sid) running.delete(sid);
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
              error: isAppError(e)
                ? e.toData()
                : {
                    code: 'INTERNAL',
                    message: 'The reply failed inside SkillDesk. The details are in the app log.',
                  },
              created_at: new Date().toISOString(),
            });
          },
        );
      });
    },

    'chat/cancel': (req) => {
      const ctl = running.get(req.session_id);
      if (!ctl) return { cancelled: false };
      ctl.abort();
      return { cancelled: true };
    },

    'chat/list-sessions': (req) => {
      const store = readStore();
      if (!store) return { sessions: [] };
      return { sessions: new ChatStore(store.db).listSessions(req.limit ?? 200).map(toSessionView) };
    },

    'chat/get-session': (req) => {
      const store = readStore();
      const chats = store ? new ChatStore(store.db) : null;
      const session = chats?.getSession(req.session_id);
      if (!chats || !session) throw notFound(req.session_id);
      return { session: toSessionView(session), messages: chats.listMessages(session.id).map(toMessageView) };
    },

    'chat/delete-session': (req) => {
      const store = readStore();
      const chats = store ? new ChatStore(store.db) : null;
      const session = chats?.getSession(req.session_id);
      if (!chats || !session) throw notFound(req.session_id);
      running.get(session.id)?.abort();
      chats.deleteSession(session.id);
      deps.events.emit('chat/sessions-changed', { reason: 'deleted', session_id: session.id });
      return { deleted: { id: session.id, title: session.title } };
    },

    'chat/rename-session': (req) => {
      const store = readStore();
      const chats = store ? new ChatStore(store.db) : null;
      const session = chats?.renameSession(req.session_id, req.title);
      if (!session) throw notFound(req.session_id);
      deps.events.emit('chat/sessions-changed', { reason: 'renamed', session_id: session.id });
      return { session: toSessionView(session) };
    },
  } satisfies HandlersFor<'chat'>;

  return {
    handlers,
    async dispose() {
      for (const ctl of running.values()) ctl.abort();
      running.clear();
      const rt = runtime?.rt;
      runtime = null;
      await rt?.dispose();
    },
  };
}
