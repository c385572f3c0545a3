// Prompt templates: the MiniJinja engine they render in (a capped, recyclable WebAssembly
// instance), the check of a template's syntax and variables, and the limits on a render.
export * from './prompt-engine.js';
export * from './template-check.js';
