import { textKind } from '../text.js';

/** `example`: a worked example; injected as text. */
export const exampleKind = textKind('example');
