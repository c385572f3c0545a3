// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import type { SkillListItem } from '../../../electron/contract/skills.js';
import type { Host } from '../../../electron/host.js';
import { inProcessClient, samplePackage } from '../../test-support.js';
import {
  createSkillsStore,
  initialSkillsState,
  type SkillsState,
  skillKey,
  skillsReducer,
  visibleSkills,
} from './skills-store.js';

const item = (name: string, over: Partial<SkillListItem> = {}): SkillListItem => ({
  id: name,
  name,
  scope: 'account',
  version: '1.0.0',
  source: 'user',
  description: `${name} does things`,
  tags: [],
  author: null,
  artifact_kinds: ['prompt_template'],
  trigger_phrases: [],
  intent_patterns: [],
  always_on: false,
  updated_at: '2026-01-01',
  switch: 'on',
  overridden: false,
  ...over,
});

const loaded = (items: SkillListItem[]): SkillsState =>
  skillsReducer(initialSkillsState(), { type: 'list/loaded', items });

describe('skillsReducer', () => {
  const items = [
    item('Alpha', { tags: ['writing'] }),
    item('Beta', { scope: 'workspace', artifact_kinds: ['code_template'] }),
    item('Gamma', { trigger_phrases: ['crunch numbers'] }),
  ];

  it('puts the cursor on the first row when the list loads', () => {
    expect(loaded(items).cursor).toBe('account:Alpha');
  });

  it('filters by words across fields, scope and kind', () => {
    let s = loaded(items);
    s = skillsReducer(s, { type: 'filter/query', query: 'CRUNCH' });
    expect(visibleSkills(s).map((i) => i.name)).toEqual(['Gamma']);
    expect(s.cursor).toBe('account:Gamma');
    s = skillsReducer(s, { type: 'filter/query', query: 'does writing' });
    expect(visibleSkills(s).map((i) => i.name)).toEqual(['Alpha']);
    s = skillsReducer(s, { type: 'filter/query', query: '' });
    s = skillsReducer(s, { type: 'filter/scope', scope: 'workspace' });
    expect(visibleSkills(s).map((i) => i.name)).toEqual(['Beta']);
    s = skillsReducer(s, { type: 'filter/scope', scope: 'all' });
    s = skillsReducer(s, { type: 'filter/kind', kind: 'code_template' });
    expect(visibleSkills(s).map((i) => i.name)).toEqual(['Beta']);
    s = skillsReducer(s, { type: 'filter/query', query: 'zzz' });
    expect(s.cursor).toBeNull();
  });

  it('moves the cursor within bounds', () => {
    let s = loaded(items);
    s = skillsReducer(s, { type: 'cursor/moved', delta: 1 });
    expect(s.cursor).toBe('workspace:Beta');
    s = skillsReducer(s, { type: 'cursor/moved', delta: 10 });
    expect(s.cursor).toBe('account:Gamma');
    s = skillsReducer(s, { type: 'cursor/moved', delta: -10 });
    expect(s.cursor).toBe('account:Alpha');
    s = skillsReducer(s, { type: 'cursor/edge', edge: 'last' });
    expect(s.cursor).toBe('account:Gamma');
  });

  it('ignores a detail reply for a skill that is no longer open', () => {
    let s = loaded(items);
    s = skillsReducer(s, { type: 'detail/opened', key: 'account:Alpha' });
    s = skillsReducer(s, { type: 'detail/opened', key: 'account:Gamma' });
    const stale = skillsReducer(s, {
      type: 'detail/failed',
      key: 'account:Alpha',
      error: { code: 'NOT_FOUND', message: 'x' },
    });
    expect(stale).toBe(s);
    expect(s.detail.status).toBe('loading');
  });

  it('closes the detail when its skill disappears from a reload', () => {
    let s = loaded(items);
    s = skillsReducer(s, { type: 'detail/opened', key: 'account:Gamma' });
    s = skillsReducer(s, { type: 'list/loaded', items: items.slice(0, 2) });
    expect(s.open).toBeNull();
    expect(s.detail.status).toBe('idle');
  });

  it('drops a deleted skill, closes it, and says what happened', () => {
    let s = loaded(items);
    s = skillsReducer(s, { type: 'detail/opened', key: 'workspace:Beta' });
    s = skillsReducer(s, { type: 'delete/requested', key: 'workspace:Beta' });
    s = skillsReducer(s, {
      type: 'delete/succeeded',
      key: 'workspace:Beta',
      res: {
        deleted: { name: 'Beta', scope: 'workspace', version: '1.0.0' },
        revealed: { name: 'Beta', scope: 'account', version: '0.9.0' },
      },
    });
    expect(s.list.items.map((i) => i.name)).toEqual(['Alpha', 'Gamma']);
    expect(s.open).toBeNull();
    expect(s.pendingDelete).toBeNull();
    expect(s.notice?.text).toContain('active again');
  });
});

