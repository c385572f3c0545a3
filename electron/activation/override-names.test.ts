import { describe, expect, it } from 'vitest';
import { packageToRows } from '../skills/convert.js';
import { SkillCatalog } from '../skills/index.js';
import { type SkillPackage, validatePackage } from '../skills/package-schema.js';
import { openStore, type SkillStore } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { explainMatch, matchSkills } from './phase1.js';

function add(store: SkillStore, name: string, description: string): void {
  const r = validatePackage({
    name,
    description,
    artifacts: [{ kind: 'description', name: 'd', content: 'x' }],
  });
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  const rows = packageToRows(r.value as SkillPackage);
  store.repo.createSkill(rows.skill);
  for (const a of rows.artifacts) store.repo.addArtifact(a);
}

describe('phase-1 override by name', () => {
  it('hides the account étude behind the workspace ÉTUDE, and straße behind STRASSE', () => {
    const account = openStore('account', tempDir())!;
    const workspace = openStore('workspace', tempDir())!;
    add(account, 'étude', 'practice piano scales daily');
    add(account, 'straße', 'plan a street route');
    add(workspace, 'ÉTUDE', 'practice piano scales with our teacher');
    add(workspace, 'STRASSE', 'plan a street route for deliveries');
    const c = new SkillCatalog(account, workspace);
    expect(matchSkills(c, 'practice piano scales').map((m) => `${m.scope}:${m.name}`)).toEqual([
      'workspace:ÉTUDE',
    ]);
    expect(matchSkills(c, 'plan a street route').map((m) => `${m.scope}:${m.name}`)).toEqual([
      'workspace:STRASSE',
    ]);
    const why = explainMatch(c, 'practice piano scales', { skill: 'Étude', skill_scope: 'account' });
    expect(why.skill).toMatchObject({ name: 'étude', scope: 'account', reason: 'overridden' });
    expect(explainMatch(c, 'practice piano scales', { skill: 'e\u0301tude' }).skill).toMatchObject({
      name: 'ÉTUDE',
      scope: 'workspace',
    });
    c.close();
  });
});
