// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import type { SkillListItem } from '../../../electron/contract/skills.js';
import type { Host } from '../../../electron/host.js';
import { inProcessClient, samplePackage } from '../../test-support.js';
import { createComposerStore } from '../composer/composer-store.js';
import { zipFiles } from '../composer/files.js';
import {
  createSkillsStore,
  initialSkillsState,
  matchReason,
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

  it('adds the hybrid matches after the keyword rows, filtered the same way, and drops a stale reply', () => {
    let s = loaded(items);
    s = skillsReducer(s, { type: 'filter/query', query: 'crunch' });
    s = skillsReducer(s, { type: 'meaning/requested', query: 'crunch' });
    // The keyword rows are there at once, before the ranking comes back.
    expect(visibleSkills(s).map((i) => i.name)).toEqual(['Gamma']);
    const matches = [
      { key: 'account:Gamma', score: 1.2, why: 'trigger phrase “crunch numbers”' },
      { key: 'workspace:Beta', score: 0.4, why: 'close in meaning' },
      { key: 'account:Alpha', score: 0.2, why: 'close in meaning' },
    ];
    const stale = skillsReducer(s, { type: 'meaning/loaded', query: 'crun', matches, e5: true });
    expect(stale).toBe(s);
    s = skillsReducer(s, { type: 'meaning/loaded', query: 'crunch', matches, e5: true });
    expect(visibleSkills(s).map((i) => i.name)).toEqual(['Gamma', 'Beta', 'Alpha']);
    expect(matchReason(s, 'workspace:Beta')).toBe('close in meaning');
    s = skillsReducer(s, { type: 'filter/scope', scope: 'account' });
    expect(visibleSkills(s).map((i) => i.name)).toEqual(['Gamma', 'Alpha']);
    s = skillsReducer(s, { type: 'filter/source', source: 'system' });
    expect(visibleSkills(s)).toEqual([]);
    // A new query hides the old ranking until its own arrives.
    s = skillsReducer(s, { type: 'filter/source', source: 'all' });
    s = skillsReducer(s, { type: 'filter/query', query: 'writing' });
    expect(visibleSkills(s).map((i) => i.name)).toEqual(['Alpha']);
    expect(matchReason(s, 'account:Alpha')).toBeNull();
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

  it('imports an Agent Skills folder and a zip through the Composer import, and the catalog follows', async () => {
    const c = inProcessClient();
    host = c.host;
    const store = createSkillsStore(c.client);
    const stop = store.getState().watch();
    await store.getState().load();
    const composer = createComposerStore(c.client, null);
    const enc = new TextEncoder();
    const file = (name: string, text: string) => ({
      name,
      text: async () => text,
      bytes: async () => enc.encode(text),
    });
    const skillMd = (name: string, description: string) =>
      `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\nSteps.\n`;
    await composer
      .getState()
      .importFiles([
        file(
          'xlsx/SKILL.md',
          skillMd('xlsx', 'Spreadsheet formulas, pivot tables and charts in Excel workbooks'),
        ),
      ]);
    const zip = zipFiles([
      { path: 'pdf/SKILL.md', bytes: enc.encode(skillMd('pdf', 'Fill and merge PDF forms')) },
    ]);
    await composer
      .getState()
      .importFiles([{ name: 'pdf.zip', text: async () => '', bytes: async () => zip }]);
    expect(composer.getState().imports.rows).toMatchObject([{ name: 'pdf', outcome: 'created' }]);
    await expect
      .poll(() => store.getState().list.items.map((i) => i.name))
      .toEqual(expect.arrayContaining(['xlsx', 'pdf']));

    // Words first: no skill holds every word of the question …
    store.getState().setQuery('numbers in a spreadsheet');
    expect(visibleSkills(store.getState()).map((i) => i.name)).not.toContain('xlsx');
    // … then the hybrid ranking chat uses finds it, and says why.
    await store.getState().searchMeaning('numbers in a spreadsheet');
    const st = store.getState();
    expect(st.meaning.status).toBe('ready');
    expect(visibleSkills(st)[0]?.name).toBe('xlsx');
    expect(matchReason(st, 'account:xlsx')).toMatch(/spreadsheet|close in meaning/);
    stop();
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
