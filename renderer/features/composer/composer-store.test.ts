// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import type { SkillDetail, SkillListItem } from '../../../electron/contract/skills.js';
import { inProcessClient } from '../../test-support.js';
import {
  blockingIssues,
  type ComposerState,
  composerReducer,
  type EditorDoc,
  freshName,
  initialComposerState,
  isDirty,
  openDoc,
  visibleRows,
} from './composer-state.js';
import { createComposerStore, createDraftShelf } from './composer-store.js';
import {
  draftFromSkill,
  draftFromTemplate,
  draftToPackage,
  issueTarget,
  TEMPLATES,
  templateVariables,
} from './draft.js';

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

const skill = (over: Partial<SkillDetail> = {}): SkillDetail => ({
  ...item('Haiku'),
  when: null,
  modalities: ['text'],
  requires: [],
  license: null,
  compatibility: null,
  metadata: null,
  allowed_tools: null,
  created_at: '2026-01-01',
  artifacts: [
    {
      id: 'a1',
      kind: 'prompt_template',
      name: 'Poem',
      ordinal: 0,
      content: 'A haiku about {{ topic }}',
      model_variant: null,
      metadata: { assertions: [] },
      state_blob_bytes: null,
    },
  ],
  ...over,
});

/** A state with one stored skill open. */
function opened(): ComposerState {
  const base = draftFromSkill(skill());
  const doc: EditorDoc = {
    key: 'account:Haiku',
    origin: { name: 'Haiku', scope: 'account' },
    scope: 'account',
    base,
    draft: base,
    context: '',
  };
  return composerReducer(initialComposerState(), { type: 'doc/opened', doc });
}

const run = (s: ComposerState, ...events: Parameters<typeof composerReducer>[1][]) =>
  events.reduce(composerReducer, s);