describe('skills store over the in-process host', () => {
  let host: Host | undefined;
  afterEach(() => host?.dispose());

  it('loads the seeded catalog and opens a skill with its artifacts', async () => {
    const c = inProcessClient();
    host = c.host;
    const store = createSkillsStore(c.client);
    await store.getState().load();
    const names = store.getState().list.items.map((i) => i.name);
    expect(names).toContain('Consistency Checker');
    await store.getState().openSkill('account:Consistency Checker');
    const { detail } = store.getState();
    expect(detail.status).toBe('ready');
    expect(detail.skill?.artifacts.map((a) => a.kind)).toContain('dspy_module');
  });

  it('imports a valid file and reports an invalid one with its JSON path', async () => {
    const c = inProcessClient();
    host = c.host;
    const store = createSkillsStore(c.client);
    await store.getState().load();
    const results = await store.getState().importFiles([
      { name: 'haiku.json', text: async () => JSON.stringify(samplePackage()) },
      {
        name: 'broken.json',
        text: async () =>
          JSON.stringify(
            samplePackage({ name: 'Broken', artifacts: [{ kind: 'x', name: 'A', content: '' }] }),
          ),
      },
      { name: 'skill.zip', text: async () => 'PK' },
    ]);
    expect(results.map((r) => r.ok)).toEqual([true, false, false]);
    const broken = results[1]!;
    expect(!broken.ok && broken.error.details?.issues).toEqual([
      expect.objectContaining({ path: 'artifacts[0].kind' }),
    ]);
    expect(!results[2]!.ok && results[2]!.error.message).toContain('only .json');
    expect(store.getState().list.items.some((i) => i.name === 'Haiku Helper')).toBe(true);
    expect(store.getState().imports.results).toHaveLength(3);
  });

  it('deletes after confirmation and follows catalog events from elsewhere', async () => {
    const c = inProcessClient();
    host = c.host;
    const store = createSkillsStore(c.client);
    const stop = store.getState().watch();
    await store.getState().load();
    store.getState().requestDelete('account:Summarize');
    expect(store.getState().pendingDelete).toBe('account:Summarize');
    await store.getState().confirmDelete();
    expect(store.getState().list.items.some((i) => i.name === 'Summarize')).toBe(false);
    // Another window imports: the list follows without a manual reload.
    await c.client.invoke('skills/import-package', { package: samplePackage({ name: 'Elsewhere' }) });
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(store.getState().list.items.some((i) => i.name === 'Elsewhere')).toBe(true);
    stop();
  });

  it('exports the canonical package text', async () => {
    const c = inProcessClient();
    host = c.host;
    const store = createSkillsStore(c.client);
    const res = await store.getState().exportSkill(skillKey({ scope: 'account', name: 'Translate' }));
    expect(res.file_name).toBe('translate.json');
    expect(JSON.parse(res.text).name).toBe('Translate');
  });
});
