// Skill sources: git repositories and HTTP catalogs a store subscribes to, checked, scanned and
// installed only when the user accepts.
export { catalogUrlProblem, fetchCatalog } from './catalog.js';
export { discoverPackages } from './discover.js';
export { fetchGit, gitRefProblem, gitUrlProblem, SourceUnreachable } from './git.js';
export {
  backgroundChecksEnabled,
  createSourcesHandlers,
  type SourcesHandlerDeps,
  startBackgroundChecks,
} from './handlers.js';
export {
  describePermissions,
  diffPermissions,
  packagePermissions,
  type SkillPermissions,
} from './permissions.js';
export { assertPinned, describeMismatch, type PinMismatch, pinMismatch } from './pin.js';
export { ensureSourceTables, listRecords, recordOf, skillDigests } from './records.js';
export {
  needsRiskAcceptance,
  type ScanFinding,
  type ScanReport,
  scanPackage,
  showInvisible,
} from './scan.js';
export {
  type AddSourceInput,
  acceptUpdates,
  addSource,
  type CheckResult,
  checkSource,
  lastCheck,
  listSourceViews,
  type PinProblem,
  removeSource,
  type SkillCheck,
  type SourcesContext,
  type SourceView,
  type UpdateInput,
  type UpdateResult,
  verifyPins,
} from './sources.js';
