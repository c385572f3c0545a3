import { createStore, type StoreApi } from 'zustand/vanilla';
import type { EventPayload } from '../../../electron/contract/channels.js';
import type {
  AttachmentInput,
  AttachmentView,
  ChatMessageView,
  ChatModelChoice,
  ChatSessionView,
  ChatUsageView,
  ExportSessionRes,
  InFlightView,
  InvokeSkill,
} from '../../../electron/contract/chat.js';
import type { AppErrorData } from '../../../electron/contract/errors.js';
import { type Client, toErrorData } from '../../bridge/client.js';

/** One tool call as the chat shows it. */
export interface UiToolCall {
  id: string;
  name: string;
  args: unknown;
  status: 'running' | 'ok' | 'failed';
  skill?: string;
  artifacts?: string[];
  trace_ids?: string[];
  /** What the tool returned to the model; a failed call's `{error}` says why. */
  result?: unknown;
}

/** One message as the chat shows it; `streaming` while its reply is being written. */
export interface UiMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  status: 'streaming' | 'complete' | 'partial' | 'error';
  tool_calls: UiToolCall[];
  trace_ids: string[];
  model_id: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  estimated_cost: number | null;
  error: AppErrorData | null;
  created_at: string;
  /** The message this one follows (null: the first). */
  parent_id: string | null;
  /** Its alternatives (itself included), oldest first: more than one after an edit or a regeneration. */
  sibling_ids: string[];
  attachments: AttachmentView[];
  /**
   * A user message of a turn seen live: whether the model was given the whole catalog or how many
   * enabled skills were left out of its prompt (not stored with the chat, so absent after a reload).
   */
  listing?: { whole: boolean; unlisted: number };
}

/** The messages of one opened session (the branch shown). */
export interface Thread {
  status: 'loading' | 'ready' | 'error';
  messages: UiMessage[];
  error: AppErrorData | null;
  /** Tokens and cost of every reply in the chat (all branches); null until loaded. */
  usage: ChatUsageView | null;
}

/** Chat state: the session list, the open session, loaded threads and turns in flight. */
export interface ChatState {
  sessions: {
    status: 'idle' | 'loading' | 'ready' | 'error';
    items: ChatSessionView[];
    error: AppErrorData | null;
    /** While a workspace is open: the chats the account keeps outside it. */
    accountChats?: number;
  };
  /** The open session; null is the new-chat screen. */
  activeId: string | null;
  threads: Record<string, Thread>;
  /** Sessions with a reply being written. */
  streaming: Record<string, true>;
  /** A message sent and not yet acknowledged (its session may not exist yet). */
  pending: { client_turn_id: string; session_id: string | null; message: string } | null;
  /** Why the last send, stop, rename or delete failed: shown above the composer until dismissed. */
  sendError: AppErrorData | null;
  /** The model picked on the new-chat screen, sent with the first message (null: Settings'). */
  newChatModel: ChatModelChoice | null;
}

/** Everything that changes the chat state: user intents, replies and the host's stream events. */
export type ChatAction =
  | { type: 'sessions/requested' }
  | { type: 'sessions/loaded'; items: ChatSessionView[]; accountChats?: number }
  | { type: 'sessions/failed'; error: AppErrorData }
  | { type: 'session/opened'; id: string }
  | { type: 'session/new' }
  | { type: 'new-chat/model-picked'; model: ChatModelChoice | null }
  | { type: 'session/deleted'; id: string }
  | { type: 'session/renamed'; session: ChatSessionView }
  | { type: 'thread/requested'; id: string }
  | {
      type: 'thread/loaded';
      id: string;
      messages: ChatMessageView[];
      running: boolean;
      usage?: ChatUsageView;
      in_flight?: InFlightView | null;
    }
  | { type: 'thread/failed'; id: string; error: AppErrorData }
  | { type: 'send/requested'; client_turn_id: string; session_id: string | null; message: string }
  | { type: 'send/accepted'; client_turn_id: string; session_id: string }
  | { type: 'send/failed'; client_turn_id: string; error: AppErrorData }
  | { type: 'send/error-dismissed' }
  | { type: 'action/failed'; error: AppErrorData }
  | { type: 'turn/started'; e: EventPayload<'chat/turn-started'> }
  | { type: 'turn/delta'; e: EventPayload<'chat/delta-received'> }
  | { type: 'turn/tool-started'; e: EventPayload<'chat/tool-call-started'> }
  | { type: 'turn/tool-finished'; e: EventPayload<'chat/tool-call-finished'> }
  | { type: 'turn/finished'; e: EventPayload<'chat/turn-finished'> };

