import type { ComposeRoundView, DraftIssueView } from '../../../../electron/contract/composer.js';

/** One check's problem in words a user can act on; the raw message stays for the details. */
export function issueInWords(i: DraftIssueView): string {
  switch (i.stage) {
    case 'json':
      return 'The reply was not a skill package in JSON (cut off, or written as prose).';
    case 'schema':
      return `A required part is missing or malformed (${i.path}).`;
    case 'template':
      return `The prompt template ${i.path} has a syntax error.`;
    case 'evals':
      return 'The evals are missing or malformed.';
    case 'dry_run':
      return `A dry run failed: ${i.path}.`;
  }
}

/**
 * Why a "New skill with AI" run produced nothing usable, in a sentence or two: what the checks of
 * the last round found, and how often the model missed. Raw parser messages are not for people.
 */
export function explainFailure(rounds: ComposeRoundView[]): string {
  const last = rounds[rounds.length - 1];
  if (!last) return 'The model gave no answer.';
  const n = rounds.length;
  const tries = `${n} ${n === 1 ? 'try' : 'tries'}`;
  const stages = new Set(last.issues.map((i) => i.stage));
  if (rounds.every((r) => r.issues.length > 0 && r.issues.every((i) => i.stage === 'json')))
    return `The model never answered with a skill package it could be read from: after ${tries}, each reply was cut off or not JSON.`;
  const parts: string[] = [];
  if (stages.has('json')) parts.push('its last reply was not JSON');
  if (stages.has('schema')) parts.push('required parts of the package were missing or malformed');
  if (stages.has('template')) parts.push('a prompt template had a syntax error');
  if (stages.has('evals')) parts.push('the evals were missing or malformed');
  if (stages.has('dry_run')) parts.push('a dry run of the evals failed');
  return `After ${tries} the skill still fails its checks: ${parts.join('; ') || 'see the rounds above'}.`;
}

/** Whether a draft has enough to open in the editor and fix by hand (a name and some artifact). */
export function hasUsableDraft(draft: Record<string, unknown> | undefined): boolean {
  return (
    typeof draft?.name === 'string' &&
    draft.name.trim() !== '' &&
    Array.isArray(draft.artifacts) &&
    draft.artifacts.length > 0
  );
}
