export { checkWorkspaceFolder, completeFolder, expandHome } from './folders.js';
export { createWorkspaceHandlers, type WorkspaceHandlerDeps } from './handlers.js';
export { type LivePages, type LivePagesDeps, startLivePages } from './live-pages.js';
export {
  extractLinks,
  type IndexOptions,
  type IndexReport,
  indexWorkspacePages,
  parseFrontmatter,
  slugify,
  type WorkspacePage,
  type WorkspacePageSummary,
  WorkspacePages,
  type WorkspaceRevision,
  type WorkspaceSearchHit,
} from './pages.js';
export { openRecentWorkspaces, type RecentWorkspaces } from './recent.js';
