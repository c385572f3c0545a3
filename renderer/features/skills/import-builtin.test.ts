// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import type { Host } from '../../../electron/host.js';
import { inProcessClient, samplePackage } from '../../test-support.js';
import { createComposerStore } from '../composer/composer-store.js';
import { createSkillsStore } from './skills-store.js';

describe('importing over a built-in skill from the skills view (the Composer import)', () => {
  let host: Host | undefined;
  afterEach(() => host?.dispose());

  it('reports the conflict, offering to force, and replaces the built-in only when forced', async () => {
    const c = inProcessClient();
    host = c.host;
    const store = createSkillsStore(c.client);
    const importer = createComposerStore(c.client, null);
    await store.getState().load();
    const text = JSON.stringify(samplePackage({ name: 'SUMMARIZE' }));
    await importer.getState().importFiles([{ name: 'mine.json', text: async () => text }]);
    const [refused] = importer.getState().imports.rows ?? [];
    expect(refused).toMatchObject({ outcome: 'refused' });
    expect(refused!.detail).toMatch(/built-in/);
    expect(refused!.detail).toMatch(/--force/);
    await store.getState().load();
    expect(store.getState().list.items.find((i) => i.name === 'Summarize')?.source).toBe('system');

    await importer.getState().importAgainForced();
    expect(importer.getState().imports.rows).toMatchObject([{ outcome: 'updated' }]);
    await store.getState().load();
    const items = store.getState().list.items.filter((i) => i.name.toLowerCase() === 'summarize');
    expect(items).toEqual([expect.objectContaining({ name: 'SUMMARIZE', source: 'user' })]);
  });

  it('refuses a package claiming to be built in, pointing at the source field', async () => {
    const c = inProcessClient();
    host = c.host;
    const importer = createComposerStore(c.client, null);
    const text = JSON.stringify(samplePackage({ source: 'system' }));
    await importer.getState().importFiles([{ name: 'sys.json', text: async () => text }]);
    const [r] = importer.getState().imports.rows ?? [];
    expect(r).toMatchObject({ outcome: 'refused' });
    expect(r!.issues).toEqual([expect.objectContaining({ path: 'source' })]);
  });
});
