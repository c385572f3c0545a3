import { describe, expect, it } from 'vitest';
import { type ArtifactDispatcher, createRunScope } from '../dispatch/index.js';
import { importPackages } from '../skills/import.js';
import { SkillCatalog } from '../skills/index.js';
import { validatePackage } from '../skills/package-schema.js';
import { openStore } from '../store/stores.js';
import { smallPackage, tempDir } from '../test-support/index.js';
import { TurnTools } from './tools.js';

function add(scope: 'account' | 'workspace', name: string, description: string) {
  const store = openStore(scope, tempDir())!;
  const r = validatePackage(smallPackage(name, '1.0.0', { description }));
  if (!r.ok) throw new Error('bad fixture');
  importPackages(store, [{ file: `${name}.json`, pkg: r.value }]);
  return store;
}

describe('skill tools look names up as the catalog lists them', () => {
  it('read_skill and apply_skill reach the workspace ÉTUDE for any spelling', async () => {
    const catalog = new SkillCatalog(
      add('account', 'étude', 'account copy'),
      add('workspace', 'ÉTUDE', 'workspace copy'),
    );
    const ran: string[] = [];
    const dispatcher = {
      runSkill: async (_scope: unknown, req: { skill: { name: string; scope: string } }) => {
        ran.push(`${req.skill.scope}:${req.skill.name}`);
        return [];
      },
    } as unknown as ArtifactDispatcher;
    const tools = new TurnTools({
      scope: createRunScope({ session_id: 's', llm: null }),
      catalog,
      dispatcher,
      runners: { scripts: null, python: null },
    });
    for (const spelling of ['étude', 'Étude', 'E\u0301TUDE']) {
      const read = await tools.call('read_skill', { name: spelling });
      expect(read).toMatchObject({ ok: true, skill: 'ÉTUDE' });
      const applied = await tools.call('apply_skill', { name: spelling, ctx: {} });
      expect(applied).toMatchObject({ ok: true, skill: 'ÉTUDE' });
    }
    expect(ran).toEqual(['workspace:ÉTUDE', 'workspace:ÉTUDE', 'workspace:ÉTUDE']);
    catalog.close();
  });
});
