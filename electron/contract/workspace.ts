/**
 * The `workspace/*` slice of the API contract: which folder is the open workspace,
 * switching it at run time, recent workspaces, and the state of its indexed Markdown pages.
 */
import { z } from 'zod';

/** A folder path typed or picked by the user: absolute, or starting with `~`. */
const folderPath = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(4096)
  .refine((p) => !p.includes('\0'), 'must not contain NUL');

/** The indexed Markdown pages of the open workspace. */
export interface WorkspacePagesState {
  /** Pages in the index. */
  count: number;
  /** When the folder was last indexed (ISO), or null before the first pass. */
  indexed_at: string | null;
  /** True while a pass runs. */
  indexing: boolean;
  /** True while file changes are watched (false where the OS cannot watch the folder). */
  watching: boolean;
  /** Why the last pass failed, in words, or null. */
  error: string | null;
}

/** The open workspace, or account-only mode (`path: null`). */
export interface WorkspaceState {
  /** The absolute workspace folder, or null in account-only mode. */
  path: string | null;
  /** The folder's name (shown in the title bar and sidebar), or null. */
  name: string | null;
  /** Whether this face can show a native folder dialog (the desktop app). */
  can_pick_folder: boolean;
  /** Null in account-only mode. */
  pages: WorkspacePagesState | null;
}

/** One remembered workspace, newest first. */
export interface RecentWorkspace {
  path: string;
  name: string;
  /** When it was last opened (ISO). */
  opened_at: string;
  /** False when the folder has gone (moved, deleted, unmounted). */
  exists: boolean;
}

/** `workspace/get`: the open workspace. */
export const GetWorkspaceReqSchema = z.object({}).strict();
/** Request of `workspace/get`. */
export type GetWorkspaceReq = z.infer<typeof GetWorkspaceReqSchema>;

/**
 * `workspace/open`: make a folder the workspace (null: account-only). The old session's runs and
 * turns stop, its stores close; skills, chats, pages and traces then come from the new one.
 */
export const OpenWorkspaceReqSchema = z.object({ path: folderPath.nullable() }).strict();
/** Request of `workspace/open`. */
export type OpenWorkspaceReq = z.infer<typeof OpenWorkspaceReqSchema>;

/** `workspace/recent`: remembered workspaces, newest first. */
export const RecentWorkspacesReqSchema = z.object({}).strict();
/** Request of `workspace/recent`. */
export type RecentWorkspacesReq = z.infer<typeof RecentWorkspacesReqSchema>;
/** Reply of `workspace/recent` and `workspace/forget`. */
export interface RecentWorkspacesRes {
  items: RecentWorkspace[];
}

/** `workspace/forget`: drop a folder from the recent list (its files are not touched). */
export const ForgetWorkspaceReqSchema = z.object({ path: folderPath }).strict();
/** Request of `workspace/forget`. */
export type ForgetWorkspaceReq = z.infer<typeof ForgetWorkspaceReqSchema>;

/** `workspace/complete-path`: folders whose path starts with what was typed (web mode's path field). */
export const CompletePathReqSchema = z.object({ prefix: z.string().max(4096) }).strict();
/** Request of `workspace/complete-path`. */
export type CompletePathReq = z.infer<typeof CompletePathReqSchema>;
/** Reply of `workspace/complete-path`: at most 50 folders, sorted by name. */
export interface CompletePathRes {
  items: Array<{ path: string; name: string }>;
}

/** `workspace/pick-folder`: the native folder dialog (desktop only; `null` when cancelled). */
export const PickFolderReqSchema = z.object({}).strict();
/** Request of `workspace/pick-folder`. */
export type PickFolderReq = z.infer<typeof PickFolderReqSchema>;
/** Reply of `workspace/pick-folder`. */
export interface PickFolderRes {
  path: string | null;
}

/** `workspace/reindex`: index the workspace's Markdown pages now. */
export const ReindexWorkspaceReqSchema = z.object({}).strict();
/** Request of `workspace/reindex`. */
export type ReindexWorkspaceReq = z.infer<typeof ReindexWorkspaceReqSchema>;

/** The `workspace/*` channels. */
export interface WorkspaceChannels {
  'workspace/get': { req: GetWorkspaceReq; res: WorkspaceState };
  'workspace/open': { req: OpenWorkspaceReq; res: WorkspaceState };
  'workspace/recent': { req: RecentWorkspacesReq; res: RecentWorkspacesRes };
  'workspace/forget': { req: ForgetWorkspaceReq; res: RecentWorkspacesRes };
  'workspace/complete-path': { req: CompletePathReq; res: CompletePathRes };
  'workspace/pick-folder': { req: PickFolderReq; res: PickFolderRes };
  'workspace/reindex': { req: ReindexWorkspaceReq; res: WorkspaceState };
}

/** The `workspace/*` events: a switch, or a change of the pages index. */
export interface WorkspaceEvents {
  'workspace/changed': WorkspaceState & { reason: 'opened' | 'pages-indexed' };
}

/** Request schemas of the `workspace/*` channels. */
export const workspaceRequestSchemas = {
  'workspace/get': GetWorkspaceReqSchema,
  'workspace/open': OpenWorkspaceReqSchema,
  'workspace/recent': RecentWorkspacesReqSchema,
  'workspace/forget': ForgetWorkspaceReqSchema,
  'workspace/complete-path': CompletePathReqSchema,
  'workspace/pick-folder': PickFolderReqSchema,
  'workspace/reindex': ReindexWorkspaceReqSchema,
};
