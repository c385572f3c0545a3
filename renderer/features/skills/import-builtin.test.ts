// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import type { Host } from '../../../electron/host.js';
import { inProcessClient, samplePackage } from '../../test-support.js';
import { createSkillsStore } from './skills-store.js';

describe('importing over a built-in skill from the skills view', () => {
  let host: Host | undefined;
  afterEach(() => host?.dispose());

  it('reports the conflict (offering to replace) and replaces it only when forced', async () => {
    const c = inProcessClient();
    host = c.host;
    const store = createSkillsStore(c.client);
    await store.getState().load();
    const file = {
      name: 'mine.json',
      text: async () => JSON.stringify(samplePackage({ name: 'SUMMARIZE' })),
    };
    const [refused] = await store.getState().importFiles([file]);
    expect(refused).toMatchObject({ ok: false, error: { code: 'CONFLICT', details: { source: 'system' } } });
    expect(store.getState().list.items.find((i) => i.name === 'Summarize')?.source).toBe('system');

    const [forced] = await store.getState().importFiles([file], { force: true });
    expect(forced!.ok).toBe(true);
    const items = store.getState().list.items.filter((i) => i.name.toLowerCase() === 'summarize');
    expect(items).toEqual([expect.objectContaining({ name: 'SUMMARIZE', source: 'user' })]);
  });

  it('refuses a package claiming to be built in, pointing at the source field', async () => {
    const c = inProcessClient();
    host = c.host;
    const store = createSkillsStore(c.client);
    const [r] = await store
      .getState()
      .importFiles([
        { name: 'sys.json', text: async () => JSON.stringify(samplePackage({ source: 'system' })) },
      ]);
    expect(r).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(!r!.ok && r!.error.details?.issues).toEqual([expect.objectContaining({ path: 'source' })]);
  });
});