describe('composerReducer', () => {
  it('filters the catalog by words, scope, source and kind', () => {
    const s = run(initialComposerState(), {
      type: 'catalog/loaded',
      items: [
        item('Alpha', { tags: ['writing'] }),
        item('Beta', { scope: 'workspace', artifact_kinds: ['code_template'], overrides: 'account' }),
        item('Gamma', { source: 'system' }),
      ],
    });
    const names = (f: Partial<ComposerState['filters']>) =>
      visibleRows(composerReducer(s, { type: 'filters/changed', filters: f })).map((r) => r.name);
    expect(names({ query: 'writ' })).toEqual(['Alpha']);
    expect(names({ scope: 'workspace' })).toEqual(['Beta']);
    expect(names({ source: 'system' })).toEqual(['Gamma']);
    expect(names({ kind: 'code_template' })).toEqual(['Beta']);
  });

  it('opens a skill clean, marks it dirty on an edit and clean again when the edit is undone', () => {
    let s = opened();
    expect(openDoc(s)?.key).toBe('account:Haiku');
    expect(isDirty(openDoc(s)!)).toBe(false);
    expect(s.selected).toBe(openDoc(s)!.draft.artifacts[0]!.key);
    const seq = s.validation.seq;
    s = composerReducer(s, { type: 'draft/field', field: 'description', value: 'Changed' });
    expect(isDirty(openDoc(s)!)).toBe(true);
    expect(s.validation.seq).toBe(seq + 1);
    s = composerReducer(s, { type: 'draft/field', field: 'description', value: 'Haiku does things' });
    expect(isDirty(openDoc(s)!)).toBe(false);
  });

  it('adds, renames, reorders and removes artifacts, keeping a selection', () => {
    let s = run(
      opened(),
      { type: 'artifact/added', kind: 'code_template' },
      { type: 'artifact/added', kind: 'code_template' },
    );
    const arts = () => openDoc(s)!.draft.artifacts;
    expect(arts().map((a) => a.name)).toEqual(['Poem', 'Code', 'Code 2']);
    expect(s.selected).toBe(arts()[2]!.key);
    const code = arts()[1]!.key;
    s = run(
      s,
      { type: 'artifact/changed', key: code, patch: { name: 'Count' } },
      { type: 'artifact/moved', key: code, delta: -1 },
    );
    expect(arts().map((a) => a.name)).toEqual(['Count', 'Poem', 'Code 2']);
    s = composerReducer(s, { type: 'artifact/moved', key: code, delta: -1 });
    expect(arts()[0]!.name).toBe('Count');
    s = composerReducer(s, { type: 'artifact/removed', key: s.selected! });
    expect(arts().map((a) => a.name)).toEqual(['Count', 'Poem']);
    expect(s.selected).toBe(arts()[1]!.key);
    expect(draftToPackage(openDoc(s)!.draft).pkg.artifacts).toMatchObject([
      { name: 'Count', ordinal: 0 },
      { name: 'Poem', ordinal: 1 },
    ]);
  });

  it('adds model variants of a template next to it, each with a free variant name', () => {
    let s = opened();
    const poem = openDoc(s)!.draft.artifacts[0]!.key;
    s = run(s, { type: 'artifact/added', kind: 'approach' }, { type: 'artifact/variant-added', key: poem });
    s = composerReducer(s, { type: 'artifact/variant-added', key: poem });
    const arts = openDoc(s)!.draft.artifacts;
    expect(arts.map((a) => [a.name, a.model_variant])).toEqual([
      ['Poem', ''],
      ['Poem', 'new-variant-2'],
      ['Poem', 'new-variant'],
      ['Instructions', ''],
    ]);
    expect(s.selected).toBe(arts[1]!.key);
  });

  it('drops validation replies for an older edit and blocks saving on errors only', () => {
    let s = opened();
    const old = s.validation.seq;
    s = composerReducer(s, { type: 'draft/field', field: 'name', value: '' });
    s = composerReducer(s, {
      type: 'validation/finished',
      seq: old,
      issues: [{ path: 'description', message: 'stale' }],
      templates: {},
    });
    expect(s.validation.issues).toEqual([]);
    const art = openDoc(s)!.draft.artifacts[0]!;
    s = composerReducer(s, {
      type: 'validation/finished',
      seq: s.validation.seq,
      issues: [{ path: 'name', message: 'must not be empty' }],
      templates: { [art.key]: { message: 'unexpected end of input', line: 1, column: 5 } },
    });
    expect(blockingIssues(s)).toEqual([
      { path: 'name', message: 'must not be empty' },
      { path: 'artifacts[0].content', message: 'Line 1, column 5: unexpected end of input' },
    ]);
    s = composerReducer(s, { type: 'artifact/changed', key: art.key, patch: { metadata: '{ nope' } });
    expect(blockingIssues(s).map((i) => i.path)).toContain('artifacts[0].metadata');
  });

  it('keeps streamed run results of the current run only, then the final ones with their rendered input', () => {
    const result = (trace: string) => ({
      artifact: 'Poem',
      kind: 'prompt_template' as const,
      model_variant: null,
      ok: true,
      text: 'out',
      data: null,
      injected: false,
      fallback: null,
      stdout: null,
      error: null,
      assertions: [],
      trace_id: trace,
      duration_ms: 5,
      input_tokens: 1,
      output_tokens: 2,
      model_id: null,
      estimated_cost: null,
    });
    let s = run(
      opened(),
      { type: 'run/started', runId: 'r1' },
      { type: 'run/result', runId: 'old', result: result('t0') },
      { type: 'run/result', runId: 'r1', result: result('t1') },
      { type: 'run/trace', runId: 'r1', traceId: 't1', renderedInput: 'A haiku about tea' },
    );
    expect(s.test.results.map((r) => r.trace_id)).toEqual(['t1']);
    s = composerReducer(s, { type: 'run/finished', runId: 'r1', results: [result('t1'), result('t2')] });
    expect(s.test.status).toBe('done');
    expect(s.test.results.map((r) => r.rendered_input)).toEqual(['A haiku about tea', undefined]);
    s = run(
      s,
      { type: 'run/started', runId: 'r2' },
      { type: 'run/failed', runId: 'r2', error: { code: 'CANCELLED', message: 'x' } },
    );
    expect(s.test.status).toBe('cancelled');
  });

  it('moves a saved new skill to its stored key', () => {
    let s = composerReducer(initialComposerState(), {
      type: 'doc/opened',
      doc: {
        key: 'new:1',
        origin: null,
        scope: 'account',
        base: null,
        draft: draftFromTemplate('prompt', 'P'),
        context: '',
      },
    });
    expect(isDirty(openDoc(s)!)).toBe(true);
    const saved = openDoc(s)!.draft;
    s = composerReducer(s, {
      type: 'save/succeeded',
      oldKey: 'new:1',
      doc: {
        key: 'account:P',
        origin: { name: 'P', scope: 'account' },
        scope: 'account',
        base: saved,
        draft: saved,
        context: '',
      },
      text: 'Saved',
    });
    expect(s.open).toBe('account:P');
    expect(Object.keys(s.docs)).toEqual(['account:P']);
    expect(isDirty(openDoc(s)!)).toBe(false);
  });

  it('holds a save that lowers trigger rates until the user keeps editing or saves anyway', () => {
    const regression = {
      name: 'Haiku',
      scope: 'account' as const,
      version_before: '1.0.0',
      version_after: '1.0.1',
      recall_before: 1,
      recall_after: 0.5,
      precision_before: 1,
      precision_after: 1,
      failing: [{ query: 'a poem about autumn', should_trigger: true, newly: true }],
    };
    let s = composerReducer(initialComposerState(), { type: 'save/started' });
    s = composerReducer(s, { type: 'triggers/regressed', regressions: [regression] });
    expect(s.saving.busy).toBe(false);
    expect(s.triggerAsk).toEqual([regression]);
    expect(composerReducer(s, { type: 'triggers/dismissed' }).triggerAsk).toBeNull();
  });

  it('picks the newest kept version and the current one to compare', () => {
    const s = run(opened(), {
      type: 'history/loaded',
      data: {
        name: 'Haiku',
        scope: 'account',
        current: { version: '1.0.2', content_hash: 'c', updated_at: 'x' },
        versions: [
          { number: 1, version: '1.0.0', content_hash: 'a', origin: 'import', note: null, created_at: 'x' },
          { number: 2, version: '1.0.1', content_hash: 'b', origin: 'import', note: null, created_at: 'x' },
        ],
      },
    });
    expect([s.history.from, s.history.to]).toEqual(['2', 'current']);
  });

  it('asks before leaving, and finds a free name for a new skill', () => {
    const s = run(opened(), { type: 'leave/asked', pending: { to: 'new' } });
    expect(s.pending).toEqual({ to: 'new' });
    expect(composerReducer(s, { type: 'leave/cancelled' }).pending).toBeNull();
    const withCatalog = composerReducer(s, {
      type: 'catalog/loaded',
      items: [item('New skill'), item('New skill 2')],
    });
    expect(freshName(withCatalog, 'New skill')).toBe('New skill 3');
  });
});

