export * from './db.js';
export * from './paths.js';
export * from './skill-name.js';
export * from './skill-repository.js';
export * from './stores.js';
