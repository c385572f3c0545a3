// `skills/changes`: the catalog's change log as a cursor a cache can follow.
import { describe, expect, it } from 'vitest';
import { smallPackage, tempDir, testHost } from '../test-support/index.js';
import { createInProcessClient } from '../transport/in-process-client.js';

describe('skills/changes', () => {
  it('starts with everything, then gives only what changed, and nothing when nothing did', async () => {
    const core = createInProcessClient(testHost({ home: tempDir() }));
    const first = await core.invoke('skills/changes', {});
    expect(first).toMatchObject({ changed: true, scopes: ['account'] });
    expect(first.changes).toHaveLength(1);
    expect(first.changes[0]).toMatchObject({ scope: 'account', reset: true, removed: [] });
    const seeded = first.changes[0]!.upserted.length;
    expect(seeded).toBeGreaterThan(3);

    const idle = await core.invoke('skills/changes', { since: first.cursor });
    expect(idle).toEqual({ cursor: first.cursor, changed: false, scopes: ['account'], changes: [] });

    await core.invoke('skills/import-package', { package: smallPackage('Log Follower') });
    const added = await core.invoke('skills/changes', { since: first.cursor });
    expect(added.changes).toEqual([
      {
        scope: 'account',
        reset: false,
        upserted: [
          expect.objectContaining({ name: 'Log Follower', scope: 'account', artifacts: expect.any(Array) }),
        ],
        removed: [],
      },
    ]);
    const id = added.changes[0]!.upserted[0]!.id;

    await core.invoke('skills/delete', { name: 'Log Follower', scope: 'account' });
    const gone = await core.invoke('skills/changes', { since: added.cursor });
    expect(gone.changes).toEqual([{ scope: 'account', reset: false, upserted: [], removed: [id] }]);

    // A cursor that is not one (or of another store) starts over.
    const reset = await core.invoke('skills/changes', { since: 'not-a-cursor' });
    expect(reset.changes[0]).toMatchObject({ reset: true });
    expect(reset.changes[0]!.upserted).toHaveLength(seeded);
  });

  it('pages a listing with every skill exactly as skills/get gives it, artifacts in order', async () => {
    const core = createInProcessClient(testHost({ home: tempDir() }));
    for (const name of ['Paged One', 'Paged Two', 'Paged Three'])
      await core.invoke('skills/import-package', { package: smallPackage(name) });
    const listed = [];
    let r = await core.invoke('skills/changes', { limit: 2 });
    for (;;) {
      for (const c of r.changes) listed.push(...c.upserted);
      if (!r.more) break;
      r = await core.invoke('skills/changes', { since: r.cursor, limit: 2 });
    }
    expect(new Set(listed.map((d) => d.id)).size).toBe(listed.length);
    expect(listed.length).toBeGreaterThan(5);
    for (const d of listed) {
      const { skill } = await core.invoke('skills/get', { name: d.name, scope: 'account' });
      expect(d).toEqual(skill);
    }
  });
});
