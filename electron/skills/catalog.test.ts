import { describe, expect, it } from 'vitest';
import { openStore } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { SkillCatalog } from './catalog.js';
import { packageToRows } from './convert.js';
import { loadSeedPackages, seedAccountStore } from './seed.js';

function add(
  store: ReturnType<typeof openStore>,
  name: string,
  version = '1.0.0',
  source: 'user' | 'system' = 'user',
) {
  const rows = packageToRows({
    name,
    description: `${name} skill`,
    version,
    source,
    artifacts: [{ kind: 'description', name: 'd', content: 'x' }],
  });
  store!.repo.createSkill(rows.skill);
  for (const a of rows.artifacts) store!.repo.addArtifact(a);
}

describe('the merged catalog', () => {
  it('prefers the workspace skill of the same name and reports the account one as overridden', () => {
    const account = openStore('account', tempDir())!;
    const workspace = openStore('workspace', tempDir())!;
    add(account, 'Shared');
    add(account, 'Only Account');
    add(workspace, 'shared');
    add(workspace, 'Only Workspace');
    const c = new SkillCatalog(account, workspace);
    expect(c.listAll().map((e) => [e.name, e.scope])).toEqual([
      ['Only Account', 'account'],
      ['Only Workspace', 'workspace'],
      ['shared', 'workspace'],
    ]);
    const all = c.listAll({ includeOverridden: true });
    expect(all.find((e) => e.scope === 'account' && e.name === 'Shared')?.overridden_by).toBe('workspace');
    expect(all.find((e) => e.scope === 'workspace' && e.name === 'shared')?.overrides).toBe('account');
    expect(c.resolve('Shared')?.scope).toBe('workspace');
    expect(c.resolve('Shared', 'account')).toMatchObject({ scope: 'account', overridden_by: 'workspace' });
  });
});

describe('seed skills', () => {
  it('ship at least six valid system skills that together cover every artifact kind', () => {
    const seeds = loadSeedPackages();
    expect(seeds.length).toBeGreaterThanOrEqual(6);
    const kinds = new Set(seeds.flatMap((s) => s.artifacts.map((a) => a.kind)));
    expect([...kinds].sort()).toEqual(
      [
        'approach',
        'code_template',
        'description',
        'dspy_module',
        'example',
        'prompt_template',
        'resource',
      ].sort(),
    );
  });

  it('upserts newer versions, leaves user skills and deletions alone', () => {
    const account = openStore('account', tempDir())!;
    add(account, 'Summarize', '9.0.0', 'user');
    const seeds = loadSeedPackages();
    seedAccountStore(account, seeds);
    expect(account.repo.getSummaryByName('Summarize')).toMatchObject({ version: '9.0.0', source: 'user' });
    expect(account.repo.getSummaryByName('Translate')?.source).toBe('system');
    // A user's deletion of a system skill sticks …
    account.repo.deleteSkill(account.repo.getSummaryByName('Translate')!.id);
    expect(seedAccountStore(account, seeds).seeded).toEqual([]);
    expect(account.repo.getSummaryByName('Translate')).toBeNull();
    // … until a newer version ships.
    const newer = seeds.map((s) => (s.name === 'Translate' ? { ...s, version: '1.1.0' } : s));
    expect(seedAccountStore(account, newer).seeded).toEqual(['Translate']);
    expect(account.repo.getSummaryByName('Translate')?.version).toBe('1.1.0');
    const bumped = newer.map((s) =>
      s.name === 'Translate' ? { ...s, version: '1.2.0', description: 'new text' } : s,
    );
    seedAccountStore(account, bumped);
    expect(account.repo.getSummaryByName('Translate')).toMatchObject({
      version: '1.2.0',
      description: 'new text',
    });
  });
});
