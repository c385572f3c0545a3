export * from './app.js';
export * from './channels.js';
export * from './chat.js';
export * from './code.js';
export * from './composer.js';
export * from './errors.js';
export * from './evals.js';
export * from './settings.js';
export * from './sidecar.js';
export * from './skills.js';
export * from './tools.js'; // issue 16
export * from './traces.js';
