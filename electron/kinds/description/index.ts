import { textKind } from '../text.js';

/** `description`: says what the skill does; injected as text. */
export const descriptionKind = textKind('description');
