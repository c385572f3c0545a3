export * from './handlers.js';
export * from './pdf-text.js';
