/**
 * The `tools/*` slice of the API contract: the MCP servers chat uses (the `mcp.json`
 * files in the `mcpServers` shape), their live state, and approvals before a tool with side
 * effects runs. An approval is a request from the host to a window: `tools/approval-requested`
 * carries an id, `tools/answer-approval` answers it; no answer before `expires_at` denies.
 */
import { z } from 'zod';

/**
 * The server name approvals of skills go under (`tools/revoke-approval` takes it too). No MCP server
 * may have it (in any case), or its tools would share the skills' remembered approvals.
 */
export const SKILL_SERVER = 'skill';

/**
 * The server name approvals of SkillDesk's own tools with effects (`run_python`) go under; reserved
 * like {@link SKILL_SERVER}.
 */
export const BUILTIN_TOOL_SERVER = 'skilldesk';

/** Why a server name is refused, or null when it may be used. */
export function reservedServerName(name: string): string | null {
  const n = name.trim().toLowerCase();
  if (n === SKILL_SERVER)
    return `the name "${SKILL_SERVER}" is reserved for SkillDesk's skills (their approvals are kept under it); rename the server`;
  if (n === BUILTIN_TOOL_SERVER)
    return `the name "${BUILTIN_TOOL_SERVER}" is reserved for SkillDesk's own tools (their approvals are kept under it); rename the server`;
  return null;
}

const serverName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, 'use letters, digits, spaces, dots, dashes and underscores');
/** A name a server may be saved under. */
const newServerName = serverName.refine((n) => reservedServerName(n) === null, {
  message: `"${SKILL_SERVER}" and "${BUILTIN_TOOL_SERVER}" are reserved for SkillDesk; choose another name`,
});
const scope = z.enum(['workspace', 'account']);

/** One server's configuration, as in `mcp.json` (stdio: command; HTTP: url). */
export const McpServerConfigSchema = z.union([
  z
    .object({
      command: z.string().trim().min(1, 'must not be empty').max(2000),
      args: z.array(z.string().max(10_000)).max(200).optional(),
      env: z
        .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'not a variable name'), z.string().max(10_000))
        .optional(),
      cwd: z.string().max(2000).optional(),
      disabled: z.boolean().optional(),
    })
    // Keys other apps write (type, timeout, …) are kept as they are.
    .passthrough(),
  z
    .object({
      url: z.string().url('must be an http(s) URL').max(2000),
      headers: z.record(z.string().min(1).max(200), z.string().max(10_000)).optional(),
      disabled: z.boolean().optional(),
    })
    // Keys other apps write (type, timeout, …) are kept as they are.
    .passthrough(),
]);
/** One server's configuration. */
export type McpServerConfigView = z.infer<typeof McpServerConfigSchema>;

/** MCP tool annotations (hints from the server, not guarantees). */
export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** One tool of a server. */
export interface McpToolView {
  name: string;
  title: string | null;
  description: string | null;
  input_schema: Record<string, unknown>;
  annotations: McpToolAnnotations | null;
}

/** A server's live state in this app. */
export interface McpServerStatusView {
  name: string;
  scope: 'workspace' | 'account';
  /** `sse`: an older server reached through the HTTP+SSE fallback. */
  transport: 'stdio' | 'http' | 'sse';
  state: 'idle' | 'connecting' | 'ready' | 'failed';
  /** Why it failed, in words. */
  error: string | null;
  /** When the next restart is tried (ISO time), while failed. */
  retry_at: string | null;
  restarts: number;
  tools: number;
  /** The process id of a running stdio server. */
  pid: number | null;
}

/** A configured server as Settings → Tools lists it. */
export interface McpServerView {
  name: string;
  scope: 'workspace' | 'account';
  config: McpServerConfigView;
  /** An account server hidden by a workspace one of the same name. */
  overridden: boolean;
  status: McpServerStatusView | null;
}

/** `tools/list-servers`: the configured servers of both scopes. */
export const ListServersReqSchema = z.object({}).strict();
/** Reply of `tools/list-servers`. */
export interface ListServersRes {
  servers: McpServerView[];
  /** The `mcp.json` files (workspace null without a workspace). */
  files: { account: string; workspace: string | null };
  /** Set when a file could not be read; says which and why. */
  error: string | null;
}

/** `tools/save-server`: add or replace a server (renaming when `previous_name` differs). */
export const SaveServerReqSchema = z
  .object({
    scope,
    name: newServerName,
    previous_name: serverName.optional(),
    config: McpServerConfigSchema,
  })
  .strict();
/** Request of `tools/save-server`. */
export type SaveServerReq = z.infer<typeof SaveServerReqSchema>;

