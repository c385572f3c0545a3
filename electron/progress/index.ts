export {
  createProgressTracker,
  type ProgressHandle,
  type ProgressTracker,
  trackSandboxStarts,
  trackSidecarStarts,
} from './tracker.js';
