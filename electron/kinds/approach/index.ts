import { textKind } from '../text.js';

/**
 * `approach`: instructions injected while the skill is active (an Agent Skills SKILL.md body: an
 * imported one, which keeps its author's header, before any other).
 */
export const approachKind = textKind('approach', {
  path: () => null,
  file: (_a, base) => `references/${base}.md`,
  body: (a) => (typeof a.metadata?.frontmatter === 'string' ? 1 : 2),
});
