export * from './assertions.js';
export * from './code-handlers.js';
export * from './dispatcher.js';
export * from './dspy-upgrade.js'; // issue 12
export * from './eval-handlers.js';
export * from './handlers.js';
export * from './prompt-engine.js';
export * from './runtime.js';
export * from './skill-run-handlers.js';
export * from './types.js';
export * from './variants.js';
