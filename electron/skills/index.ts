export * from './agent-skill.js';
export * from './catalog.js';
export * from './convert.js';
export * from './eval-runs.js'; // issue 12
export * from './evals.js';
export * from './export.js';
export * from './handlers.js';
export * from './import.js';
export * from './import-files.js';
export * from './limits.js';
export * from './lint.js';
export * from './open.js';
export * from './package-schema.js';
export * from './seed.js';
export * from './skill-prompts.js'; // issue 12
export * from './version.js';
export * from './version-handlers.js';
export * from './versions.js';
