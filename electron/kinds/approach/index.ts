import { textKind } from '../text.js';

/** `approach`: instructions injected while the skill is active (an Agent Skills SKILL.md body). */
export const approachKind = textKind('approach');
