import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHANNELS, requestSchemas } from '../contract/channels.js';
import { quietLogger as quiet, tempDir, testHost } from '../test-support/index.js';
import { invokeChannel } from './dispatch.js';

function setup(opts: { workspace?: boolean } = {}) {
  const home = tempDir();
  const workspace = opts.workspace ? tempDir() : undefined;
  const host = testHost({ home, workspace });
  const call = async (channel: string, req: unknown) =>
    invokeChannel(host.handlers, channel, req, { transport: 'in-process' }, quiet);
  return { host, home, workspace, call };
}

const pkg = (over: Record<string, unknown> = {}) => ({
  name: 'Haiku Helper',
  description: 'Writes haiku about any topic.',
  version: '1.0.0',
  trigger_phrases: ['write a haiku'],
  artifacts: [{ kind: 'prompt_template', name: 'Poem', content: 'Write a haiku about {{ topic }}.' }],
  ...over,
});

describe('host handler table', () => {
  it('has exactly one handler per channel of the contract', () => {
    const { host } = setup();
    expect(Object.keys(host.handlers).sort()).toEqual([...CHANNELS].sort());
    expect(Object.keys(requestSchemas).sort()).toEqual([...CHANNELS].sort());
  });

  it('lists the merged catalog with scope and override marks', async () => {
    const { call } = setup({ workspace: true });
    await call('skills/import-package', {
      package: pkg({ name: 'Summarize', version: '9.0.0' }),
      scope: 'workspace',
    });
    const r = await call('skills/list', {});
    expect(r.ok).toBe(true);
    const skills = (r as { value: { skills: Array<Record<string, unknown>> } }).value.skills;
    const both = skills.filter((s) => s.name === 'Summarize');
    expect(both).toEqual([
      expect.objectContaining({ scope: 'workspace', overrides: 'account', overridden: false }),
      expect.objectContaining({ scope: 'account', overridden: true, overridden_by: 'workspace' }),
    ]);
  });

  it('gets a skill with its artifacts, JSON-safe', async () => {
    const { call } = setup();
    const r = await call('skills/get', { name: 'consistency checker' });
    expect(r).toMatchObject({
      ok: true,
      value: { skill: { name: 'Consistency Checker', scope: 'account' } },
    });
    const skill = (
      r as { value: { skill: { artifacts: Array<{ kind: string; state_blob_bytes: number | null }> } } }
    ).value.skill;
    expect(skill.artifacts.length).toBeGreaterThan(1);
    expect(JSON.parse(JSON.stringify(skill))).toEqual(skill);
    expect(await call('skills/get', { name: 'Nope' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
  });

  it('matches with timing', async () => {
    const { call } = setup();
    const r = await call('skills/match', { message: 'are there any contradictions in my notes', limit: 3 });
    expect(r).toMatchObject({ ok: true, value: { took_ms: expect.any(Number) } });
    const matches = (r as { value: { matches: Array<{ name: string; score: number }> } }).value.matches;
    expect(matches[0]).toMatchObject({
      name: 'Consistency Checker',
      matched_on: expect.arrayContaining(['exact_trigger']),
    });
    expect(matches.length).toBeLessThanOrEqual(3);
  });

  it('imports text or objects, refuses older versions, and round-trips export', async () => {
    const { call } = setup();
    const created = await call('skills/import-package', {
      package: JSON.stringify(pkg()),
      file_name: 'h.json',
    });
    expect(created).toMatchObject({
      ok: true,
      value: { imported: [{ action: 'created', scope: 'account' }] },
    });
    expect(await call('skills/import-package', { package: pkg() })).toMatchObject({
      ok: true,
      value: { imported: [{ action: 'unchanged' }] },
    });
    // Content decides: the same content under an older version is unchanged; new content under
    // an older version is refused.
    expect(await call('skills/import-package', { package: pkg({ version: '0.9.0' }) })).toMatchObject({
      ok: true,
      value: { imported: [{ action: 'unchanged' }] },
    });
    expect(
      await call('skills/import-package', {
        package: pkg({ version: '0.9.0', description: 'Writes haiku about the sea.' }),
      }),
    ).toMatchObject({
      ok: false,
      error: { code: 'VERSION_CONFLICT' },
    });
    const exported = await call('skills/export-package', { name: 'Haiku Helper' });
    expect(exported).toMatchObject({ ok: true, value: { file_name: 'haiku-helper.json' } });
    const text = (exported as { value: { text: string } }).value.text;
    expect(JSON.parse(text)).toMatchObject({ name: 'Haiku Helper', version: '1.0.0' });
  });

  it('reports bad JSON and bad packages with the file and JSON path', async () => {
    const { call } = setup();
    const bad = await call('skills/import-package', { package: '{"name": ', file_name: 'cut.json' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT', details: { file: 'cut.json' } } });
    const r = await call('skills/import-package', {
      package: pkg({ artifacts: [{ kind: 'prompt_template', name: 'P', content: 'x', colour: 'red' }] }),
      file_name: 'extra.json',
    });
    expect(r).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT', details: { issues: [{ path: 'artifacts[0]' }] } },
    });
    expect((r as { error: { message: string } }).error.message).toMatch(/^extra\.json: artifacts\[0\]/);
  });

  it('creates the workspace store only on the first workspace write', async () => {
    const { call, workspace } = setup({ workspace: true });
    await call('skills/list', {});
    expect(existsSync(join(workspace!, 'agents.db'))).toBe(false);
    const info1 = await call('app/info', {});
    expect(info1).toMatchObject({ ok: true, value: { stores: { workspace: { exists: false } } } });
    await call('skills/import-package', { package: pkg() });
    expect(existsSync(join(workspace!, 'agents.db'))).toBe(true);
    expect(await call('skills/get', { name: 'Haiku Helper', scope: 'workspace' })).toMatchObject({
      ok: true,
    });
  });

  it('refuses the workspace scope when no workspace is open', async () => {
    const { call } = setup();
    expect(await call('skills/import-package', { package: pkg(), scope: 'workspace' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT' },
    });
  });

  it('deletes, reveals the account skill, and emits catalog events', async () => {
    const { host, call } = setup({ workspace: true });
    const seen: unknown[] = [];
    host.events.subscribe('skills/catalog-changed', (p) => seen.push(p));
    await call('skills/import-package', { package: pkg({ name: 'Translate', version: '5.0.0' }) });
    const r = await call('skills/delete', { name: 'translate', scope: 'workspace' });
    expect(r).toMatchObject({
      ok: true,
      value: { deleted: { name: 'Translate', scope: 'workspace' }, revealed: { scope: 'account' } },
    });
    expect(seen).toEqual([
      { reason: 'imported', names: ['Translate'] },
      { reason: 'deleted', names: ['Translate'] },
    ]);
    expect(await call('skills/delete', { name: 'translate', scope: 'workspace' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
  });

  it('app/info names the stores and carries no secrets', async () => {
    const home = tempDir();
    const host = testHost({
      home,
      env: { OPENAI_API_KEY: 'sk-secret-123', ANTHROPIC_API_KEY: 'sk-ant-456' },
      mode: 'web',
    });
    const r = await invokeChannel(host.handlers, 'app/info', {}, { transport: 'in-process' }, quiet);
    expect(r).toMatchObject({
      ok: true,
      value: { name: 'SkillDesk', mode: 'web', home, stores: { account: { file: join(home, 'agents.db') } } },
    });
    expect(JSON.stringify(r)).not.toMatch(/sk-secret|sk-ant/);
  });
});
