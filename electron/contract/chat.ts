/**
 * The `chat/*` slice of the API contract: sessions, messages and the streamed turn. A turn is
 * started by `chat/send-message`, which replies as soon as the user message is stored; the reply
 * then arrives as `chat/*` events, each carrying `session_id` so a window routes it.
 */
import { z } from 'zod';
import type { AppErrorData } from './errors.js';
import { ProviderRefSchema } from './settings.js';
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

// ---- chat features (attachments, branches, a skill by name, model per chat) ----

/** Most files one message may carry. */
export const MAX_ATTACHMENTS = 10;
/** Largest text file attached (bytes of UTF-8). */
export const MAX_ATTACHMENT_BYTES = 512 * 1024;
/** Largest sum of a message's attachments (bytes of UTF-8). */
export const MAX_ATTACHMENTS_TOTAL_BYTES = 2 * 1024 * 1024;

const utf8Bytes = (s: string) => new TextEncoder().encode(s).length;

// ---- image attachments ----
/** Largest image attached (bytes of the file). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Largest sum of a message's images (bytes of the files; base64 on the wire stays under the transport's 24 MiB). */
export const MAX_IMAGES_TOTAL_BYTES = 12 * 1024 * 1024;
/** Image types a model may be sent. */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
/** One of {@link IMAGE_MEDIA_TYPES}. */
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

/** True for a media type SkillDesk sends as an image. */
export function isImageMediaType(t: string): t is ImageMediaType {
  return (IMAGE_MEDIA_TYPES as readonly string[]).includes(t);
}

