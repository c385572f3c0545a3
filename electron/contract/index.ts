export * from './app.js';
export * from './channels.js';
export * from './chat.js';
export * from './errors.js';
export * from './settings.js';
export * from './skills.js';
export * from './traces.js';
