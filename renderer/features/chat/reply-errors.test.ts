import { describe, expect, it } from 'vitest';
import { formatCost } from '../traces/TraceDetail.js';
import { describeReplyError } from './reply-errors.js';

describe('words for a failed reply and for costs', () => {
  it('names a local model server in plain words, capitalised only at the start of a sentence', () => {
    const unreachable = describeReplyError({
      code: 'LLM_FAILED',
      message: 'fetch failed: ECONNREFUSED 127.0.0.1:11434',
      details: { provider: 'openai-compatible' },
    });
    expect(unreachable.title).toBe('Couldn’t reach your model server');
    const refused = describeReplyError({
      code: 'LLM_FAILED',
      message: 'error (HTTP 500): boom',
      details: { provider: 'openai-compatible', status: 500 },
    });
    expect(refused.title).toBe('Your model server had a problem on its side');
    expect(describeReplyError({ code: 'LLM_FAILED', message: 'fetch failed', details: {} }).title).toBe(
      'Couldn’t reach the provider',
    );
  });

  it('shows a cost only when it is known, with two significant digits below a cent', () => {
    expect(formatCost(null)).toBeNull();
    expect(formatCost(0)).toBeNull();
    expect(formatCost(0.000423)).toBe('$0.00042');
    expect(formatCost(0.1234)).toBe('$0.1234');
  });
});
