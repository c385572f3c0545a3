// The sources/* slice through a host (what Settings → Sources calls), and the background checks.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openCatalog } from '../skills/index.js';
import { runCli, tempDir, testHost } from '../test-support/index.js';
import { createInProcessClient } from '../transport/index.js';
import { startBackgroundChecks } from './handlers.js';

function repo(): { dir: string; commit: (name: string, body: string) => void } {
  const dir = tempDir('skilldesk-src-h-');
  const git = (...a: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...a], { cwd: dir });
  git('init', '-q', '-b', 'main');
  const commit = (name: string, body: string) => {
    mkdirSync(join(dir, name), { recursive: true });
    writeFileSync(
      join(dir, name, 'SKILL.md'),
      `---\nname: ${name}\ndescription: Does ${name}\n---\n${body}\n`,
    );
    git('add', '-A');
    git('commit', '-q', '-m', name);
  };
  return { dir, commit };
}

describe('sources/* handlers', () => {
  it('lists sources with their last check, checks, accepts per skill, and switches background checks', async () => {
    const r = repo();
    r.commit('one', 'First.');
    r.commit('two', 'Second.');
    const home = tempDir();
    expect((await runCli(['sources', 'add', r.dir, '--name', 'mine'], { SKILLDESK_HOME: home })).code).toBe(
      0,
    );
    const client = createInProcessClient(testHost({ home }));
    const listed = await client.invoke('sources/list', {});
    expect(listed.background_checks).toBe(true);
    expect(listed.sources).toHaveLength(1);
    expect(listed.sources[0]!.last_check!.skills.map((s) => s.status)).toEqual(['added', 'added']);

    const up = await client.invoke('sources/update', { id: 'mine', scope: 'account', skills: ['one'] });
    expect(up.installed.map((i) => i.name)).toEqual(['one']);
    const names = (await client.invoke('skills/list', {})).skills.map((s) => s.name);
    expect(names).toContain('one');
    expect(names).not.toContain('two');

    r.commit('one', 'First, changed.');
    const checked = await client.invoke('sources/check', { id: 'mine', scope: 'account' });
    expect(checked.skills.find((s) => s.name === 'one')!.status).toBe('changed');
    expect(checked.updates_available).toBe(2);
    const all = await client.invoke('sources/update', { id: 'mine', scope: 'account', all: true });
    expect(all.installed.map((i) => `${i.name}:${i.action}`)).toEqual(['one:updated', 'two:created']);

    expect((await client.invoke('sources/set-background-checks', { enabled: false })).background_checks).toBe(
      false,
    );
    expect((await client.invoke('sources/list', {})).background_checks).toBe(false);
    await expect(client.invoke('sources/check', { id: 'nope', scope: 'account' })).rejects.toThrow(
      /no source named "nope"/,
    );
  });

  it('checks every source in the background and installs nothing', async () => {
    const r = repo();
    r.commit('one', 'First.');
    const home = tempDir();
    expect((await runCli(['sources', 'add', r.dir, '--name', 'bg'], { SKILLDESK_HOME: home })).code).toBe(0);
    r.commit('three', 'Third.');
    const catalog = openCatalog({ home, env: {} });
    try {
      const deps = {
        catalog: { get: () => catalog } as never,
        home,
        env: {},
        limits: { maxBytes: 1e7, maxFiles: 500, maxRatio: 100 },
      };
      const logs: string[] = [];
      const stop = startBackgroundChecks({ ...deps, log: (m) => logs.push(m) }, 0, 60_000);
      const client = createInProcessClient(testHost({ home }));
      await expect
        .poll(
          async () =>
            (await client.invoke('sources/list', {})).sources[0]!.last_check!.skills.map((s) => s.name),
          {
            timeout: 20_000,
          },
        )
        .toEqual(['one', 'three']);
      stop();
      expect(logs).toEqual([]);
      // Nothing was installed by the check.
      expect((await client.invoke('skills/list', {})).skills.map((s) => s.name)).not.toContain('three');
    } finally {
      catalog.close();
    }
  });
});