/** The chat before anything is loaded. */
export function initialChatState(): ChatState {
  return {
    sessions: { status: 'idle', items: [], error: null },
    activeId: null,
    threads: {},
    streaming: {},
    pending: null,
    sendError: null,
    newChatModel: null,
  };
}

/** A stored message as the chat shows it. */
export function toUiMessage(m: ChatMessageView): UiMessage {
  return {
    id: m.id,
    role: m.role,
    content: m.content,
    status: m.status,
    tool_calls: m.tool_calls.map((c) => ({
      id: c.id,
      name: c.name,
      args: c.args,
      status: c.ok ? 'ok' : 'failed',
      skill: c.skill,
      artifacts: c.artifacts,
      trace_ids: c.trace_ids,
      result: c.result,
    })),
    trace_ids: m.trace_ids,
    model_id: m.model_id,
    input_tokens: m.input_tokens,
    output_tokens: m.output_tokens,
    estimated_cost: m.estimated_cost,
    error: m.error,
    created_at: m.created_at,
    parent_id: m.parent_id,
    sibling_ids: m.sibling_ids,
    attachments: m.attachments,
  };
}

/** The placeholder of a reply being written. */
function streamingReply(sessionId: string, at: string): UiMessage {
  return {
    id: `streaming:${sessionId}`,
    role: 'assistant',
    content: '',
    status: 'streaming',
    tool_calls: [],
    trace_ids: [],
    model_id: null,
    input_tokens: null,
    output_tokens: null,
    estimated_cost: null,
    error: null,
    created_at: at,
    parent_id: null,
    sibling_ids: [],
    attachments: [],
  };
}

/** The placeholder of a reply that was already being written when its chat was opened. */
function resumedReply(sessionId: string, flight: InFlightView): UiMessage {
  return {
    ...streamingReply(sessionId, new Date().toISOString()),
    content: flight.text,
    tool_calls: flight.tool_calls.map((c) => ({
      id: c.id,
      name: c.name,
      args: c.args,
      status: !c.finished ? 'running' : c.ok ? 'ok' : 'failed',
      skill: c.skill,
      artifacts: c.artifacts,
      trace_ids: c.trace_ids,
      result: c.result,
    })),
  };
}

/**
 * The branch a new turn continues: the messages up to its parent (an edit or a regeneration
 * starts a new branch there; the old one stays on the host, reachable by the switcher).
 */
function cutAt(messages: UiMessage[], parentId: string | null, keepId?: string): UiMessage[] {
  const keep = keepId ? messages.findIndex((m) => m.id === keepId) : -1;
  if (keep >= 0) return messages.slice(0, keep + 1);
  if (parentId === null) return [];
  const i = messages.findIndex((m) => m.id === parentId);
  return i >= 0 ? messages.slice(0, i + 1) : messages;
}

