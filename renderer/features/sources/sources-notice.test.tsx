// @vitest-environment jsdom
// The sidebar's sources notice over the real handler table and the real background check: what a
// check finds is said without opening Settings, leads there, and stays dismissed until something
// new is found.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { ListSourcesRes } from '../../../electron/contract/sources.js';
import { openCatalog } from '../../../electron/skills/index.js';
import { startBackgroundChecks } from '../../../electron/sources/index.js';
import { runCli, tempDir } from '../../../electron/test-support/index.js';
import { createStores, StoresProvider } from '../../stores.js';
import { inProcessClient } from '../../test-support.js';
import { describeAttention, sourcesAttention } from './attention.js';
import { SourcesNotice } from './SourcesNotice.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
  localStorage.clear();
});

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 800; i++) {
    if (check()) return;
    await act(() => new Promise((r) => setTimeout(r, 25)));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function repo() {
  const dir = tempDir('skilldesk-src-notice-');
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

describe('the sources notice', () => {
  it('says what a background check found, opens Settings → Sources, and stays dismissed until something new', async () => {
    const r = repo();
    r.commit('tidy', 'Tidy the notes.');
    const { client, host } = inProcessClient();
    const home = (await client.invoke('app/info', {})).home;
    const env = { SKILLDESK_HOME: home };
    expect((await runCli(['sources', 'add', r.dir, '--name', 'team'], env)).code).toBe(0);
    expect((await runCli(['sources', 'update', 'team', '--all'], env)).code).toBe(0);

    // The in-process handlers answer in order: a read made now is answered after the notice's.
    const settled = () =>
      act(async () => {
        await client.call('sources/list', {});
        await client.call('sources/list', {});
      });
    const stores = createStores(client);
    const el = document.createElement('div');
    document.body.append(el);
    const root = createRoot(el);
    cleanups.push(() => {
      act(() => root.unmount());
      el.remove();
    });
    act(() =>
      root.render(
        <StoresProvider stores={stores}>
          <SourcesNotice />
        </StoresProvider>,
      ),
    );
    // Everything accepted: nothing to say (once the notice's own read has been answered).
    await settled();
    expect(el.querySelector('.sources-notice')).toBeNull();

    // Upstream moves on; the app's background check (the same function the host starts) finds it.
    r.commit('tidy', 'Tidy the notes, then sort them.');
    r.commit('fresh', 'Something new.');
    const catalog = openCatalog({ home, env: {} });
    cleanups.push(() => catalog.close());
    const stop = startBackgroundChecks(
      {
        catalog: { get: () => catalog } as never,
        home,
        env: {},
        limits: { maxBytes: 1e7, maxFiles: 500, maxRatio: 100 },
        log: () => {},
        onChecked: (checked) => host.events.emit('sources/checked', { checked }),
      },
      0,
      60_000,
    );
    cleanups.push(stop);
    await until(() => el.querySelector('.sources-notice') !== null, 'the notice');
    expect(el.textContent).toContain('Skill sources: 1 update, 1 new skill');
    // Nothing was installed by the check.
    expect((await client.invoke('skills/list', {})).skills.map((s) => s.name)).not.toContain('fresh');

    const review = [...el.querySelectorAll('button')].find((b) => b.textContent === 'Review in Settings')!;
    act(() => review.click());
    expect(stores.app.getState().view).toBe('settings');

    act(() => el.querySelector<HTMLButtonElement>('[aria-label="Dismiss the sources notice"]')!.click());
    expect(el.querySelector('.sources-notice')).toBeNull();
    // Dismissed for these findings, also in a new window.
    act(() => root.render(<StoresProvider stores={createStores(client)}>{null}</StoresProvider>));
    act(() =>
      root.render(
        <StoresProvider stores={createStores(client)}>
          <SourcesNotice />
        </StoresProvider>,
      ),
    );
    await settled();
    expect(el.querySelector('.sources-notice')).toBeNull();

    // Accepting the update leaves only the new skill, a new finding: the notice is back.
    expect((await runCli(['sources', 'update', 'team', '--skill', 'tidy'], env)).code).toBe(0);
    host.events.emit('sources/checked', { checked: 1 });
    await until(() => el.querySelector('.sources-notice') !== null, 'the notice again');
    expect(el.textContent).toContain('Skill sources: 1 new skill');
  }, 60_000);

  it('counts skills changed since accepted first, and says nothing without a finding', () => {
    const list = (skills: Array<Record<string, unknown>>): ListSourcesRes =>
      ({
        background_checks: true,
        sources: [
          {
            source: { id: 'team', scope: 'account' },
            last_check: {
              revision: 'abc',
              skills: skills.map((s) => ({
                tampered: false,
                tampered_files: [],
                upstream_version: null,
                ...s,
              })),
            },
          },
        ],
      }) as never;
    const a = sourcesAttention(
      list([
        { name: 'one', status: 'unchanged', tampered: true, tampered_files: ['SKILL.md'] },
        { name: 'two', status: 'removed' },
        { name: 'three', status: 'conflict' },
      ]),
    );
    expect(describeAttention(a)).toBe('1 skill changed since you accepted it, 1 skill removed upstream');
    const none = sourcesAttention(
      list([
        { name: 'one', status: 'unchanged' },
        { name: 'x', status: 'conflict' },
      ]),
    );
    expect(describeAttention(none)).toBeNull();
    expect(none.key).toBe('');
  });
});
