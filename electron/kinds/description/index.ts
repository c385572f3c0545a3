import { textKind } from '../text.js';

/** `description`: says what the skill does; injected as text (SKILL.md's body when nothing else is). */
export const descriptionKind = textKind('description', {
  path: () => null,
  file: (_a, base) => `references/${base}.md`,
  body: () => 3,
});
