import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { TRACE_EXCERPT_CHARS, TraceStore, traceExcerpt } from './trace-store.js';

describe('trace excerpts', () => {
  it('keeps short texts whole and huge ones as start and end with their full size', () => {
    expect(traceExcerpt('short')).toEqual({ text: 'short', bytes: null });
    expect(traceExcerpt(null)).toEqual({ text: null, bytes: null });
    const huge = `START${'é'.repeat(200_000)}END`;
    const r = traceExcerpt(huge);
    expect(r.bytes).toBe(Buffer.byteLength(huge));
    expect(r.text!.startsWith('START')).toBe(true);
    expect(r.text!.endsWith('END')).toBe(true);
    expect(r.text).toMatch(/\[excerpt: 400008 bytes in all; \d+ characters left out here\]/);
    expect(r.text!.length).toBeLessThan(TRACE_EXCERPT_CHARS + 200);
  });

  it('a trace of a huge input and output stores bounded excerpts and the sizes', () => {
    const db = openDatabase(join(tempDir(), 'agents.db'));
    try {
      const traces = new TraceStore(db);
      const input = 'i'.repeat(3_000_000);
      const output = 'o'.repeat(5_000_000);
      const t = traces.start({
        session_id: 's',
        skill_id: 'k',
        artifact_id: 'a',
        artifact_kind: 'prompt_template',
        rendered_input: input,
      });
      traces.finish(t, { raw_output: output });
      const row = traces.get(t.id)!;
      expect(row.rendered_input!.length).toBeLessThan(TRACE_EXCERPT_CHARS + 200);
      expect(row.raw_output!.length).toBeLessThan(TRACE_EXCERPT_CHARS + 200);
      expect(row).toMatchObject({ rendered_input_bytes: 3_000_000, raw_output_bytes: 5_000_000 });
      const small = traces.start({
        session_id: 's',
        skill_id: 'k',
        artifact_id: 'a',
        artifact_kind: 'prompt_template',
        rendered_input: 'hi',
      });
      traces.finish(small, { raw_output: 'there' });
      expect(traces.get(small.id)).toMatchObject({
        rendered_input: 'hi',
        raw_output: 'there',
        rendered_input_bytes: null,
        raw_output_bytes: null,
      });
    } finally {
      db.close();
    }
  });
});
