export * from './trace-store.js';
