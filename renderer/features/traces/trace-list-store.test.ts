// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { inProcessClient } from '../../test-support.js';
import {
  cleanFilter,
  createTraceListStore,
  exportFileName,
  initialTraceList,
  traceListReducer,
} from './trace-list-store.js';

describe('the Traces view store', () => {
  it('drops empty filter fields and late replies for an older filter', () => {
    expect(cleanFilter({ skill: ' ', status: 'ok', session_id: '' })).toEqual({ status: 'ok' });
    const s1 = traceListReducer(initialTraceList, { type: 'list/requested', seq: 1 });
    const s2 = traceListReducer(s1, { type: 'list/requested', seq: 2 });
    const res = {
      traces: [],
      totals: { count: 7, errors: 0, input_tokens: 0, output_tokens: 0, estimated_cost: 0, duration_ms: 0 },
      facets: { session_ids: [], skills: [], artifact_kinds: [] },
    };
    expect(traceListReducer(s2, { type: 'list/loaded', seq: 1, res })).toBe(s2);
    expect(traceListReducer(s2, { type: 'list/loaded', seq: 2, res }).totals?.count).toBe(7);
    expect(
      exportFileName({ skill: 'CSV Statistics', status: 'error' }, new Date('2026-11-22T01:00:00Z')),
    ).toBe('traces-csv-statistics-error-2026-11-22.jsonl');
  });

  it('lists, filters and exports the traces a real run wrote', async () => {
    const { client, host } = inProcessClient();
    try {
      const run = await client.invoke('skills/run', {
        name: 'Translate',
        scope: 'account',
        artifact: 'Translate Prompt',
        context: { text: 'hi', target_language: 'German' },
        session_id: 'sess-t',
      });
      expect(run.results.length).toBeGreaterThan(0);
      const saved: Array<{ file: string; text: string }> = [];
      const store = createTraceListStore(client, (file, text) => saved.push({ file, text }));
      await store.getState().load();
      const s = store.getState();
      expect(s.status).toBe('ready');
      expect(s.traces.length).toBeGreaterThan(0);
      expect(s.totals?.count).toBe(s.traces.length);
      expect(s.facets.skills).toContain('Translate');
      expect(s.facets.session_ids).toEqual(['sess-t']);

      await store.getState().setFilter({ skill: 'Summarize' });
      expect(store.getState().traces).toEqual([]);
      expect(store.getState().totals?.count).toBe(0);
      await store.getState().setFilter({ skill: 'Translate', since: '2999-01-01' });
      expect(store.getState().traces).toEqual([]);
      await store.getState().setFilter({ since: '' });
      expect(store.getState().filter).toEqual({ skill: 'Translate' });
      expect(store.getState().traces.length).toBe(s.traces.length);

      store.getState().select(store.getState().traces[0]!.id);
      await store.getState().exportJsonl();
      expect(saved).toHaveLength(1);
      const lines = saved[0]!.text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines).toHaveLength(s.traces.length);
      expect(lines[0]).toMatchObject({ skill: 'Translate', session_id: 'sess-t' });
      expect(store.getState().exported).toEqual({ count: lines.length, file: saved[0]!.file });
    } finally {
      await host.dispose();
    }
  });
});
