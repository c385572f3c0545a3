export * from './assertions.js';
export * from './code-handlers.js';
export * from './dispatcher.js';
export * from './handlers.js';
export * from './prompt-engine.js';
export * from './runtime.js';
export * from './types.js';
export * from './variants.js';
