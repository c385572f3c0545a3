import { textKind } from '../text.js';

/** `resource`: a bundled file read on demand; a file of its own in an Agent Skills folder. */
export const resourceKind = textKind('resource', (a) =>
  typeof a.metadata?.path === 'string' ? a.metadata.path : null,
);
