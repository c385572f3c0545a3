import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventPayload } from '../contract/channels.js';
import { tempDir, testHost } from '../test-support/index.js';

const call = <T>(v: T | Promise<T>) => Promise.resolve(v);
const ctx = { transport: 'in-process' as const };

describe('switching the workspace at run time', () => {
  it('moves the catalog, chats and traces to the new folder, keeps the old one on a bad path, and goes back', async () => {
    const parent = tempDir();
    const a = join(parent, 'alpha');
    const b = join(parent, 'beta');
    mkdirSync(a);
    mkdirSync(b);
    writeFileSync(join(a, 'notes.md'), '# Notes');
    const host = testHost({ mode: 'web', home: tempDir() });
    const h = host.handlers;
    const changes: Array<EventPayload<'workspace/changed'>> = [];
    host.events.subscribe('workspace/changed', (e) => changes.push(e));

    await call(h['chat/send-message']({ message: 'an account chat' }, ctx));
    expect((await call(h['chat/list-sessions']({}, ctx))).sessions).toHaveLength(1);

    const opened = await call(h['workspace/open']({ path: a }, ctx));
    expect(opened).toMatchObject({ path: a, name: 'alpha', can_pick_folder: false });
    expect(opened.pages).toMatchObject({ count: 1, error: null });
    expect(changes.at(-1)).toMatchObject({ reason: 'opened', path: a });
    expect((await call(h['chat/list-sessions']({}, ctx))).sessions).toHaveLength(0);
    await call(
      h['skills/import-package'](
        {
          package: {
            name: 'Alpha Only',
            description: 'A skill of the alpha workspace.',
            version: '1.0.0',
            artifacts: [{ kind: 'prompt_template', name: 'P', content: 'Hi {{ x }}' }],
          },
          scope: 'workspace',
        },
        ctx,
      ),
    );
    await call(h['chat/send-message']({ message: 'an alpha chat' }, ctx));
    // Imports show in the progress area.
    await call(
      h['skills/import-packages'](
        {
          packages: [
            {
              file_name: 'b.json',
              package: { name: 'Alpha Two', description: 'd', version: '1.0.0', artifacts: [] },
            },
          ],
          scope: 'workspace',
        },
        ctx,
      ),
    ).catch(() => {});
    expect((await call(h['progress/list']({}, ctx))).tasks.find((t) => t.kind === 'import')).toMatchObject({
      label: 'Importing 1 skill package',
    });
    const names = async () => (await call(h['skills/list']({}, ctx))).skills.map((s) => s.name);
    expect(await names()).toContain('Alpha Only');

    // A bad path is refused and the open workspace stays.
    await expect(call(h['workspace/open']({ path: join(parent, 'nope') }, ctx))).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect((await call(h['workspace/get']({}, ctx))).path).toBe(a);

    await call(h['workspace/open']({ path: b }, ctx));
    expect(await names()).not.toContain('Alpha Only');
    expect((await call(h['chat/list-sessions']({}, ctx))).sessions).toHaveLength(0);
    expect((await call(h['app/info']({}, ctx))).workspace).toBe(b);

    await call(h['workspace/open']({ path: a }, ctx));
    expect(await names()).toContain('Alpha Only');
    expect((await call(h['chat/list-sessions']({}, ctx))).sessions).toHaveLength(1);
    expect((await call(h['workspace/recent']({}, ctx))).items.map((r) => r.name)).toEqual(['alpha', 'beta']);

    // The watcher follows a new page.
    writeFileSync(join(a, 'more.md'), '# More');
    await expect
      .poll(async () => (await call(h['workspace/get']({}, ctx))).pages?.count, { timeout: 5000 })
      .toBe(2);

    await call(h['workspace/open']({ path: null }, ctx));
    expect(await call(h['workspace/get']({}, ctx))).toMatchObject({ path: null, pages: null });
    expect((await call(h['chat/list-sessions']({}, ctx))).sessions).toHaveLength(1);
    await expect(call(h['workspace/pick-folder']({}, ctx))).rejects.toMatchObject({
      code: 'HANDLER_NOT_AVAILABLE',
    });
  });
});
