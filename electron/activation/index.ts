export * from './phase1.js';
export * from './term-budget.js';
