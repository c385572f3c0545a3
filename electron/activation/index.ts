export * from './phase1.js';
