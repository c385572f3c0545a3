export * from './chat-store.js';
export * from './engine.js';
export * from './eval-turn.js';
export * from './handlers.js';
export * from './prompt.js';
export { createPythonHandlers } from './python-handlers.js';
export * from './tools.js';
