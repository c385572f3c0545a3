// Per-skill switches: on, name-only (listed and started by name, never matched into a prompt) and
// off (gone for the model, matching and the / menu), per account and per workspace, the
// workspace's switch winning — honoured by matching, the model's tools and the / menu.
import { describe, expect, it } from 'vitest';
import { slashMatches } from '../../renderer/features/chat/ComposerExtras.js';
import { runCli, tempDir, testHost } from '../test-support/index.js';

const ctx = { transport: 'in-process' as const };

describe('skill switches', () => {
  it('name-only and off leave matching; off also leaves the listing, the tools and the / menu', async () => {
    const host = testHost();
    const before = await host.handlers['skills/match']({ message: 'statistics of this csv file' }, ctx);
    expect(before.matches[0]?.name).toBe('CSV Statistics');

    const set = await host.handlers['skills/set-switch']({ name: 'csv statistics', state: 'name-only' }, ctx);
    expect(set).toMatchObject({
      name: 'CSV Statistics',
      scope: 'account',
      state: 'name-only',
      effective: 'name-only',
    });
    const named = await host.handlers['skills/match'](
      { message: 'statistics of this csv file', limit: 20 },
      ctx,
    );
    expect(named.matches.map((m) => m.name)).not.toContain('CSV Statistics');
    const why = await host.handlers['skills/match'](
      { message: 'statistics of this csv file', explain_skill: 'CSV Statistics' },
      ctx,
    );
    expect(why.explain?.skill?.reason).toBe('switched_off');
    // Listed for the model and the / menu, readable by name.
    expect(JSON.stringify(await host.handlers['skills/call-tool']({ name: 'list_skills' }, ctx))).toContain(
      'CSV Statistics',
    );
    const read = await host.handlers['skills/call-tool'](
      { name: 'read_skill', args: { name: 'CSV Statistics' } },
      ctx,
    );
    expect(JSON.stringify(read)).not.toContain('no skill named');
    let { skills } = await host.handlers['skills/list']({}, ctx);
    expect(skills.find((s) => s.name === 'CSV Statistics')?.switch).toBe('name-only');
    expect(slashMatches(skills, 'csv').map((s) => s.name)).toContain('CSV Statistics');

    await host.handlers['skills/set-switch']({ name: 'CSV Statistics', state: 'off' }, ctx);
    expect(
      JSON.stringify(await host.handlers['skills/call-tool']({ name: 'list_skills' }, ctx)),
    ).not.toContain('CSV Statistics');
    const refused = await host.handlers['skills/call-tool'](
      { name: 'read_skill', args: { name: 'CSV Statistics' } },
      ctx,
    );
    expect(JSON.stringify(refused)).toContain('no skill named');
    ({ skills } = await host.handlers['skills/list']({}, ctx));
    expect(slashMatches(skills, 'csv')).toEqual([]);

    await host.handlers['skills/set-switch']({ name: 'CSV Statistics', state: 'on' }, ctx);
    const back = await host.handlers['skills/match']({ message: 'statistics of this csv file' }, ctx);
    expect(back.matches[0]?.name).toBe('CSV Statistics');
    await host.dispose();
  });

  it('a workspace switch wins over the account one and may switch an account skill; the CLI sets and lists it', async () => {
    const home = tempDir();
    const ws = tempDir();
    const off = await runCli([
      '--home',
      home,
      '--workspace',
      ws,
      '--json',
      'skills',
      'set',
      'CSV Statistics',
      'off',
    ]);
    expect(off.code, off.stderr).toBe(0);
    expect(JSON.parse(off.stdout)).toMatchObject({ scope: 'workspace', state: 'off', effective: 'off' });
    // Off in the workspace, on in the account alone.
    const inWs = await runCli([
      '--home',
      home,
      '--workspace',
      ws,
      '--json',
      'skills',
      'match',
      'statistics of this csv file',
    ]);
    expect(JSON.parse(inWs.stdout).matches.map((m: { name: string }) => m.name)).not.toContain(
      'CSV Statistics',
    );
    const inAcc = await runCli(['--home', home, '--json', 'skills', 'match', 'statistics of this csv file']);
    expect(JSON.parse(inAcc.stdout).matches[0].name).toBe('CSV Statistics');

    // The account says name-only; the workspace's off still applies there.
    const acc = await runCli([
      '--home',
      home,
      '--workspace',
      ws,
      '--json',
      'skills',
      'set',
      'CSV Statistics',
      'name-only',
      '--scope',
      'account',
    ]);
    expect(JSON.parse(acc.stdout)).toMatchObject({ scope: 'account', state: 'name-only', effective: 'off' });
    const list = await runCli(['--home', home, '--workspace', ws, 'skills', 'list']);
    expect(list.stdout).toMatch(/CSV Statistics.*\[off\]/);

    const bad = await runCli(['--home', home, 'skills', 'set', 'CSV Statistics', 'maybe']);
    expect(bad.code).toBe(2);
    const missing = await runCli(['--home', home, 'skills', 'set', 'no such skill', 'off']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('no skill named "no such skill"');
  });
});
