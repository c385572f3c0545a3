export {
  createProgressTracker,
  type ProgressHandle,
  type ProgressTracker,
  trackSandboxStarts,
  trackSidecarStarts,
  withProgress,
} from './tracker.js';
