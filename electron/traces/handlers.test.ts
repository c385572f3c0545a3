import { describe, expect, it } from 'vitest';
import { SkillCatalog } from '../skills/catalog.js';
import { packageToRows } from '../skills/convert.js';
import type { CatalogRef } from '../skills/index.js';
import { openStore } from '../store/stores.js';
import { tempDir } from '../test-support/index.js';
import { createTracesHandlers } from './handlers.js';
import { TraceStore } from './trace-store.js';

describe('traces/list filtered by skill name', () => {
  it('matches the name by NFKC and full case folding', async () => {
    const store = openStore('account', tempDir())!;
    const rows = packageToRows({
      name: 'Straße Étude',
      description: 'd',
      version: '1.0.0',
      artifacts: [{ kind: 'description', name: 'd', content: 'x' }],
    });
    store.repo.createSkill(rows.skill);
    for (const a of rows.artifacts) store.repo.addArtifact(a);
    const traces = new TraceStore(store.db);
    traces.finish(
      traces.start({
        session_id: 's1',
        skill_id: rows.skill.id,
        artifact_id: rows.artifacts[0]!.id,
        artifact_kind: 'description',
      }),
      {},
    );
    const catalog = new SkillCatalog(store, null);
    const ref = { get: () => catalog, hasWorkspace: () => false } as unknown as CatalogRef;
    const list = createTracesHandlers({ catalog: ref })['traces/list'];
    for (const spelling of ['STRASSE ÉTUDE', 'strasse e\u0301tude', 'Straße Étude']) {
      expect((await list({ skill: spelling })).traces, spelling).toHaveLength(1);
    }
    expect((await list({ skill: 'Strase Etude' })).traces).toHaveLength(0);
    catalog.close();
  });
});

describe('traces/list filters, totals and traces/export', () => {
  it('filters by kind, status and date, sums every match, and exports DSPy-loadable JSONL', async () => {
    const store = openStore('account', tempDir())!;
    const rows = packageToRows({
      name: 'Summarize',
      description: 'd',
      version: '1.0.0',
      artifacts: [
        { kind: 'prompt_template', name: 'Summary Prompt', content: 'Sum {{ text }}' },
        { kind: 'code_template', name: 'Count', content: 'result = 1' },
      ],
    });
    store.repo.createSkill(rows.skill);
    for (const a of rows.artifacts) store.repo.addArtifact(a);
    const [prompt, code] = rows.artifacts as unknown as [{ id: string }, { id: string }];
    let clock = new Date('2026-11-20T10:00:00.000Z');
    const traces = new TraceStore(store.db, () => clock);
    const run = (
      artifact: { id: string },
      kind: string,
      day: string,
      f: Parameters<TraceStore['finish']>[1],
    ) => {
      clock = new Date(`${day}T10:00:00.000Z`);
      traces.finish(
        traces.start({
          session_id: 's1',
          skill_id: rows.skill.id,
          artifact_id: artifact.id,
          artifact_kind: kind,
        }),
        f,
      );
    };
    run(prompt, 'prompt_template', '2026-11-20', {
      rendered_input: 'Sum a',
      raw_output: 'A',
      input_tokens: 10,
      output_tokens: 2,
      estimated_cost: 0.5,
    });
    run(prompt, 'prompt_template', '2026-11-21', {
      rendered_input: 'Sum b',
      raw_output: 'B',
      input_tokens: 20,
      output_tokens: 3,
      estimated_cost: 0.25,
    });
    run(code, 'code_template', '2026-11-22', { error: 'boom', error_code: 'SANDBOX_FAILED' });
    traces.start({
      session_id: 's2',
      skill_id: rows.skill.id,
      artifact_id: code.id,
      artifact_kind: 'code_template',
    });

    const catalog = new SkillCatalog(store, null);
    const ref = { get: () => catalog, hasWorkspace: () => false } as unknown as CatalogRef;
    const h = createTracesHandlers({ catalog: ref });
    const all = await h['traces/list']({ limit: 2 });
    expect(all.traces).toHaveLength(2);
    expect(all.totals).toMatchObject({
      count: 4,
      errors: 1,
      input_tokens: 30,
      output_tokens: 5,
      estimated_cost: 0.75,
    });
    expect(all.facets).toEqual({
      session_ids: ['s1', 's2'],
      skills: ['Summarize'],
      artifact_kinds: ['code_template', 'prompt_template'],
    });
    expect((await h['traces/list']({ artifact_kind: 'code_template' })).totals.count).toBe(2);
    expect((await h['traces/list']({ status: 'error' })).traces.map((t) => t.error)).toEqual(['boom']);
    expect((await h['traces/list']({ status: 'running' })).traces.map((t) => t.session_id)).toEqual(['s2']);
    expect((await h['traces/list']({ status: 'ok' })).totals).toMatchObject({ count: 2, input_tokens: 30 });
    const day = await h['traces/list']({ since: '2026-11-21', until: '2026-11-21' });
    expect(day.traces.map((t) => t.rendered_input)).toEqual(['Sum b']);
    expect(day.totals.count).toBe(1);
    expect((await h['traces/list']({ skill: 'No Such Skill' })).totals.count).toBe(0);

    const ex = await h['traces/export']({ artifact_kind: 'prompt_template' });
    expect(ex.count).toBe(2);
    const lines = ex.jsonl
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.input, l.output, l.skill, l.artifact, l.status])).toEqual([
      ['Sum a', 'A', 'Summarize', 'Summary Prompt', 'ok'],
      ['Sum b', 'B', 'Summarize', 'Summary Prompt', 'ok'],
    ]);
    expect((await h['traces/export']({ since: '2999-01-01' })).jsonl).toBe('');
    catalog.close();
  });
});
