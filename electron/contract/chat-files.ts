/**
 * The folder of a chat: the files a chat works on (its attachments, every file a `run_python` run
 * wrote, files the user dropped in), kept across turns, exported and deleted with the chat. Paths
 * are relative to the folder, `/`-separated; each segment is a plain name (no `..`, nothing hidden,
 * no control characters), so no request can name a file outside it.
 */
import { z } from 'zod';

/** Largest file the folder takes from the user (an upload). */
export const MAX_CHAT_FILE_BYTES = 25 * 1024 * 1024;
/** Most files a chat's folder holds. */
export const MAX_CHAT_FILES = 500;
/** Largest total size of a chat's folder. */
export const MAX_CHAT_FOLDER_BYTES = 250 * 1024 * 1024;
/** Longest path (characters) and deepest nesting of a file in the folder. */
export const MAX_CHAT_FILE_PATH = 400;
export const MAX_CHAT_FILE_DEPTH = 6;

/** Why a path may not name a file in a chat's folder, or null when it may. */
export function chatFilePathProblem(path: string): string | null {
  if (typeof path !== 'string' || path.length === 0) return 'is empty';
  if (path.length > MAX_CHAT_FILE_PATH) return `is longer than ${MAX_CHAT_FILE_PATH} characters`;
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return 'must be relative to the chat’s folder';
  if (path.includes('\\')) return 'must use / between folders';
  const parts = path.split('/');
  if (parts.length > MAX_CHAT_FILE_DEPTH) return `is nested deeper than ${MAX_CHAT_FILE_DEPTH} folders`;
  for (const p of parts) {
    if (p === '' || p === '.' || p === '..') return 'has an empty, "." or ".." part';
    if (p.startsWith('.')) return `names a hidden file or folder ("${p}")`;
    // Control characters, and the characters Windows refuses in a name.
    if (/[\u0000-\u001f\u007f<>:"|?*]/.test(p)) return `has a character a file name cannot have ("${p}")`;
    if (p.length > 200) return 'has a name longer than 200 characters';
    if (/[ .]$/.test(p)) return `has a name ending in a space or a dot ("${p}")`;
  }
  return null;
}

/** A path inside a chat's folder (see {@link chatFilePathProblem}). */
export const ChatFilePathSchema = z.string().superRefine((p, ctx) => {
  const why = chatFilePathProblem(p);
  if (why) ctx.addIssue({ code: 'custom', message: `the file path ${why}` });
});

const sessionId = z.string().trim().min(1, 'must not be empty').max(100);

/** One file of a chat's folder. */
export interface ChatFileView {
  /** Relative to the folder (`sales.csv`, `out/chart.png`). */
  name: string;
  size: number;
  media_type: string;
  /** Last change, ISO 8601. */
  modified_at: string;
}

/** `chat/list-files`: the files of a chat's folder. */
export const ListChatFilesReqSchema = z.object({ session_id: sessionId }).strict();
/** Request of `chat/list-files`. */
export type ListChatFilesReq = z.infer<typeof ListChatFilesReqSchema>;
/** Reply of `chat/list-files`, sorted by name. */
export interface ListChatFilesRes {
  files: ChatFileView[];
  total_bytes: number;
}

/** `chat/read-file`: one file's bytes. */
export const ReadChatFileReqSchema = z.object({ session_id: sessionId, name: ChatFilePathSchema }).strict();
/** Request of `chat/read-file`. */
export type ReadChatFileReq = z.infer<typeof ReadChatFileReqSchema>;
/** Reply of `chat/read-file`: the bytes, base64. */
export interface ReadChatFileRes extends ChatFileView {
  data_base64: string;
}

/** `chat/delete-file`: remove one file from the folder. */
export const DeleteChatFileReqSchema = z.object({ session_id: sessionId, name: ChatFilePathSchema }).strict();
/** Request of `chat/delete-file`. */
export type DeleteChatFileReq = z.infer<typeof DeleteChatFileReqSchema>;
/** Reply of `chat/delete-file`. */
export interface DeleteChatFileRes {
  deleted: boolean;
}

/** `chat/upload-file`: put a file the user dropped in into the folder (a same name is replaced). */
export const UploadChatFileReqSchema = z
  .object({
    session_id: sessionId,
    /** A plain file name; folders in it are kept, anything unsafe is refused. */
    name: ChatFilePathSchema,
    data_base64: z
      .string()
      .max(Math.ceil(MAX_CHAT_FILE_BYTES / 3) * 4 + 4, `the file is larger than ${MAX_CHAT_FILE_BYTES} bytes`)
      .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64'),
  })
  .strict();
/** Request of `chat/upload-file`. */
export type UploadChatFileReq = z.infer<typeof UploadChatFileReqSchema>;
/** Reply of `chat/upload-file`. */
export interface UploadChatFileRes {
  file: ChatFileView;
}

/** A folder of this machine granted to a chat's runs, read-only at `inputs/<name>/`. */
export interface GrantedFolder {
  /** The name runs see it under (its folder name). */
  name: string;
  /** Its real path on this machine. */
  path: string;
}

/** `chat/list-folders`: the folders granted to a chat. */
export const ListChatFoldersReqSchema = z.object({ session_id: sessionId }).strict();
/** Request of `chat/list-folders`. */
export type ListChatFoldersReq = z.infer<typeof ListChatFoldersReqSchema>;
/** Reply of `chat/list-folders` (and of granting or revoking one), sorted by name. */
export interface ListChatFoldersRes {
  session_id: string;
  folders: GrantedFolder[];
}

/** `chat/grant-folder`: let the chat's runs read a folder of this machine (read-only). */
export const GrantChatFolderReqSchema = z
  .object({ session_id: sessionId, path: z.string().trim().min(1, 'give a folder').max(4096) })
  .strict();
/** Request of `chat/grant-folder`. */
export type GrantChatFolderReq = z.infer<typeof GrantChatFolderReqSchema>;

/** `chat/revoke-folder`: take a granted folder back, by its name. */
export const RevokeChatFolderReqSchema = z
  .object({ session_id: sessionId, name: z.string().min(1).max(255) })
  .strict();
/** Request of `chat/revoke-folder`. */
export type RevokeChatFolderReq = z.infer<typeof RevokeChatFolderReqSchema>;

/** The runtimes `run_python` can run in. */
export const PYTHON_RUNTIMES = ['pyodide', 'full'] as const;
/** A `run_python` runtime: Pyodide (WebAssembly) or Full Python (CPython in an OS sandbox). */
export type PythonRuntimeName = (typeof PYTHON_RUNTIMES)[number];

/** The channels of a chat's folder. */
export interface ChatFilesChannels {
  'chat/list-files': { req: ListChatFilesReq; res: ListChatFilesRes };
  'chat/read-file': { req: ReadChatFileReq; res: ReadChatFileRes };
  'chat/delete-file': { req: DeleteChatFileReq; res: DeleteChatFileRes };
  'chat/upload-file': { req: UploadChatFileReq; res: UploadChatFileRes };
  'chat/list-folders': { req: ListChatFoldersReq; res: ListChatFoldersRes };
  'chat/grant-folder': { req: GrantChatFolderReq; res: ListChatFoldersRes };
  'chat/revoke-folder': { req: RevokeChatFolderReq; res: ListChatFoldersRes };
}

/** The request schemas of a chat's folder. */
export const chatFilesRequestSchemas = {
  'chat/list-files': ListChatFilesReqSchema,
  'chat/read-file': ReadChatFileReqSchema,
  'chat/delete-file': DeleteChatFileReqSchema,
  'chat/upload-file': UploadChatFileReqSchema,
  'chat/list-folders': ListChatFoldersReqSchema,
  'chat/grant-folder': GrantChatFolderReqSchema,
  'chat/revoke-folder': RevokeChatFolderReqSchema,
};
