export { type DenseProgress, denseText } from './dense.js';
export { E5_ADDON_FILE, E5_MODEL_FILE, type E5Status, e5Disabled, e5Engine, e5Status } from './e5.js';
export * from './full-match.js';
export * from './handlers.js';
export * from './phase1.js';
export { stopScanThread } from './scan-thread.js';
export * from './skill-index.js';
export * from './term-budget.js';
export * from './text.js';