describe('drafts', () => {
  it('places issue paths at fields and artifacts', () => {
    expect(issueTarget('tags[2]')).toEqual({ at: 'package', field: 'tags' });
    expect(issueTarget('artifacts[1].metadata.assertions[0].pattern')).toEqual({
      at: 'artifact',
      index: 1,
      field: 'metadata',
    });
    expect(issueTarget('artifacts')).toEqual({ at: 'package', field: 'artifacts' });
  });

  it('lists the variables a template reads, not the ones it sets', () => {
    const src =
      '{% for item in items %}{{ item.name | upper }} {{ loop.index }}{% endfor %}{% set x = 1 %}{{ x }}{% if tone == "warm" %}{{ greeting }}{% endif %}';
    expect(templateVariables(src).sort()).toEqual(['greeting', 'items', 'tone']);
  });

  it('round-trips a stored skill to the same package fields', () => {
    const d = draftFromSkill(skill({ tags: ['a', 'b'], trigger_phrases: ['one', 'two'] }));
    const { pkg, issues } = draftToPackage(d);
    expect(issues).toEqual([]);
    expect(pkg).toMatchObject({
      name: 'Haiku',
      tags: ['a', 'b'],
      trigger_phrases: ['one', 'two'],
      modalities: ['text'],
    });
    expect(pkg).not.toHaveProperty('when');
  });

  it('keeps drafts in storage by key', () => {
    const mem = new Map<string, string>();
    const storage = {
      getItem: (k: string) => mem.get(k) ?? null,
      setItem: (k: string, v: string) => void mem.set(k, v),
      removeItem: (k: string) => void mem.delete(k),
    };
    const shelf = createDraftShelf(storage);
    shelf.put('account:X', {
      origin: { name: 'X', scope: 'account' },
      scope: 'account',
      draft: draftFromTemplate('blank', 'X'),
    });
    expect(createDraftShelf(storage).get('account:X')?.draft.name).toBe('X');
    expect(shelf.keys()).toEqual(['account:X']);
    shelf.drop('account:X');
    expect(shelf.get('account:X')).toBeNull();
    expect(shelf.keys()).toEqual([]);
  });
});