/** The image type its first bytes say (PNG, JPEG, GIF, WebP), or null. */
export function sniffImage(b: Uint8Array): ImageMediaType | null {
  const at = (i: number, ...xs: number[]) => xs.every((x, k) => b[i + k] === x);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (at(0, 0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (at(0, 0x47, 0x49, 0x46, 0x38) && (b[4] === 0x37 || b[4] === 0x39) && b[5] === 0x61) return 'image/gif';
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return 'image/webp';
  return null;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** Bytes a base64 string decodes to. */
export function base64Bytes(data: string): number {
  const pad = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - pad;
}
/** The first bytes of a base64 string, decoded (enough for {@link sniffImage}). */
function base64Head(data: string): Uint8Array {
  const bin = atob(data.slice(0, 24));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}
const attachmentBytes = (a: { text?: string; data?: string }) =>
  a.data !== undefined ? base64Bytes(a.data) : utf8Bytes(a.text ?? '');

/**
 * A file sent with a message. A text file (`text`) goes into the model's context and to skills
 * (`attachments`); an image (`data`, base64 of a PNG, JPEG, GIF or WebP file, checked by its
 * first bytes) goes to models that read images, never to skills.
 */
export const AttachmentInputSchema = z
  .object({
    name: z.string().trim().min(1, 'must not be empty').max(255),
    media_type: z.string().trim().max(100),
    text: z.string().optional(),
    data: z.string().optional(),
    /**
     * The file itself, kept by `attachments/store-file` or `attachments/read-pdf` (its SHA-256):
     * scripts get it as `inputs/<name>`. Alone for a file with no text to read (a workbook), or
     * beside the text the model reads (a PDF's).
     */
    file: z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'must be the SHA-256 the app gave when it kept the file')
      .optional(),
  })
  .strict()
  .superRefine((a, ctx) => {
    const fail = (message: string, path: string) => ctx.addIssue({ code: 'custom', message, path: [path] });
    if (a.text === undefined && a.data === undefined && a.file !== undefined) return;
    if ((a.text === undefined) === (a.data === undefined)) {
      fail(
        `${a.name}: send either \`text\` (a text file), \`data\` (an image, base64) or \`file\` (a file the app kept)`,
        'text',
      );
      return;
    }
    if (a.text !== undefined) {
      if (a.media_type.startsWith('image/'))
        fail(
          `${a.name}: images go as \`data\` (base64 of a PNG, JPEG, GIF or WebP file), not as text`,
          'media_type',
        );
      else if (utf8Bytes(a.text) > MAX_ATTACHMENT_BYTES)
        fail(
          `is larger than ${MAX_ATTACHMENT_BYTES / 1024} KiB: attach a smaller file or an excerpt`,
          'text',
        );
      return;
    }
    const data = a.data ?? '';
    if (!isImageMediaType(a.media_type)) {
      fail(
        `${a.name}: ${a.media_type || 'this type'} can’t be sent as an image; attach a PNG, JPEG, GIF or WebP file`,
        'media_type',
      );
      return;
    }
    if (data.length % 4 !== 0 || !BASE64.test(data)) {
      fail(`${a.name}: \`data\` is not valid base64`, 'data');
      return;
    }
    if (base64Bytes(data) > MAX_IMAGE_BYTES) {
      fail(`${a.name} is larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MiB: send a smaller image`, 'data');
      return;
    }
    const sniffed = sniffImage(base64Head(data));
    if (sniffed === null)
      fail(`${a.name} is not a PNG, JPEG, GIF or WebP image (its contents say otherwise)`, 'data');
    else if (sniffed !== a.media_type)
      fail(`${a.name} says ${a.media_type} but its contents are ${sniffed}`, 'media_type');
  });
/** One attachment as sent. */
export type AttachmentInput = z.infer<typeof AttachmentInputSchema>;
/** One attachment as a stored message shows it (its text or image goes to the model, not to the list). */
export interface AttachmentView {
  name: string;
  media_type: string;
  size: number;
}

const attachments = z
  .array(AttachmentInputSchema)
  .max(MAX_ATTACHMENTS, `at most ${MAX_ATTACHMENTS} files per message`)
  .refine(
    (a) =>
      a.filter((x) => x.data === undefined).reduce((n, x) => n + attachmentBytes(x), 0) <=
      MAX_ATTACHMENTS_TOTAL_BYTES,
    `together larger than ${MAX_ATTACHMENTS_TOTAL_BYTES / 1024 / 1024} MiB: send fewer or smaller files`,
  )
  .refine(
    (a) =>
      a.filter((x) => x.data !== undefined).reduce((n, x) => n + attachmentBytes(x), 0) <=
      MAX_IMAGES_TOTAL_BYTES,
    `images together larger than ${MAX_IMAGES_TOTAL_BYTES / 1024 / 1024} MiB: send fewer or smaller images`,
  );

/** A skill run by name before the model answers (the input's `/` menu), with its variables. */
export const InvokeSkillSchema = z
  .object({
    name: z.string().trim().min(1, 'must not be empty').max(200),
    variables: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
/** A skill invoked by name. */
export type InvokeSkill = z.infer<typeof InvokeSkillSchema>;

/** The model a chat uses: a configured provider's id (or, in older chats, a provider kind) and a model. */
export interface ChatModelChoice {
  provider: string;
  model: string;
}
const modelChoice = z
  .object({ provider: ProviderRefSchema, model: z.string().trim().min(1, 'must not be empty').max(200) })
  .strict();

/** `chat/send-message`: start a turn (a new session when `session_id` is absent). */
export const SendMessageReqSchema = z
  .object({
    session_id: sessionId.optional(),
    /**
     * Edit and resend: the id of an earlier user message this one replaces. The new message
     * starts a branch beside it; the older branch is kept.
     */
    edit_of: z.string().trim().min(1).max(100).optional(),
    attachments: attachments.optional(),
    skill: InvokeSkillSchema.optional(),
    message: z
      .string()
      .max(MAX_MESSAGE_CHARS, `must be at most ${MAX_MESSAGE_CHARS} characters`)
      .refine((s) => s.trim() !== '', 'must not be empty'),
    /** Chosen by the caller and echoed in `chat/turn-started`, so it can adopt a new session's id. */
    client_turn_id: z.string().max(100).optional(),
    /** Knobs of this turn (defaults: 10 tool rounds, workspace memory, 5 memories, min score 0.3). */
    settings: TurnSettingsSchema.optional(),
    /**
     * The chat's own model from this message on (as `chat/set-model`): how a new chat gets its
     * model before its first message. Absent: the chat's model, else Settings'.
     */
    model: modelChoice.optional(),
    /**
     * The runtime `run_python` uses in this turn: Pyodide (default) or Full Python (CPython in the
     * OS sandbox, where the build has it).
     */
    python: z.enum(['pyodide', 'full']).optional(),
  })
  .strict();
/** Request of `chat/send-message`. */
export type SendMessageReq = z.infer<typeof SendMessageReqSchema>;
/**
 * `chat/prepare`: the draft of a chat, as it stands after an edit. The turn's prompt (matched
 * skills, recalled memory) is built now and kept, so sending the same text while nothing changed
 * only stores it and reads the conversation. Best effort: a send never depends on it.
 */
export const PrepareTurnReqSchema = z
  .object({
    session_id: sessionId.optional(),
    message: z
      .string()
      .max(MAX_MESSAGE_CHARS, `must be at most ${MAX_MESSAGE_CHARS} characters`)
      .refine((s) => s.trim() !== '', 'must not be empty'),
    settings: TurnSettingsSchema.optional(),
  })
  .strict();
/** Request of `chat/prepare`. */
export type PrepareTurnReq = z.infer<typeof PrepareTurnReqSchema>;
/** Reply of `chat/prepare`. */
export interface PrepareTurnRes {
  /** Skills the prompt names (phase-1 matches); the send reports the same. */
  matches: number;
  /** Earlier messages recalled as memory. */
  memory: number;
}
/** `chat/regenerate`: answer again the user message a reply answered; the old reply stays as a sibling. */
export const RegenerateReqSchema = z
  .object({
    session_id: sessionId,
    /** The reply to write again. */
    message_id: z.string().trim().min(1).max(100),
    client_turn_id: z.string().max(100).optional(),
    settings: TurnSettingsSchema.optional(),
  })
  .strict();
/** Request of `chat/regenerate`. */
export type RegenerateReq = z.infer<typeof RegenerateReqSchema>;

/** `chat/switch-branch`: show the branch through a message (its newest continuation). */
export const SwitchBranchReqSchema = z
  .object({ session_id: sessionId, message_id: z.string().trim().min(1).max(100) })
  .strict();
/** Request of `chat/switch-branch` (the reply is `chat/get-session`'s). */
export type SwitchBranchReq = z.infer<typeof SwitchBranchReqSchema>;

/** `chat/search`: messages of every chat matching the words typed (all required; `word*` a prefix). */
export const SearchMessagesReqSchema = z
  .object({
    query: z.string().max(500, 'must be at most 500 characters'),
    limit: z.number().int().min(1).max(500).optional(),
  })
  .strict();
/** Request of `chat/search`. */
export type SearchMessagesReq = z.infer<typeof SearchMessagesReqSchema>;
/** One message found. */
export interface MessageHitView {
  session_id: string;
  session_title: string;
  message_id: string;
  role: 'user' | 'assistant';
  /** The matching passage; matched words are between `[` and `]`. */
  snippet: string;
  created_at: string;
}
/** Reply of `chat/search`, best first. */
export interface SearchMessagesRes {
  hits: MessageHitView[];
}

/** Formats a chat exports to. */
export const EXPORT_FORMATS = ['md', 'json'] as const;
/** `chat/export-session`: the chat as Markdown (the branch shown) or JSON (every branch). */
export const ExportSessionReqSchema = z
  .object({ session_id: sessionId, format: z.enum(EXPORT_FORMATS) })
  .strict();
/** Request of `chat/export-session`. */
export type ExportSessionReq = z.infer<typeof ExportSessionReqSchema>;
/** Reply of `chat/export-session`: the file to save. */
export interface ExportSessionRes {
  filename: string;
  media_type: 'text/markdown' | 'application/json';
  content: string;
}

/** `chat/set-model`: the model a chat uses (null: follow Settings). */
export const SetChatModelReqSchema = z
  .object({ session_id: sessionId, model: modelChoice.nullable() })
  .strict();
/** Request of `chat/set-model`. */
export type SetChatModelReq = z.infer<typeof SetChatModelReqSchema>;
/** Reply of `chat/set-model`. */
export interface SetChatModelRes {
  session: ChatSessionView;
}

/** Tokens and cost summed over a chat's replies (every branch). */
export interface ChatUsageView {
  input_tokens: number;
  output_tokens: number;
  /** USD; null when no reply had a known price. */
  estimated_cost: number | null;
}

/** The reply being written when a chat is opened mid-stream. */
export interface InFlightView {
  text: string;
  /** `finished` false: the call is still running. */
  tool_calls: Array<ToolCallView & { finished: boolean }>;
}

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
  /** The model this chat uses; null follows Settings. */
  model: ChatModelChoice | null;
}
/** Reply of `chat/list-sessions`. */
export interface ListSessionsRes {
  sessions: ChatSessionView[];
  /**
   * While a workspace is open: how many chats the account keeps outside it (they come back in
   * account-only mode), so an empty workspace can say where they are.
   */
  account_chats?: number;
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
  /** The message this one follows; null for the first. */
  parent_id: string | null;
  /** The messages sharing its parent (itself included), oldest first: more than one after an edit or a regeneration. */
  sibling_ids: string[];
  attachments: AttachmentView[];
}
/** Reply of `chat/get-session`: the branch shown. */
export interface GetSessionRes {
  session: ChatSessionView;
  messages: ChatMessageView[];
  usage: ChatUsageView;
  /** The reply being written now, so far; null when no turn is running. */
  in_flight: InFlightView | null;
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

// ---- image attachments ----
/** `chat/get-attachment`: the bytes of one file a stored message carries (the chat list shows only names). */
export const GetAttachmentReqSchema = z
  .object({
    session_id: sessionId,
    message_id: z.string().trim().min(1).max(100),
    /** Its place in the message's `attachments`. */
    index: z
      .number()
      .int()
      .min(0)
      .max(MAX_ATTACHMENTS - 1),
  })
  .strict();
/** Request of `chat/get-attachment`. */
export type GetAttachmentReq = z.infer<typeof GetAttachmentReqSchema>;
/** Reply of `chat/get-attachment`: an image as base64 `data`, a text file as `text`. */
export interface GetAttachmentRes {
  name: string;
  media_type: string;
  size: number;
  data?: string;
  text?: string;
}

/** The `chat/*` channels. */
export interface ChatChannels {
  'chat/send-message': { req: SendMessageReq; res: SendMessageRes };
  'chat/prepare': { req: PrepareTurnReq; res: PrepareTurnRes };
  'chat/cancel': { req: CancelTurnReq; res: CancelTurnRes };
  'chat/list-sessions': { req: ListSessionsReq; res: ListSessionsRes };
  'chat/get-session': { req: GetSessionReq; res: GetSessionRes };
  'chat/delete-session': { req: DeleteSessionReq; res: DeleteSessionRes };
  'chat/rename-session': { req: RenameSessionReq; res: RenameSessionRes };
  // chat features
  'chat/regenerate': { req: RegenerateReq; res: SendMessageRes };
  'chat/switch-branch': { req: SwitchBranchReq; res: GetSessionRes };
  'chat/search': { req: SearchMessagesReq; res: SearchMessagesRes };
  'chat/export-session': { req: ExportSessionReq; res: ExportSessionRes };
  'chat/set-model': { req: SetChatModelReq; res: SetChatModelRes };
  'chat/get-attachment': { req: GetAttachmentReq; res: GetAttachmentRes }; // images
}

/** Request schemas of the `chat/*` channels. */
export const chatRequestSchemas = {
  'chat/send-message': SendMessageReqSchema,
  'chat/prepare': PrepareTurnReqSchema,
  'chat/cancel': CancelTurnReqSchema,
  'chat/list-sessions': ListSessionsReqSchema,
  'chat/get-session': GetSessionReqSchema,
  'chat/delete-session': DeleteSessionReqSchema,
  'chat/rename-session': RenameSessionReqSchema,
  // chat features
  'chat/regenerate': RegenerateReqSchema,
  'chat/switch-branch': SwitchBranchReqSchema,
  'chat/search': SearchMessagesReqSchema,
  'chat/export-session': ExportSessionReqSchema,
  'chat/set-model': SetChatModelReqSchema,
  'chat/get-attachment': GetAttachmentReqSchema, // images
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
  /**
   * How the skills were listed: `whole` when every enabled skill fit the listing budget; else
   * `unlisted` enabled skills were left out of the prompt (the model can still search for them).
   */
  listing?: { whole: boolean; unlisted: number };
  created_at: string;
  /** The message the user message follows (null: the first); the window cuts its branch there. */
  parent_id: string | null;
  /** The user message was already stored: this turn writes its reply again. */
  regenerated: boolean;
  attachments: AttachmentView[];
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
