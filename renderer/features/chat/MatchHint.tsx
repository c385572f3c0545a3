import type { SkillMatchView } from '../../../electron/contract/skills.js';
import { Icon } from '../../ui/Icon.js';
import { skillKey } from '../skills/skills-store.js';

/** Below this many words a draft shows only skills it names by a trigger phrase. */
const MIN_WORDS = 3;
const SHOWN = 3;

/**
 * The skills worth showing for a draft: none while it is a word or two (every keystroke would
 * reshuffle guesses), except those whose trigger phrase it contains; then the best few.
 */
export function hintedMatches(draft: string, matches: SkillMatchView[]): SkillMatchView[] {
  const words = draft.trim().split(/\s+/).filter(Boolean).length;
  const picked = words >= MIN_WORDS ? matches : matches.filter((m) => m.matched_on.includes('exact_trigger'));
  return picked.slice(0, SHOWN);
}

/** "Skills that would activate" for the draft under the composer. */
export function MatchHint(props: {
  draft: string;
  matches: SkillMatchView[];
  onOpen: (m: SkillMatchView) => void;
}) {
  const shown = hintedMatches(props.draft, props.matches);
  if (shown.length === 0) return null;
  return (
    <section className="hint" aria-label="Skills that would activate">
      <Icon name="sparkle" />
      <span className="hint__label">Skills that would activate</span>
      {shown.map((m) => (
        <button key={skillKey(m)} type="button" className="hint__skill" onClick={() => props.onOpen(m)}>
          {m.name}
          {m.matched_on.includes('exact_trigger') && <span className="hint__exact">trigger</span>}
        </button>
      ))}
    </section>
  );
}
