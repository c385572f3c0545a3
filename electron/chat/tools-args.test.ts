import { describe, expect, it } from 'vitest';
import {
  type ArtifactDispatcher,
  createRunScope,
  type RunScope,
  type RunSkillOptions,
} from '../dispatch/index.js';
import { importPackages } from '../skills/import.js';
import { SkillCatalog } from '../skills/index.js';
import { validatePackage } from '../skills/package-schema.js';
import { openStore } from '../store/stores.js';
import { smallPackage, tempDir } from '../test-support/index.js';
import { allBuiltinToolSpecs } from '../tools/index.js';
import { TurnTools } from './tools.js';

function setup() {
  const store = openStore('account', tempDir())!;
  const r = validatePackage(smallPackage('Greeter', '1.0.0', { description: 'Greets people' }));
  if (!r.ok) throw new Error('bad fixture');
  importPackages(store, [{ file: 'greeter.json', pkg: r.value }]);
  const catalog = new SkillCatalog(store, null);
  const runs: RunSkillOptions[] = [];
  const dispatcher = {
    runSkill: async (_scope: RunScope, o: RunSkillOptions) => {
      runs.push(o);
      return [];
    },
  } as unknown as ArtifactDispatcher;
  const tools = new TurnTools({
    scope: createRunScope({ session_id: 's', llm: null }),
    catalog,
    dispatcher,
    runners: { scripts: null, python: null },
  });
  return { catalog, tools, runs };
}

describe('built-in tool arguments are parsed with zod', () => {
  it('sends the model JSON Schema generated from the zod schemas', () => {
    const byName = Object.fromEntries(allBuiltinToolSpecs().map((t) => [t.name, t.parameters]));
    expect(Object.keys(byName)).toEqual([
      'list_skills',
      'search_skills',
      'read_skill',
      'apply_skill',
      'run_script',
      'run_python',
    ]);
    expect(byName.run_python).toMatchObject({
      required: ['code'],
      properties: { timeout_ms: { type: 'integer', minimum: 100, maximum: 120_000 } },
    });
    expect(byName.search_skills).toMatchObject({
      type: 'object',
      required: ['query'],
      additionalProperties: false,
      properties: { query: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 20 } },
    });
    expect(byName.apply_skill).toMatchObject({
      required: ['name'],
      properties: { ctx: { type: 'object', additionalProperties: true } },
    });
    for (const p of Object.values(byName)) {
      expect(p).not.toHaveProperty('$schema');
      expect(JSON.stringify(p)).not.toContain('propertyNames');
    }
  });

  it.each([
    ['search_skills', {}, /invalid arguments for search_skills: query: /],
    ['search_skills', { query: 'greet', limit: 'many' }, /limit: .*expected number/],
    ['search_skills', { query: 'greet', limit: 99 }, /limit: .*<=20/],
    ['read_skill', { name: 7 }, /name: .*expected string/],
    ['read_skill', 'Greeter', /arguments: .*expected object/],
    ['apply_skill', { name: 'Greeter', ctx: [1, 2] }, /ctx: .*expected record/],
    [
      'apply_skill',
      { name: 'Greeter', extra: true },
      /unknown argument "extra"; accepted: name, ctx, artifact/,
    ],
    [
      'apply_skill',
      { name: 'Greeter', context: {} },
      /unknown argument "context"; accepted: name, ctx, artifact/,
    ],
    ['list_skills', { all: true }, /unknown argument "all"; this tool takes no arguments/],
  ])('%s(%j) comes back as a clear tool error', async (name, args, message) => {
    const { tools, runs, catalog } = setup();
    const out = await tools.call(name, args);
    expect(out.ok).toBe(false);
    expect((out.result as { error: string }).error).toMatch(message);
    expect(out.result).toHaveProperty('expected.type', 'object');
    expect(runs).toHaveLength(0);
    catalog.close();
  });

  it('accepts a call without arguments where none are needed, and ctx sent as a JSON string', async () => {
    const { tools, runs, catalog } = setup();
    expect(await tools.call('list_skills', undefined)).toMatchObject({ ok: true });
    expect(await tools.call('list_skills', {})).toMatchObject({ ok: true });
    const applied = await tools.call('apply_skill', { name: 'greeter', ctx: '{"who": "Ann"}' });
    expect(applied).toMatchObject({ ok: true, skill: 'Greeter' });
    expect(runs[0]!.variables).toEqual({ who: 'Ann' });
    catalog.close();
  });

  it('an artifact the skill lacks is a tool error, not an exception', async () => {
    const { tools, runs, catalog } = setup();
    const out = await tools.call('apply_skill', { name: 'Greeter', artifact: 'Nope' });
    expect(out).toMatchObject({ ok: false, skill: 'Greeter' });
    expect((out.result as { error: string }).error).toMatch(/has no artifact "Nope"; it has: /);
    expect(runs).toHaveLength(0);
    catalog.close();
  });
});
