import type { SkillArtifact } from '../store/index.js';
import { KINDS } from './index.js';

/**
 * Which of a run's chosen artifacts (one variant each, in ordinal order) execute, as their kinds
 * say: an artifact another one hides (a `dspy_module`'s fallback template) runs only through that
 * one; a kind that takes over (an LLM skill) runs alone. `all` is every artifact of the skill.
 */
export function runnableArtifacts(chosen: SkillArtifact[], all: readonly SkillArtifact[]): SkillArtifact[] {
  const hidden = new Set(
    all.flatMap((a) => (KINDS[a.kind].hides?.(a) ?? []).map((h) => `${h.kind}\0${h.name}`)),
  );
  const runs = chosen.filter((a) => !hidden.has(`${a.kind}\0${a.name}`));
  const alone = runs.filter((a) => KINDS[a.kind].takes_over === true);
  return alone.length > 0 ? alone : runs;
}
