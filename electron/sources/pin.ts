/**
 * The run-time side of pinning: before a skill installed from a source runs, its stored files are
 * compared with the SHA-256 digests accepted at install. Kept apart from the rest of `sources/`
 * (which reads the tool registry for permissions) so the tools can call it without a cycle.
 */
import { AppError } from '../contract/errors.js';
import type { Skill, SkillStore } from '../store/index.js';
import { changedFiles, recordOf, skillDigests } from './records.js';

/** A skill whose stored content differs from what was accepted from its source. */
export interface PinMismatch {
  source: string;
  revision: string;
  changed_files: string[];
}

/**
 * The mismatch of `skill` in `store`, or null when it matches or did not come from a source. Given
 * a name, the skill (every file) is loaded only when it came from a source.
 */
export function pinMismatch(store: SkillStore | null, skill: Skill | string): PinMismatch | null {
  if (!store) return null;
  const rec = recordOf(store.db, typeof skill === 'string' ? skill : skill.name);
  if (!rec) return null;
  const full = typeof skill === 'string' ? store.repo.getSkillByName(skill) : skill;
  if (!full) return null;
  const changed = changedFiles(rec.files, skillDigests(full).files);
  return changed.length > 0
    ? { source: rec.source_id, revision: rec.revision, changed_files: changed }
    : null;
}

/** The mismatch in words, with what to do about it. */
export function describeMismatch(name: string, m: PinMismatch): string {
  return `Skill "${name}" changed in the store after it was accepted from source ${m.source} (${m.changed_files.join(', ')}). Review it with \`skilldesk sources check ${m.source}\` and accept the upstream version again with \`skilldesk sources update ${m.source} --skill ${name}\`.`;
}

/**
 * Refuse to run `skill` when it changed since it was accepted from its source. For the entry
 * points where nobody can be asked before it runs (`skilldesk run-skill`, the Composer's run of a
 * saved skill, `skills run-script`): a chat asks again instead (`apply_skill`, `run_script`).
 */
export function assertPinned(store: SkillStore | null, skill: Skill, scope: string): void {
  const m = pinMismatch(store, skill);
  if (!m) return;
  throw new AppError('FORBIDDEN', describeMismatch(skill.name, m), {
    reason: 'changed_since_accepted',
    skill: skill.name,
    scope,
    source: m.source,
    revision: m.revision,
    changed_files: m.changed_files,
    accept_with: `skilldesk sources update ${m.source} --skill ${skill.name}`,
  });
}
