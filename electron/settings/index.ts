export * from './handlers.js';
export * from './secrets.js';
export * from './settings-file.js';
export * from './skill-access.js';