function titleOf(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 57)}…` : line;
}

/** Update the reply being written in a session (no-op when that thread is not loaded). */
function updateStreaming(s: ChatState, sessionId: string, f: (m: UiMessage) => UiMessage): ChatState {
  const thread = s.threads[sessionId];
  if (!thread) return s;
  const i = thread.messages.findLastIndex((m) => m.status === 'streaming');
  if (i < 0) return s;
  const messages = thread.messages.slice();
  messages[i] = f(messages[i]!);
  return { ...s, threads: { ...s.threads, [sessionId]: { ...thread, messages } } };
}

function without<T>(rec: Record<string, T>, key: string): Record<string, T> {
  if (!(key in rec)) return rec;
  const { [key]: _, ...rest } = rec;
  return rest;
}

/** Adopt the session of an acknowledged send: the new-chat screen becomes that session. */
function adopt(s: ChatState, clientTurnId: string | null, sessionId: string): ChatState {
  if (!s.pending || s.pending.client_turn_id !== clientTurnId) return s;
  const wasNew = s.pending.session_id === null;
  return {
    ...s,
    pending: null,
    activeId: wasNew && s.activeId === null ? sessionId : s.activeId,
    threads: s.threads[sessionId]
      ? s.threads
      : { ...s.threads, [sessionId]: { status: 'ready', messages: [], error: null, usage: null } },
  };
}

/** Count a finished reply's tokens and cost in its chat's totals. */
function addUsage(s: ChatState, e: EventPayload<'chat/turn-finished'>): ChatState {
  const thread = s.threads[e.session_id];
  if (!thread || !e.model_id) return s;
  // A chat started in this window counts from zero; one loaded from the host starts from its totals.
  const u = thread.usage ?? { input_tokens: 0, output_tokens: 0, estimated_cost: null };
  const usage: ChatUsageView = {
    input_tokens: u.input_tokens + e.input_tokens,
    output_tokens: u.output_tokens + e.output_tokens,
    estimated_cost: e.estimated_cost == null ? u.estimated_cost : (u.estimated_cost ?? 0) + e.estimated_cost,
  };
  return { ...s, threads: { ...s.threads, [e.session_id]: { ...thread, usage } } };
}

/** Pure transitions of the chat. */
export function chatReducer(s: ChatState, a: ChatAction): ChatState {
  switch (a.type) {
    case 'sessions/requested':
      return {
        ...s,
        sessions: { ...s.sessions, status: s.sessions.status === 'ready' ? 'ready' : 'loading' },
      };
    case 'sessions/loaded':
      return {
        ...s,
        sessions: { status: 'ready', items: a.items, error: null, accountChats: a.accountChats },
      };
    case 'sessions/failed':
      return { ...s, sessions: { ...s.sessions, status: 'error', error: a.error } };
    case 'session/opened':
      return { ...s, activeId: a.id, sendError: null };
    case 'session/new':
      return { ...s, activeId: null, sendError: null, newChatModel: null };
    case 'new-chat/model-picked':
      return { ...s, newChatModel: a.model };
    case 'session/deleted':
      return {
        ...s,
        activeId: s.activeId === a.id ? null : s.activeId,
        threads: without(s.threads, a.id),
        streaming: without(s.streaming, a.id),
        sessions: { ...s.sessions, items: s.sessions.items.filter((i) => i.id !== a.id) },
      };
    case 'session/renamed':
      return {
        ...s,
        sessions: {
          ...s.sessions,
          items: s.sessions.items.map((i) =>
            i.id === a.session.id ? { ...i, title: a.session.title, model: a.session.model } : i,
          ),
        },
      };
    case 'thread/requested':
      return {
        ...s,
        threads: {
          ...s.threads,
          [a.id]: {
            status: 'loading',
            messages: s.threads[a.id]?.messages ?? [],
            error: null,
            usage: s.threads[a.id]?.usage ?? null,
          },
        },
      };
    case 'thread/loaded': {
      // A reply already streaming into this thread is kept; one running elsewhere starts from what
      // the host has of it so far.
      const live = s.threads[a.id]?.messages.find((m) => m.status === 'streaming');
      const messages = a.messages.map(toUiMessage);
      const running = a.running || s.streaming[a.id];
      if (running)
        messages.push(
          live ??
            (a.in_flight ? resumedReply(a.id, a.in_flight) : streamingReply(a.id, new Date().toISOString())),
        );
      return {
        ...s,
        threads: {
          ...s.threads,
          [a.id]: {
            status: 'ready',
            messages,
            error: null,
            usage: a.usage ?? s.threads[a.id]?.usage ?? null,
          },
        },
        streaming: running ? { ...s.streaming, [a.id]: true } : s.streaming,
      };
    }
    case 'thread/failed':
      return {
        ...s,
        threads: { ...s.threads, [a.id]: { status: 'error', messages: [], error: a.error, usage: null } },
      };
    case 'send/requested':
      return {
        ...s,
        sendError: null,
        pending: { client_turn_id: a.client_turn_id, session_id: a.session_id, message: a.message },
      };
    case 'send/accepted':
      // The new chat now keeps the model it was sent with.
      return { ...adopt(s, a.client_turn_id, a.session_id), newChatModel: null };
    case 'send/failed':
      if (s.pending?.client_turn_id !== a.client_turn_id) return s;
      return { ...s, pending: null, sendError: a.error };
    case 'send/error-dismissed':
      return { ...s, sendError: null };
    case 'action/failed':
      return { ...s, sendError: a.error };
    case 'turn/started': {
      const e = a.e;
      let next = adopt(s, e.client_turn_id, e.session_id);
      next = { ...next, streaming: { ...next.streaming, [e.session_id]: true } };
      if (!next.sessions.items.some((i) => i.id === e.session_id)) {
        const item: ChatSessionView = {
          id: e.session_id,
          title: titleOf(e.message),
          created_at: e.created_at,
          updated_at: e.created_at,
          message_count: 1,
          running: true,
          model: null,
        };
        next = { ...next, sessions: { ...next.sessions, items: [item, ...next.sessions.items] } };
      }
      const thread = next.threads[e.session_id];
      if (!thread) return next;
      if (e.regenerated) {
        // The question stays; the reply after it is written again.
        const kept = cutAt(thread.messages, e.parent_id, e.user_message_id);
        const messages = [...kept, streamingReply(e.session_id, e.created_at)];
        return { ...next, threads: { ...next.threads, [e.session_id]: { ...thread, messages } } };
      }
      if (thread.messages.some((m) => m.id === e.user_message_id)) return next;
      const user: UiMessage = {
        ...streamingReply(e.session_id, e.created_at),
        id: e.user_message_id,
        role: 'user',
        content: e.message,
        status: 'complete',
        parent_id: e.parent_id,
        sibling_ids: [e.user_message_id],
        attachments: e.attachments,
        ...(e.listing ? { listing: e.listing } : {}),
      };
      const before = cutAt(thread.messages, e.parent_id);
      return {
        ...next,
        threads: {
          ...next.threads,
          [e.session_id]: {
            ...thread,
            messages: [...before, user, streamingReply(e.session_id, e.created_at)],
          },
        },
      };
    }
    case 'turn/delta':
      return updateStreaming(s, a.e.session_id, (m) => ({ ...m, content: m.content + a.e.text }));
    case 'turn/tool-started':
      return updateStreaming(s, a.e.session_id, (m) => ({
        ...m,
        tool_calls: [...m.tool_calls, { id: a.e.id, name: a.e.name, args: a.e.args, status: 'running' }],
      }));
    case 'turn/tool-finished': {
      const e = a.e;
      return updateStreaming(s, e.session_id, (m) => ({
        ...m,
        tool_calls: m.tool_calls.map((c) =>
          c.id === e.id
            ? {
                ...c,
                status: e.ok ? 'ok' : 'failed',
                skill: e.skill,
                artifacts: e.artifacts,
                trace_ids: e.trace_ids,
                result: e.result,
              }
            : c,
        ),
      }));
    }
    case 'turn/finished': {
      const e = a.e;
      const finish = (m: UiMessage): UiMessage => ({
        ...m,
        id: e.message_id || m.id,
        content: e.text || m.content,
        status: e.status,
        trace_ids: e.trace_ids,
        model_id: e.model_id,
        input_tokens: e.model_id ? e.input_tokens : null,
        output_tokens: e.model_id ? e.output_tokens : null,
        estimated_cost: e.estimated_cost,
        error: e.error,
        // Calls that never reported back (cancelled mid-call) did not finish.
        tool_calls: m.tool_calls.map((c) => (c.status === 'running' ? { ...c, status: 'failed' } : c)),
      });
      const next = addUsage(
        updateStreaming({ ...s, streaming: without(s.streaming, e.session_id) }, e.session_id, finish),
        e,
      );
      return {
        ...next,
        sessions: {
          ...next.sessions,
          items: next.sessions.items.map((i) => (i.id === e.session_id ? { ...i, running: false } : i)),
        },
      };
    }
  }
}

/** The chat with its actions. */
export interface ChatStore extends ChatState {
  loadSessions(): Promise<void>;
  openSession(id: string): Promise<void>;
  newChat(): void;
  /**
   * Send a message in the open session (a new one on the new-chat screen), with attached text files
   * and a skill invoked by name. Resolves true when accepted.
   */
  send(message: string, extra?: { attachments?: AttachmentInput[]; skill?: InvokeSkill }): Promise<boolean>;
  /** Write a reply again (the old one stays, reachable with the branch switcher). */
  regenerate(replyId: string): Promise<boolean>;
  /** Replace one of the user's messages and answer it (the old branch stays). */
  editAndResend(messageId: string, message: string): Promise<boolean>;
  /** Show the branch through `messageId` (a sibling from the switcher). */
  switchBranch(messageId: string): Promise<void>;
  /** The open chat as a file to save; null (the reason shown) when it failed. */
  exportSession(format: 'md' | 'json'): Promise<ExportSessionRes | null>;
  /** Choose the open chat's model (null: follow Settings). */
  setModel(model: ChatModelChoice | null): Promise<boolean>;
  /** Stop the reply being written in the open session. */
  cancel(): Promise<void>;
  /** Answer again the message a failed reply answered. */
  retry(replyId: string): Promise<boolean>;
  /** Delete a session; resolves false (the reason shown to the user) when it failed. */
  deleteSession(id: string): Promise<boolean>;
  /** Rename a session; resolves false (the reason shown to the user) when it failed. */
  renameSession(id: string, title: string): Promise<boolean>;
  dismissError(): void;
  /** Stop listening to the host's events. */
  dispose(): void;
}

let turnCounter = 0;
function newTurnId(): string {
  turnCounter += 1;
  const rnd = globalThis.crypto?.randomUUID?.() ?? Math.random().toString(36).slice(2);
  return `t${turnCounter}-${rnd}`;
}

/** Create the chat store; it listens to the `chat/*` events from the start. */
export function createChatStore(client: Client): StoreApi<ChatStore> {
  return createStore<ChatStore>()((set, get) => {
    const dispatch = (a: ChatAction) => set((s) => chatReducer(s, a));
    let refreshQueued = false;
    const refreshSessions = () => {
      if (refreshQueued) return;
      refreshQueued = true;
      queueMicrotask(() => {
        refreshQueued = false;
        void get().loadSessions();
      });
    };
    // Deltas arrive faster than a screen refreshes: they are joined and applied once per frame,
    // and always before any other event of the turn, so the order of everything stays the same.
    const deltas = new Map<string, string>();
    let flushTimer: ReturnType<typeof setTimeout> | null = null;
    const flush = () => {
      if (flushTimer !== null) clearTimeout(flushTimer);
      flushTimer = null;
      if (deltas.size === 0) return;
      const batch = [...deltas];
      deltas.clear();
      set((s) =>
        batch.reduce<ChatState>(
          (acc, [session_id, text]) => chatReducer(acc, { type: 'turn/delta', e: { session_id, text } }),
          s,
        ),
      );
    };
    const onDelta = (e: EventPayload<'chat/delta-received'>) => {
      deltas.set(e.session_id, (deltas.get(e.session_id) ?? '') + e.text);
      flushTimer ??= setTimeout(flush, 16);
    };
    const after = (a: ChatAction) => {
      flush();
      dispatch(a);
    };
    const branched = new Set<string>();
    const lastId = (sessionId: string) =>
      get()
        .threads[sessionId]?.messages.filter((m) => m.status !== 'streaming')
        .at(-1)?.id ?? null;
    const loadThread = async (id: string) => {
      try {
        const r = await client.invoke('chat/get-session', { session_id: id });
        // Deltas that arrived before the reply are in its `in_flight` text already.
        flush();
        dispatch({
          type: 'thread/loaded',
          id,
          messages: r.messages,
          running: r.session.running,
          usage: r.usage,
          in_flight: r.in_flight,
        });
      } catch (e) {
        dispatch({ type: 'thread/failed', id, error: toErrorData(e) });
      }
    };
    const reload = async (id: string) => {
      if (get().threads[id] && !get().streaming[id]) await loadThread(id);
    };
    const startBranchTurn = async (
      sessionId: string,
      call: (client_turn_id: string) => Promise<{ session_id: string }>,
      message: string,
    ): Promise<boolean> => {
      const s = get();
      if (s.pending || s.streaming[sessionId]) return false;
      const client_turn_id = newTurnId();
      dispatch({ type: 'send/requested', client_turn_id, session_id: sessionId, message });
      try {
        const r = await call(client_turn_id);
        dispatch({ type: 'send/accepted', client_turn_id, session_id: r.session_id });
        return true;
      } catch (e) {
        dispatch({ type: 'send/failed', client_turn_id, error: toErrorData(e) });
        return false;
      }
    };
    const offs = [
      client.subscribe('chat/turn-started', (e) => {
        if (e.regenerated || e.parent_id !== lastId(e.session_id)) branched.add(e.session_id);
        after({ type: 'turn/started', e });
      }),
      client.subscribe('chat/delta-received', onDelta),
      client.subscribe('chat/tool-call-started', (e) => after({ type: 'turn/tool-started', e })),
      client.subscribe('chat/tool-call-finished', (e) => after({ type: 'turn/tool-finished', e })),
      client.subscribe('chat/turn-finished', (e) => {
        after({ type: 'turn/finished', e });
        // A new branch changed its siblings' switchers: read the branch back from the host.
        if (branched.delete(e.session_id)) void reload(e.session_id);
      }),
      client.subscribe('chat/sessions-changed', (e) => {
        if (e.reason === 'deleted') dispatch({ type: 'session/deleted', id: e.session_id });
        refreshSessions();
      }),
    ];
    return {
      ...initialChatState(),
      async loadSessions() {
        dispatch({ type: 'sessions/requested' });
        try {
          const r = await client.invoke('chat/list-sessions', {});
          dispatch({ type: 'sessions/loaded', items: r.sessions, accountChats: r.account_chats });
        } catch (e) {
          dispatch({ type: 'sessions/failed', error: toErrorData(e) });
        }
      },
      async openSession(id) {
        dispatch({ type: 'session/opened', id });
        const thread = get().threads[id];
        if (thread && thread.status !== 'error') return;
        dispatch({ type: 'thread/requested', id });
        await loadThread(id);
      },
      newChat() {
        dispatch({ type: 'session/new' });
      },
      async send(message, extra = {}) {
        const s = get();
        const sessionId = s.activeId;
        if (s.pending || (sessionId && s.streaming[sessionId]) || message.trim() === '') return false;
        const client_turn_id = newTurnId();
        dispatch({ type: 'send/requested', client_turn_id, session_id: sessionId, message });
        try {
          const r = await client.invoke('chat/send-message', {
            message,
            client_turn_id,
            ...(sessionId ? { session_id: sessionId } : {}),
            ...(!sessionId && s.newChatModel ? { model: s.newChatModel } : {}),
            ...(extra.attachments?.length ? { attachments: extra.attachments } : {}),
            ...(extra.skill ? { skill: extra.skill } : {}),
          });
          dispatch({ type: 'send/accepted', client_turn_id, session_id: r.session_id });
          return true;
        } catch (e) {
          dispatch({ type: 'send/failed', client_turn_id, error: toErrorData(e) });
          return false;
        }
      },
      async cancel() {
        const id = get().activeId;
        if (!id || !get().streaming[id]) return;
        const r = await client.call('chat/cancel', { session_id: id });
        if (!r.ok) dispatch({ type: 'action/failed', error: r.error });
      },
      async retry(replyId) {
        return get().regenerate(replyId);
      },
      async regenerate(replyId) {
        const id = get().activeId;
        if (!id) return false;
        return startBranchTurn(
          id,
          (client_turn_id) =>
            client.invoke('chat/regenerate', { session_id: id, message_id: replyId, client_turn_id }),
          '',
        );
      },
      async editAndResend(messageId, message) {
        const id = get().activeId;
        if (!id || message.trim() === '') return false;
        return startBranchTurn(
          id,
          (client_turn_id) =>
            client.invoke('chat/send-message', {
              session_id: id,
              edit_of: messageId,
              message,
              client_turn_id,
            }),
          message,
        );
      },
      async switchBranch(messageId) {
        const id = get().activeId;
        if (!id || get().streaming[id]) return;
        const r = await client.call('chat/switch-branch', { session_id: id, message_id: messageId });
        if (!r.ok) {
          dispatch({ type: 'action/failed', error: r.error });
          return;
        }
        dispatch({
          type: 'thread/loaded',
          id,
          messages: r.value.messages,
          running: r.value.session.running,
          usage: r.value.usage,
          in_flight: r.value.in_flight,
        });
      },
      async exportSession(format) {
        const id = get().activeId;
        if (!id) return null;
        const r = await client.call('chat/export-session', { session_id: id, format });
        if (!r.ok) {
          dispatch({ type: 'action/failed', error: r.error });
          return null;
        }
        return r.value;
      },
      async setModel(model) {
        const id = get().activeId;
        if (!id) {
          dispatch({ type: 'new-chat/model-picked', model });
          return true;
        }
        const r = await client.call('chat/set-model', { session_id: id, model });
        if (!r.ok) {
          dispatch({ type: 'action/failed', error: r.error });
          return false;
        }
        dispatch({ type: 'session/renamed', session: r.value.session });
        return true;
      },
      async deleteSession(id) {
        const r = await client.call('chat/delete-session', { session_id: id });
        if (!r.ok) {
          dispatch({ type: 'action/failed', error: r.error });
          return false;
        }
        dispatch({ type: 'session/deleted', id });
        return true;
      },
      async renameSession(id, title) {
        const r = await client.call('chat/rename-session', { session_id: id, title });
        if (!r.ok) {
          dispatch({ type: 'action/failed', error: r.error });
          return false;
        }
        dispatch({ type: 'session/renamed', session: r.value.session });
        return true;
      },
      dismissError() {
        dispatch({ type: 'send/error-dismissed' });
      },
      dispose() {
        flush();
        for (const off of offs) off();
      },
    };
  });
}
