export * from './atomic-file.js';
export * from './db.js';
export * from './paths.js';
export * from './skill-name.js';
export * from './skill-repository.js';
export * from './storage-errors.js';
export * from './stores.js';
export * from './write-transaction.js';
