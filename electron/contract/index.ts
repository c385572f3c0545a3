export * from './app.js';
export * from './channels.js';
export * from './chat.js';
export * from './code.js';
export * from './errors.js';
export * from './settings.js';
export * from './sidecar.js';
export * from './skills.js';
export * from './traces.js';
export * from './composer.js';
export * from './tools.js'; // issue 16
export * from './evals.js';
