import { describe, expect, it } from 'vitest';
import { SkillCatalog } from '../skills/index.js';
import { openStore } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { explainMatch, matchSkills } from './phase1.js';
import { addSkill } from './test-catalog.js';

describe('phase-1 override by name', () => {
  it('hides the account étude behind the workspace ÉTUDE, and straße behind STRASSE', () => {
    const account = openStore('account', tempDir())!;
    const workspace = openStore('workspace', tempDir())!;
    addSkill(account, { name: 'étude', description: 'practice piano scales daily' });
    addSkill(account, { name: 'straße', description: 'plan a street route' });
    addSkill(workspace, { name: 'ÉTUDE', description: 'practice piano scales with our teacher' });
    addSkill(workspace, { name: 'STRASSE', description: 'plan a street route for deliveries' });
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
