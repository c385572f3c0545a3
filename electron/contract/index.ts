export * from './app.js';
export * from './channels.js';
export * from './errors.js';
export * from './skills.js';
