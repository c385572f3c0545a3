export * from './handlers.js';
export * from './phase1.js';
export { stopScanThread } from './scan-thread.js';
export * from './skill-index.js';
export * from './term-budget.js';
export * from './text.js';
