import { describe, expect, it } from 'vitest';
import type { CatalogRef } from '../host/workspace-session.js';
import { SkillCatalog } from '../skills/catalog.js';
import { packageToRows } from '../skills/convert.js';
import { openStore } from '../store/stores.js';
import { tempDir } from '../test-support/index.js';
import { createTracesHandlers } from './handlers.js';
import { TraceStore } from './trace-store.js';

describe('traces/list filtered by skill name', () => {
  it('matches the name by NFKC and full case folding', async () => {
    const store = openStore('account', tempDir())!;
    const rows = packageToRows({
      name: 'Straße Étude',
      description: 'd',
      version: '1.0.0',
      artifacts: [{ kind: 'description', name: 'd', content: 'x' }],
    });
    store.repo.createSkill(rows.skill);
    for (const a of rows.artifacts) store.repo.addArtifact(a);
    const traces = new TraceStore(store.db);
    traces.finish(
      traces.start({
        session_id: 's1',
        skill_id: rows.skill.id,
        artifact_id: rows.artifacts[0]!.id,
        artifact_kind: 'description',
      }),
      {},
    );
    const catalog = new SkillCatalog(store, null);
    const ref = { get: () => catalog, hasWorkspace: () => false } as unknown as CatalogRef;
    const list = createTracesHandlers({ catalog: ref })['traces/list'];
    for (const spelling of ['STRASSE ÉTUDE', 'strasse e\u0301tude', 'Straße Étude']) {
      expect((await list({ skill: spelling })).traces, spelling).toHaveLength(1);
    }
    expect((await list({ skill: 'Strase Etude' })).traces).toHaveLength(0);
    catalog.close();
  });
});
