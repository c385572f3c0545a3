export { createRunRegistry, type RunRegistry, type TrackedRun } from './run-registry.js';
export {
  type ColdStartMemory,
  createProgressTracker,
  fileColdStartMemory,
  type ProgressHandle,
  type ProgressTracker,
  trackSandboxStarts,
  trackSidecarStarts,
  withProgress,
} from './tracker.js';