/** `tools/remove-server`. */
export const RemoveServerReqSchema = z.object({ scope, name: serverName }).strict();
/** Request of `tools/remove-server`. */
export type RemoveServerReq = z.infer<typeof RemoveServerReqSchema>;

/** `tools/test-server`: connect once and list what the server offers (a saved one, or a draft config). */
export const TestServerReqSchema = z
  .object({
    name: serverName,
    config: McpServerConfigSchema.optional(),
    timeout_ms: z.number().int().min(100).max(300_000).optional(),
  })
  .strict();
/** Request of `tools/test-server`. */
export type TestServerReq = z.infer<typeof TestServerReqSchema>;
/** Reply of `tools/test-server`. */
export interface TestServerRes {
  name: string;
  server: { name: string; version: string } | null;
  tools: Array<{ name: string; description: string | null; input_schema: unknown; annotations: unknown }>;
  resources: Array<{ uri: string; name: string; mime_type: string | null }>;
  prompts: Array<{ name: string; description: string | null; arguments: unknown }>;
  took_ms: number;
}

/** `tools/read-resource`: a server resource as a message attachment (text within the limits). */
export const ReadResourceReqSchema = z
  .object({
    server: serverName,
    uri: z.string().min(1).max(4000),
    /** The name the resource was listed under (the attachment's name; default: the URI's end). */
    name: z.string().trim().min(1).max(255).optional(),
  })
  .strict();
/** Request of `tools/read-resource`. */
export type ReadResourceReq = z.infer<typeof ReadResourceReqSchema>;
/**
 * Reply of `tools/read-resource`: ready to send as an attachment — `text` for a text resource,
 * `data` (base64 of a PNG, JPEG, GIF or WebP image) for an image.
 */
export type ReadResourceRes =
  | { name: string; media_type: string; text: string }
  | { name: string; media_type: string; data: string };

// Attach a resource of an MCP server to a message.
/** One resource an enabled server lists. */
export interface McpResourceView {
  server: string;
  uri: string;
  name: string;
  title: string | null;
  description: string | null;
  mime_type: string | null;
  /** Bytes, when the server says. */
  size: number | null;
}
/** `tools/list-resources`: the resources of every enabled server. */
export const ListResourcesReqSchema = z.object({}).strict();
/** Reply of `tools/list-resources`: servers that could not list theirs are in `failed`. */
export interface ListResourcesRes {
  resources: McpResourceView[];
  failed: Array<{ server: string; error: string }>;
}

// The prompts of connected MCP servers, offered in the chat's `/` menu.
/** One argument of a server's prompt. */
export interface McpPromptArgumentView {
  name: string;
  title: string | null;
  description: string | null;
  required: boolean;
}
/** One prompt an enabled server lists. */
export interface McpPromptView {
  server: string;
  name: string;
  title: string | null;
  description: string | null;
  arguments: McpPromptArgumentView[];
}
/** `tools/list-prompts`: the prompts of every enabled server. */
export const ListPromptsReqSchema = z.object({}).strict();
/** Reply of `tools/list-prompts`: servers that could not list theirs are in `failed`. */
export interface ListPromptsRes {
  prompts: McpPromptView[];
  failed: Array<{ server: string; error: string }>;
}
/** `tools/get-prompt`: a server's prompt filled with the user's arguments. */
export const GetPromptReqSchema = z
  .object({
    server: serverName,
    name: z.string().min(1).max(500),
    arguments: z.record(z.string().max(200), z.string().max(100_000)).default({}),
  })
  .strict();
/** Request of `tools/get-prompt`. */
export type GetPromptReq = z.input<typeof GetPromptReqSchema>;
/** One message of a filled prompt, as text (a part that is not text is named in brackets). */
export interface McpPromptMessageView {
  role: 'user' | 'assistant';
  text: string;
}
/** Reply of `tools/get-prompt`. */
export interface GetPromptRes {
  description: string | null;
  messages: McpPromptMessageView[];
}

/** How a user answers an approval. */
export const ApprovalDecisionSchema = z.enum(['once', 'chat', 'always', 'deny']);
/** `once`, `chat` (this chat), `always` (this tool, remembered per workspace) or `deny`. */
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

/** A tool call waiting for the user's approval. */
export interface ApprovalRequestedEvent {
  approval_id: string;
  session_id: string;
  /** The tool call's id in the turn. */
  call_id: string | null;
  /** The name the model called. */
  tool: string;
  /** The tool's own name and its server (`skill` for a skill's artifacts). */
  server: string;
  server_tool: string;
  title: string | null;
  description: string | null;
  args: unknown;
  annotations: McpToolAnnotations | null;
  /** No answer by then denies. */
  expires_at: string;
}

