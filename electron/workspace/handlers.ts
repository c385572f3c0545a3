import type { HandlersFor } from '../contract/channels.js';
import { AppError } from '../contract/errors.js';
import type { WorkspaceState } from '../contract/workspace.js';
import { checkWorkspaceFolder, completeFolder } from './folders.js';
import type { RecentWorkspaces } from './recent.js';

/** What the workspace slice needs from the host, which owns the open session. */
export interface WorkspaceHandlerDeps {
  /** The open workspace now. */
  current(): WorkspaceState;
  /** Close the open session and open `path` (a checked absolute folder) or account-only mode. */
  switchTo(path: string | null): Promise<WorkspaceState>;
  /** Index the open workspace's pages now. */
  reindex(): WorkspaceState;
  recent: RecentWorkspaces;
  /** The native folder dialog, where the face has one (the desktop app). */
  pickFolder?: () => Promise<string | null>;
}

/** The `workspace/*` slice. */
export function createWorkspaceHandlers(deps: WorkspaceHandlerDeps) {
  return {
    'workspace/get': () => deps.current(),
    'workspace/open': async (req) => {
      const path = req.path === null ? null : checkWorkspaceFolder(req.path);
      const state = await deps.switchTo(path);
      if (path) deps.recent.touch(path);
      return state;
    },
    'workspace/recent': () => ({ items: deps.recent.list() }),
    'workspace/forget': (req) => ({ items: deps.recent.forget(req.path) }),
    'workspace/complete-path': (req) => ({ items: completeFolder(req.prefix) }),
    'workspace/pick-folder': async () => {
      if (!deps.pickFolder)
        throw new AppError(
          'HANDLER_NOT_AVAILABLE',
          'This window cannot show a folder dialog (web mode): type the folder’s path instead.',
        );
      return { path: await deps.pickFolder() };
    },
    'workspace/reindex': () => {
      if (deps.current().path === null)
        throw new AppError('INVALID_INPUT', 'No workspace is open: open a folder first.');
      return deps.reindex();
    },
  } satisfies HandlersFor<'workspace'>;
}
