/**
 * The `chat/*` slice of the API contract: sessions, messages and the streamed turn. A turn is
 * started by `chat/send-message`, which replies as soon as the user message is stored; the reply
 * then arrives as `chat/*` events, each carrying `session_id` so a window routes it.
 */
import { z } from 'zod';
import type { AppErrorData } from './errors.js';
import type { SkillMatchView } from './skills.js';

const sessionId = z.string().trim().min(1, 'must not be empty').max(100);

/** Longest message the API accepts. */
export const MAX_MESSAGE_CHARS = 100_000;

/** Knobs of one turn: tool rounds and how memory is recalled. */
export const TurnSettingsSchema = z
  .object({
    max_tool_rounds: z.number().int().min(1).max(10_000).optional(),
    memory: z
      .object({
        /** `workspace`: every session of the store; `session`: the current one only. */
        scope: z.enum(['workspace', 'session']).optional(),
        limit: z.number().int().min(1).max(100_000).optional(),
        /** Least relevance recalled, in [0, 1). */
        min_score: z.number().min(0).lt(1).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
/** Knobs of one turn. */
export type TurnSettingsView = z.infer<typeof TurnSettingsSchema>;

/** `chat/send-message`: start a turn (a new session when `session_id` is absent). */
export const SendMessageReqSchema = z
  .object({
    session_id: sessionId.optional(),
    message: z
      .string()
      .max(MAX_MESSAGE_CHARS, `must be at most ${MAX_MESSAGE_CHARS} characters`)
      .refine((s) => s.trim() !== '', 'must not be empty'),
    /** Chosen by the caller and echoed in `chat/turn-started`, so it can adopt a new session's id. */
    client_turn_id: z.string().max(100).optional(),
    /** Knobs of this turn (defaults: 10 tool rounds, workspace memory, 5 memories, min score 0.3). */
    settings: TurnSettingsSchema.optional(),
  })
  .strict();
/** Request of `chat/send-message`. */
export type SendMessageReq = z.infer<typeof SendMessageReqSchema>;
/** Reply of `chat/send-message`: the turn has started; its events follow (or already came). */
export interface SendMessageRes {
  session_id: string;
  user_message_id: string;
}

/** `chat/cancel`: stop the turn in flight in a session (its partial reply is kept). */
export const CancelTurnReqSchema = z.object({ session_id: sessionId }).strict();
/** Request of `chat/cancel`. */
export type CancelTurnReq = z.infer<typeof CancelTurnReqSchema>;
/** Reply of `chat/cancel`: false when no turn was running. */
export interface CancelTurnRes {
  cancelled: boolean;
}

/** `chat/list-sessions`: most recently active first. */
export const ListSessionsReqSchema = z
  .object({ limit: z.number().int().min(1).max(100_000).optional() })
  .strict();
/** Request of `chat/list-sessions`. */
export type ListSessionsReq = z.infer<typeof ListSessionsReqSchema>;
/** One session as the sidebar lists it. */
export interface ChatSessionView {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
  message_count: number;
  /** A turn is running in it right now. */
  running: boolean;
}
/** Reply of `chat/list-sessions`. */
export interface ListSessionsRes {
  sessions: ChatSessionView[];
}

/** `chat/get-session`: a session with every message. */
export const GetSessionReqSchema = z.object({ session_id: sessionId }).strict();
/** Request of `chat/get-session`. */
export type GetSessionReq = z.infer<typeof GetSessionReqSchema>;

/** One tool call the model made during a reply. */
export interface ToolCallView {
  id: string;
  name: string;
  args: unknown;
  ok: boolean;
  /** The skill it ran or read, when the tool is a skill tool. */
  skill?: string;
  artifacts?: string[];
  trace_ids?: string[];
  /** What the tool returned to the model (for a failed call, `{error}` says why). */
  result?: unknown;
}

/** One stored message. */
export interface ChatMessageView {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  /** `partial`: cancelled with what had streamed; `error`: the reply failed (see `error`). */
  status: 'complete' | 'partial' | 'error';
  tool_calls: ToolCallView[];
  trace_ids: string[];
  /** `provider:model` of a reply, null without a model. */
  model_id: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  estimated_cost: number | null;
  /** Why a reply failed or was cancelled. */
  error: AppErrorData | null;
  created_at: string;
}
/** Reply of `chat/get-session`. */
export interface GetSessionRes {
  session: ChatSessionView;
  messages: ChatMessageView[];
}

/** `chat/delete-session`: remove a session and its messages (its traces stay). */
export const DeleteSessionReqSchema = z.object({ session_id: sessionId }).strict();
/** Request of `chat/delete-session`. */
export type DeleteSessionReq = z.infer<typeof DeleteSessionReqSchema>;
/** Reply of `chat/delete-session`. */
export interface DeleteSessionRes {
  deleted: { id: string; title: string };
}

/** `chat/rename-session`: set a session's title. */
export const RenameSessionReqSchema = z
  .object({ session_id: sessionId, title: z.string().trim().min(1, 'must not be empty').max(120) })
  .strict();
/** Request of `chat/rename-session`. */
export type RenameSessionReq = z.infer<typeof RenameSessionReqSchema>;
/** Reply of `chat/rename-session`. */
export interface RenameSessionRes {
  session: ChatSessionView;
}

/** The `chat/*` channels. */
export interface ChatChannels {
  'chat/send-message': { req: SendMessageReq; res: SendMessageRes };
  'chat/cancel': { req: CancelTurnReq; res: CancelTurnRes };
  'chat/list-sessions': { req: ListSessionsReq; res: ListSessionsRes };
  'chat/get-session': { req: GetSessionReq; res: GetSessionRes };
  'chat/delete-session': { req: DeleteSessionReq; res: DeleteSessionRes };
  'chat/rename-session': { req: RenameSessionReq; res: RenameSessionRes };
}

/** Request schemas of the `chat/*` channels. */
export const chatRequestSchemas = {
  'chat/send-message': SendMessageReqSchema,
  'chat/cancel': CancelTurnReqSchema,
  'chat/list-sessions': ListSessionsReqSchema,
  'chat/get-session': GetSessionReqSchema,
  'chat/delete-session': DeleteSessionReqSchema,
  'chat/rename-session': RenameSessionReqSchema,
};

/** A turn began: the user message is stored. */
export interface TurnStartedEvent {
  session_id: string;
  user_message_id: string;
  /** The user's message as stored. */
  message: string;
  new_session: boolean;
  client_turn_id: string | null;
  /** Skills in the model's index for this message (phase-1). */
  matches: SkillMatchView[];
  /** How many earlier messages were recalled as memory. */
  memory: number;
  created_at: string;
}

/** A piece of the reply's text. */
export interface DeltaReceivedEvent {
  session_id: string;
  text: string;
}

/** The model called a tool. */
export interface ToolCallStartedEvent {
  session_id: string;
  id: string;
  name: string;
  args: unknown;
}

/** A tool call ended (ok or not). */
export interface ToolCallFinishedEvent {
  session_id: string;
  id: string;
  name: string;
  ok: boolean;
  skill?: string;
  artifacts?: string[];
  trace_ids?: string[];
  /** What the tool returned to the model (for a failed call, `{error}` says why). */
  result?: unknown;
}

/** The reply is complete, cancelled (`partial`) or failed (`error`), and stored. */
export interface TurnFinishedEvent {
  session_id: string;
  message_id: string;
  text: string;
  status: 'complete' | 'partial' | 'error';
  model_id: string | null;
  input_tokens: number;
  output_tokens: number;
  estimated_cost: number | null;
  trace_ids: string[];
  skills_used: string[];
  error: AppErrorData | null;
  created_at: string;
}

/** The `chat/*` events. */
export interface ChatEvents {
  'chat/turn-started': TurnStartedEvent;
  'chat/delta-received': DeltaReceivedEvent;
  'chat/tool-call-started': ToolCallStartedEvent;
  'chat/tool-call-finished': ToolCallFinishedEvent;
  'chat/turn-finished': TurnFinishedEvent;
  /** Sessions were added, renamed or deleted. */
  'chat/sessions-changed': { reason: 'created' | 'renamed' | 'deleted' | 'updated'; session_id: string };
}
