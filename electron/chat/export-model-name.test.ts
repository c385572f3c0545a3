import { describe, expect, it } from 'vitest';
import { modelLabel } from '../contract/model-label.js';
import type { BranchMessage, ChatSession } from './chat-store.js';
import { toMarkdown } from './export.js';

describe("the Markdown export names a reply's model by its provider's label", () => {
  it('says "Alpha · alpha-small", not the internal id', () => {
    const session = { id: 's1', title: 'Rain', created_at: '2026-11-28T10:00:00.000Z' } as ChatSession;
    const reply = {
      role: 'assistant',
      content: 'Rain taps the window.',
      status: 'complete',
      model_id: 'alpha:alpha-small',
      input_tokens: 40,
      output_tokens: 6,
      estimated_cost: null,
      attachments: [],
      tool_calls: [],
      error: null,
    } as unknown as BranchMessage;
    const md = toMarkdown(session, [reply], [], (id) => modelLabel(id, [{ id: 'alpha', label: 'Alpha' }]));
    expect(md).toContain('<sub>Alpha · alpha-small · 40 in / 6 out</sub>');
    expect(md).not.toContain('alpha:alpha-small');
  });
});
