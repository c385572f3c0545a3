// Reading a skill offers the external (MCP) tools it declares in allowed-tools, and only
// then; reading one artifact, or a skill that declares none, offers nothing new.
import { describe, expect, it } from 'vitest';
import { type ArtifactDispatcher, createRunScope } from '../dispatch/index.js';
import type { LlmToolSpec } from '../llm/index.js';
import { importPackages } from '../skills/import.js';
import { SkillCatalog } from '../skills/index.js';
import { validatePackage } from '../skills/package-schema.js';
import { openStore } from '../store/stores.js';
import { smallPackage, tempDir } from '../test-support/index.js';
import { type ExternalTools, TurnTools } from './tools.js';

describe('tools a skill declares', () => {
  it('are offered after read_skill, named in its result, and called through the external source', async () => {
    const store = openStore('account', tempDir())!;
    const pkg = { ...smallPackage('Notes Reader', '1.0.0'), allowed_tools: 'Read mcp__files__read_file' };
    const plain = smallPackage('Plain', '1.0.0');
    const r = [validatePackage(pkg), validatePackage(plain)];
    importPackages(
      store,
      r.map((x, i) => {
        if (!x.ok) throw new Error('bad fixture');
        return { file: `${i}.json`, pkg: x.value };
      }),
    );
    const catalog = new SkillCatalog(store, null);
    const offered: LlmToolSpec[] = [];
    const asked: unknown[] = [];
    const external: ExternalTools = {
      prepare: async () => {},
      specs: () => offered,
      call: (name, args) =>
        offered.some((s) => s.name === name)
          ? Promise.resolve({ ok: true, result: { name, args } })
          : undefined,
      reveal: async (skill) => {
        asked.push(skill);
        if (!skill.allowed_tools?.includes('mcp__files__read_file')) return [];
        offered.push({ name: 'files__read_file', parameters: { type: 'object' } });
        return ['files__read_file'];
      },
    };
    const tools = new TurnTools({
      catalog,
      dispatcher: {} as ArtifactDispatcher,
      runners: { scripts: null, python: null },
      scope: createRunScope({ session_id: 's', llm: null }),
      external,
    });
    expect(tools.specs().map((s) => s.name)).not.toContain('files__read_file');
    expect(await tools.call('files__read_file', {})).toMatchObject({ ok: false });

    await tools.call('read_skill', { name: 'Plain' });
    expect(tools.specs().map((s) => s.name)).not.toContain('files__read_file');

    const read = await tools.call('read_skill', { name: 'Notes Reader' });
    expect((read.result as { tools: string[] }).tools).toContain('files__read_file');
    expect(tools.specs().map((s) => s.name)).toContain('files__read_file');
    expect(await tools.call('files__read_file', { path: 'a.md' }, { call_id: 'c1' })).toEqual({
      ok: true,
      result: { name: 'files__read_file', args: { path: 'a.md' } },
    });
    expect(asked).toEqual([
      expect.objectContaining({ name: 'Notes Reader', allowed_tools: 'Read mcp__files__read_file' }),
    ]);
    catalog.close();
  });
});
