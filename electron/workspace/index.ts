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