/** An approval was answered (by a user, or the timeout): windows drop its card. */
export interface ApprovalSettledEvent {
  approval_id: string;
  session_id: string;
  decision: ApprovalDecision;
  /** `user`, `timeout` or `cancelled` (the turn stopped). */
  by: 'user' | 'timeout' | 'cancelled';
}

/** `tools/answer-approval`. */
export const AnswerApprovalReqSchema = z
  .object({ approval_id: z.string().min(1).max(100), decision: ApprovalDecisionSchema })
  .strict();
/** Request of `tools/answer-approval`. */
export type AnswerApprovalReq = z.infer<typeof AnswerApprovalReqSchema>;

/** One remembered "always allow". */
export interface RememberedApprovalView {
  server: string;
  tool: string;
  created_at: string;
}

/** `tools/list-approvals`: remembered approvals of the open workspace and waiting requests. */
export const ListApprovalsReqSchema = z.object({}).strict();
/** Reply of `tools/list-approvals`. */
export interface ListApprovalsRes {
  remembered: RememberedApprovalView[];
  /** Tools annotated read-only run without asking. */
  auto_read_only: boolean;
  pending: ApprovalRequestedEvent[];
}

/** `tools/revoke-approval`: forget an "always allow". */
export const RevokeApprovalReqSchema = z
  .object({ server: z.string().min(1).max(100), tool: z.string().min(1).max(200) })
  .strict();
/** Request of `tools/revoke-approval`. */
export type RevokeApprovalReq = z.infer<typeof RevokeApprovalReqSchema>;

/** `tools/set-auto-read-only`: let read-only-annotated tools run without asking. */
export const SetAutoReadOnlyReqSchema = z.object({ enabled: z.boolean() }).strict();
/** Request of `tools/set-auto-read-only`. */
export type SetAutoReadOnlyReq = z.infer<typeof SetAutoReadOnlyReqSchema>;

/** A running tool call reported progress. */
export interface ToolCallProgressedEvent {
  session_id: string;
  call_id: string;
  progress: number;
  total: number | null;
  message: string | null;
}

/** The channels of this slice. */
export type ToolsChannels = {
  'tools/list-servers': { req: z.infer<typeof ListServersReqSchema>; res: ListServersRes };
  'tools/save-server': { req: SaveServerReq; res: ListServersRes };
  'tools/remove-server': { req: RemoveServerReq; res: ListServersRes };
  'tools/test-server': { req: TestServerReq; res: TestServerRes };
  'tools/read-resource': { req: ReadResourceReq; res: ReadResourceRes };
  'tools/list-resources': { req: z.infer<typeof ListResourcesReqSchema>; res: ListResourcesRes };
  'tools/list-prompts': { req: z.infer<typeof ListPromptsReqSchema>; res: ListPromptsRes };
  'tools/get-prompt': { req: GetPromptReq; res: GetPromptRes };
  'tools/answer-approval': { req: AnswerApprovalReq; res: { answered: boolean } };
  'tools/list-approvals': { req: z.infer<typeof ListApprovalsReqSchema>; res: ListApprovalsRes };
  'tools/revoke-approval': { req: RevokeApprovalReq; res: ListApprovalsRes };
  'tools/set-auto-read-only': { req: SetAutoReadOnlyReq; res: ListApprovalsRes };
};

/** The request schemas of this slice. */
export const toolsRequestSchemas = {
  'tools/list-servers': ListServersReqSchema,
  'tools/save-server': SaveServerReqSchema,
  'tools/remove-server': RemoveServerReqSchema,
  'tools/test-server': TestServerReqSchema,
  'tools/read-resource': ReadResourceReqSchema,
  'tools/list-resources': ListResourcesReqSchema,
  'tools/list-prompts': ListPromptsReqSchema,
  'tools/get-prompt': GetPromptReqSchema,
  'tools/answer-approval': AnswerApprovalReqSchema,
  'tools/list-approvals': ListApprovalsReqSchema,
  'tools/revoke-approval': RevokeApprovalReqSchema,
  'tools/set-auto-read-only': SetAutoReadOnlyReqSchema,
};

/** The events of this slice. */
export type ToolsEvents = {
  'tools/approval-requested': ApprovalRequestedEvent;
  'tools/approval-settled': ApprovalSettledEvent;
  'tools/call-progressed': ToolCallProgressedEvent;
  'tools/server-status-changed': McpServerStatusView;
};
