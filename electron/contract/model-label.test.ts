import { describe, expect, it } from 'vitest';
import { modelLabel } from './model-label.js';

const providers = [
  { id: 'alpha', label: 'Alpha' },
  { id: 'openai-compatible', label: 'OpenAI-compatible server' },
];

describe('modelLabel', () => {
  it("names a stored model id by its provider's label", () => {
    expect(modelLabel('alpha:alpha-small', providers)).toBe('Alpha · alpha-small');
    // Model names may hold colons themselves (Ollama tags): only the first one splits.
    expect(modelLabel('openai-compatible:llama3.2:3b', providers)).toBe(
      'OpenAI-compatible server · llama3.2:3b',
    );
  });
  it('keeps a bare model name and says when the provider is gone', () => {
    expect(modelLabel('gpt-4o-mini', providers)).toBe('gpt-4o-mini');
    expect(modelLabel('gone:m1', providers)).toBe('m1 (provider "gone", since removed)');
    expect(modelLabel(null, providers)).toBeNull();
  });
  it('shows the model alone while the providers are not known', () => {
    expect(modelLabel('alpha:alpha-small', null)).toBe('alpha-small');
  });
});
