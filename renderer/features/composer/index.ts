/** The Skill Composer: create, edit, validate, test-run and version skills. */
export { ComposerView } from './ComposerView.js';
export { docKey } from './composer-state.js';
export { type ComposerStore, createComposerStore } from './composer-store.js';
