export * from './handlers.js';
export * from './trace-store.js';
