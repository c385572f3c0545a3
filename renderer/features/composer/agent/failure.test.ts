import { describe, expect, it } from 'vitest';
import type { ComposeRoundView } from '../../../../electron/contract/composer.js';
import { explainFailure, hasUsableDraft, issueInWords } from './failure.js';

const round = (n: number, issues: ComposeRoundView['issues']): ComposeRoundView => ({
  round: n,
  ok: issues.length === 0,
  issues,
  input_tokens: 10,
  output_tokens: 10,
  estimated_cost: null,
  duration_ms: 5,
});
const json = { stage: 'json' as const, path: '(reply)', message: 'Unexpected end of JSON input' };

describe('a failed AI creation in words', () => {
  it('says the model never answered with JSON, without the parser message', () => {
    const text = explainFailure([round(0, [json]), round(1, [json])]);
    expect(text).toContain('after 2 tries, each reply was cut off or not JSON');
    expect(text).not.toContain('Unexpected');
    expect(issueInWords(json)).not.toContain('Unexpected');
  });
  it('names the checks the last round failed', () => {
    const text = explainFailure([
      round(0, [json]),
      round(1, [{ stage: 'template', path: 'Check', message: 'unexpected end of template' }]),
    ]);
    expect(text).toBe(
      'After 2 tries the skill still fails its checks: a prompt template had a syntax error.',
    );
  });
  it('opens only a draft with a name and artifacts', () => {
    expect(hasUsableDraft({})).toBe(false);
    expect(hasUsableDraft({ name: 'X', artifacts: [] })).toBe(false);
    expect(hasUsableDraft({ name: 'X', artifacts: [{}] })).toBe(true);
  });
});