describe('composer store over a real host', () => {
  it.each(TEMPLATES)('a new %s skill is valid as created and saves', async (template) => {
    const { client } = inProcessClient();
    const store = createComposerStore(client, null);
    await store.getState().loadCatalog();
    store.getState().newSkill(template);
    await store.getState().validateNow();
    expect(blockingIssues(store.getState())).toEqual([]);
    await store.getState().save();
    const s = store.getState();
    expect(s.saving.error).toBeNull();
    expect(s.open?.startsWith('account:')).toBe(true);
    expect(isDirty(openDoc(s)!)).toBe(false);
  });

  it.each(['blank', 'prompt', 'dspy', 'instructions'] as const)(
    'a new %s skill runs as created (no model: the reply says so, the run still finishes)',
    async (template) => {
      const { client } = inProcessClient();
      const store = createComposerStore(client, null);
      await store.getState().loadCatalog();
      store.getState().newSkill(template);
      await store.getState().save();
      store.getState().fillContext();
      await store.getState().run('skill');
      const t = store.getState().test;
      expect(t.status).toBe('done');
      expect(t.results.length).toBeGreaterThan(0);
      expect(t.results.every((r) => r.trace_id)).toBe(true);
    },
  );

  it('lists the variables the server finds and says warnings without blocking a save', async () => {
    const { client } = inProcessClient();
    const store = createComposerStore(client, null);
    await store.getState().loadCatalog();
    store.getState().newSkill('prompt');
    const a = openDoc(store.getState())!.draft.artifacts[0]!;
    // `who` is only read through a filter, which a lexical guess at `{{ … }}` names too; `x` is set.
    store.getState().changeArtifact(a.key, {
      content: '{% set x = 1 %}{{ greeting | upper }} {{ who.name }} {{ x }}',
      metadata: JSON.stringify({ assertions: [{ type: 'structural', schema: { type: 'nope' } }] }),
    });
    await store.getState().validateNow();
    const s = store.getState();
    expect([...(s.validation.variables[a.key] ?? [])].sort()).toEqual(['greeting', 'who']);
    expect(s.validation.warnings).toEqual([
      {
        path: 'artifacts[0].metadata.assertions[0].schema',
        message: expect.stringMatching(/does not compile/),
      },
    ]);
    expect(blockingIssues(s)).toEqual([]);
    await store.getState().save();
    expect(store.getState().saving.error).toBeNull();
    expect(store.getState().open).toBe('account:My prompt skill');
  });

  it('exports the open skill as JSON and as a zipped Agent Skills folder', async () => {
    const { client } = inProcessClient();
    const store = createComposerStore(client, null);
    await store.getState().loadCatalog();
    await store.getState().openSkill('account:Summarize');
    const json = await store.getState().exportOpen('json');
    expect(json?.name).toBe('summarize.json');
    expect(JSON.parse(json!.data as string).name).toBe('Summarize');
    const zip = await store.getState().exportOpen('agent-skill');
    expect(zip?.name).toBe('summarize.zip');
    const back = await client.call('skills/import-files', {
      files: [
        { path: 'summarize.zip', data_base64: Buffer.from(zip!.data as Uint8Array).toString('base64') },
      ],
    });
    // Read back by the app's own import: a valid Agent Skills folder, refused only as a built-in's twin.
    expect(back.ok && back.value.packages[0]).toMatchObject({
      name: 'Summarize',
      outcome: 'refused',
      reason: expect.stringMatching(/built-in SkillDesk skill/),
    });
    const into = await client.call('skills/import-files', {
      files: [
        { path: 'summarize.zip', data_base64: Buffer.from(zip!.data as Uint8Array).toString('base64') },
      ],
      force: true,
    });
    // The folder is named by the slug, the display name rides in metadata: no naming warning, and
    // the import says what changed (the copy is the user's, not the built-in).
    expect(into.ok && into.value.packages[0]).toMatchObject({
      name: 'Summarize',
      outcome: 'updated',
      warnings: [],
      changed: expect.arrayContaining(['source']),
    });
  });

  it('flags a template syntax error with its line, saves, and keeps the replaced version', async () => {
    const { client } = inProcessClient();
    const store = createComposerStore(client, null);
    await store.getState().loadCatalog();
    store.getState().newSkill('prompt');
    const key = () => openDoc(store.getState())!.draft.artifacts[0]!.key;
    store.getState().changeArtifact(key(), { content: 'Hello\n{{ name ' });
    await store.getState().validateNow();
    const err = store.getState().validation.templates[key()];
    expect(err?.line).toBe(2);
    store.getState().changeArtifact(key(), { content: 'Hello {{ name }}' });
    await store.getState().save();
    store.getState().setField('description', 'A second version.');
    await store.getState().save();
    await store.getState().setTab('history');
    const h = store.getState().history;
    expect(h.data?.versions).toHaveLength(1);
    expect(h.diff?.fields.map((f) => f.field)).toContain('description');
    await store.getState().renderOnly();
    expect(store.getState().test.status).toBe('failed');
    store.getState().setContext('{"name": "Ada", "topic": "x"}');
    await store.getState().renderOnly();
    expect(store.getState().test.rendered).toBe('Hello Ada');
  });

  it('saves a restore as the current version; unsaved edits stay over it, and the notice says so', async () => {
    const { client } = inProcessClient();
    const store = createComposerStore(client, null);
    await store.getState().loadCatalog();
    store.getState().newSkill('prompt');
    store.getState().setField('description', 'First.');
    await store.getState().save();
    store.getState().setField('description', 'Second.');
    await store.getState().save();
    // Clean editor: the restored version is what the editor shows, saved.
    await store.getState().restore('1');
    let s = store.getState();
    expect(openDoc(s)!.draft.description).toBe('First.');
    expect(isDirty(openDoc(s)!)).toBe(false);
    expect(s.notice?.text).toMatch(/^Restored My prompt skill .* and saved it\.$/);
    // Edited editor: the edits are kept, not lost, and the notice says how to see the restored one.
    store.getState().setField('description', 'Mine, unsaved.');
    await store.getState().restore('2');
    s = store.getState();
    expect(openDoc(s)!.draft.description).toBe('Mine, unsaved.');
    expect(openDoc(s)!.base?.description).toBe('Second.');
    expect(s.notice?.text).toMatch(/unsaved edits are still in the editor/);
    store.getState().revert();
    expect(openDoc(store.getState())!.draft.description).toBe('Second.');
  });

  it('keeps unsaved edits across a reload and switching skills', async () => {
    const { client } = inProcessClient();
    const mem = new Map<string, string>();
    const storage = {
      getItem: (k: string) => mem.get(k) ?? null,
      setItem: (k: string, v: string) => void mem.set(k, v),
      removeItem: (k: string) => void mem.delete(k),
    };
    const first = createComposerStore(client, storage);
    await first.getState().start();
    await first.getState().openSkill('account:Summarize');
    first.getState().setField('description', 'Edited but not saved.');
    first.getState().setContext('{"text": "remembered"}');
    await first.getState().renderOnly();
    // Switching with unsaved edits asks; keeping the draft switches.
    await first.getState().openSkill('account:Translate');
    expect(first.getState().pending).toEqual({ to: 'open', key: 'account:Translate' });
    await first.getState().resolveLeave('keep');
    expect(first.getState().open).toBe('account:Translate');
    await first.getState().openSkill('account:Summarize');
    expect(openDoc(first.getState())?.draft.description).toBe('Edited but not saved.');
    // A new page over the same storage reopens the skill with the edit.
    const second = createComposerStore(client, storage);
    await second.getState().start();
    const doc = openDoc(second.getState());
    expect(doc?.key).toBe('account:Summarize');
    expect(doc?.draft.description).toBe('Edited but not saved.');
    expect(isDirty(doc!)).toBe(true);
    expect(doc?.context).toBe('{"text": "remembered"}');
  });

  it('imports JSON files with a report per package, nothing when one is refused', async () => {
    const { client } = inProcessClient();
    const store = createComposerStore(client, null);
    const file = (name: string, text: string) => ({ name, text: async () => text });
    const good = JSON.stringify({
      name: 'Imported One',
      description: 'd',
      artifacts: [{ kind: 'approach', name: 'A', content: 'x' }],
    });
    const bad = JSON.stringify({
      name: 'Broken',
      description: 'd',
      artifacts: [{ kind: 'spell', name: 'A', content: '' }],
    });
    await store.getState().importFiles([file('one.json', good), file('broken.json', bad)]);
    expect(store.getState().imports.rows?.map((r) => [r.file, r.outcome])).toEqual([
      ['one.json', 'not-imported'],
      ['broken.json', 'refused'],
    ]);
    expect(store.getState().imports.rows?.[1]?.issues[0]?.path).toBe('artifacts[0].kind');
    await store.getState().importFiles([file('one.json', good), file('junk.json', '{nope')]);
    expect(store.getState().imports.rows?.find((r) => r.file === 'junk.json')?.outcome).toBe('refused');
    await store.getState().importFiles([file('one.json', good)]);
    expect(store.getState().imports.rows).toMatchObject([{ name: 'Imported One', outcome: 'created' }]);
  });

  it('runs a saved Python skill: the result streams in with its assertion and the rendered input', async () => {
    const { client } = inProcessClient();
    const store = createComposerStore(client, null);
    await store.getState().loadCatalog();
    store.getState().newSkill('python');
    await store.getState().save();
    store.getState().setContext('{"text": "hello big world"}');
    await store.getState().run('artifact');
    const t = store.getState().test;
    expect(t.status).toBe('done');
    expect(t.results).toHaveLength(1);
    expect(t.results[0]).toMatchObject({ ok: true, data: { words: 3, characters: 15 } });
    expect(t.results[0]!.assertions.map((a) => a.passed)).toEqual([true]);
    expect(t.results[0]!.rendered_input).toContain("text = 'hello big world'");
  }, 60_000);

  it('runs the draft as edited, unsaved edits included, and labels what ran', async () => {
    const { client } = inProcessClient();
    const store = createComposerStore(client, null);
    await store.getState().loadCatalog();
    store.getState().newSkill('python');
    store.getState().setContext('{"text": "hello big world"}');
    // Never saved: the draft runs.
    await store.getState().run('artifact');
    let t = store.getState().test;
    expect(t.status).toBe('done');
    expect(t.ran).toEqual({ what: 'draft', version: '1.0.0' });
    expect(t.results[0]).toMatchObject({ ok: true, data: { words: 3, characters: 15 } });
    await store.getState().save();
    const a = openDoc(store.getState())!.draft.artifacts[0]!;
    store.getState().changeArtifact(a.key, { content: a.content.replace('len(words)', 'len(words) * 10') });
    await store.getState().run('artifact');
    t = store.getState().test;
    expect(t.ran?.what).toBe('draft');
    expect(t.results[0]).toMatchObject({ ok: true, data: { words: 30 } });
    expect(t.results[0]!.rendered_input).toContain('len(words) * 10');
    // Unsaved: the stored skill still counts plainly.
    const stored = await client.call('skills/get', { name: openDoc(store.getState())!.draft.name });
    expect(stored.ok && stored.value.skill.artifacts[0]!.content).not.toContain('* 10');
    await store.getState().save();
    await store.getState().run('artifact');
    t = store.getState().test;
    expect(t.ran).toEqual({ what: 'saved', version: openDoc(store.getState())!.base!.version });
    expect(t.results[0]).toMatchObject({ ok: true, data: { words: 30 } });
  }, 90_000);

  it('cancels a running test-run: it ends as cancelled', async () => {
    const { client } = inProcessClient();
    const store = createComposerStore(client, null);
    await store.getState().loadCatalog();
    store.getState().newSkill('python');
    const a = openDoc(store.getState())!.draft.artifacts[0]!;
    store.getState().changeArtifact(a.key, { content: 'while True:\n    pass\n' });
    await store.getState().save();
    const running = store.getState().run('artifact');
    await expect.poll(() => store.getState().test.status).toBe('running');
    await store.getState().cancelRun();
    await running;
    const t = store.getState().test;
    expect(['cancelled', 'done']).toContain(t.status);
    // Either the whole call was cancelled, or the artifact's result says so.
    if (t.status === 'done') expect(t.results[0]?.error?.code).toMatch(/CANCEL/);
    else expect(t.error?.code).toBe('CANCELLED');
  }, 90_000);

  it('asks the host for a Composer window; outside the desktop there is none', async () => {
    const { client } = inProcessClient();
    const store = createComposerStore(client, null);
    await store.getState().loadCatalog();
    expect(store.getState().desktop).toBe(false);
    await expect(store.getState().popOut()).resolves.toBe(false);
  });

  it('forks an account skill into the workspace, where it then overrides the account one', async () => {
    const { client } = inProcessClient({ workspace: true });
    const store = createComposerStore(client, null);
    await store.getState().loadCatalog();
    expect(store.getState().workspaceOpen).toBe(true);
    await store.getState().openSkill('account:Summarize');
    await store.getState().fork();
    expect(store.getState().open).toBe('workspace:Summarize');
    const rows = store.getState().catalog.items.filter((i) => i.name === 'Summarize');
    expect(rows.map((r) => [r.scope, r.overridden, r.overrides ?? null])).toEqual([
      ['workspace', false, 'account'],
      ['account', true, null],
    ]);
  });

  it('asks before saving edits of a built-in, and saves a copy that leaves the built-in as shipped', async () => {
    const { client } = inProcessClient({ workspace: true });
    const store = createComposerStore(client, null);
    await store.getState().loadCatalog();
    await store.getState().openSkill('account:Summarize');
    store.getState().setField('description', 'Summarizes, my way.');
    await store.getState().save();
    expect(store.getState().builtinAsk).toBe(true);
    expect(store.getState().saving.busy).toBe(false);
    const builtin = async () => {
      const r = await client.call('skills/get', { name: 'Summarize', scope: 'account' });
      return r.ok ? r.value.skill : null;
    };
    expect((await builtin())?.source).toBe('system');

    // An account copy under its own name.
    await store.getState().saveCopy('account');
    expect(store.getState().builtinAsk).toBe(false);
    expect(store.getState().open).toBe('account:Summarize (my copy)');
    const copy = await client.call('skills/get', { name: 'Summarize (my copy)', scope: 'account' });
    expect(copy.ok && [copy.value.skill.source, copy.value.skill.description]).toEqual([
      'user',
      'Summarizes, my way.',
    ]);
    expect(await builtin()).toMatchObject({
      source: 'system',
      description: expect.not.stringContaining('my way'),
    });

    // A workspace copy keeps the name and overrides the built-in there.
    await store.getState().openSkill('account:Summarize');
    store.getState().setField('description', 'Summarizes for this folder.');
    await store.getState().save();
    await store.getState().saveCopy('workspace');
    expect(store.getState().open).toBe('workspace:Summarize');
    expect((await builtin())?.source).toBe('system');

    // Saving over it is still possible, when chosen.
    await store.getState().openSkill('account:Translate');
    store.getState().setField('description', 'Translates, edited in place.');
    await store.getState().save({ overwrite: true });
    const t = await client.call('skills/get', { name: 'Translate', scope: 'account' });
    expect(t.ok && t.value.skill).toMatchObject({ source: 'user', version: '1.0.1' });
  });
});
