// Claude Code's invocation fields in a SKILL.md are honoured: `disable-model-invocation: true`
// keeps a skill out of phase-1 matching (still listed and started by name), `user-invocable: false`
// keeps it out of the chat's `/` menu, and `argument-hint` is what that menu shows next to it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { slashMatches } from '../../renderer/features/chat/ComposerExtras.js';
import { loadPackages, packageForChannel } from '../skills/import.js';
import { DEFAULT_LIMITS } from '../skills/limits.js';
import { invocationFields } from '../store/invocation.js';
import { runCli, tempDir, testHost } from '../test-support/index.js';

function skillFolder(root: string, slug: string, extra: string, body: string): string {
  const dir = join(root, slug);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'SKILL.md'), `---\nname: ${slug}\n${extra}---\n${body}\n`);
  return dir;
}

describe('Claude Code invocation fields', () => {
  it('reads the flags from the kept frontmatter, quoted or not, and nothing from a plain one', () => {
    expect(invocationFields('---\nname: a\ndescription: b\n---\n')).toBeNull();
    expect(invocationFields(undefined)).toBeNull();
    expect(invocationFields('---\nname: a\ndisable-model-invocation: "true"\n---\n')).toEqual({
      model_invocable: false,
      user_invocable: true,
    });
    expect(
      invocationFields('\uFEFF---\r\nuser-invocable: false\r\nargument-hint: "[file]"\r\n---\r\n'),
    ).toEqual({
      model_invocable: true,
      user_invocable: false,
      argument_hint: '[file]',
    });
    // A false disable flag changes nothing.
    expect(invocationFields('---\ndisable-model-invocation: false\n---\n')).toBeNull();
  });

  it('skips a disable-model-invocation skill in matching, lists it, and follows user-invocable and argument-hint in the / menu', async () => {
    const root = tempDir();
    skillFolder(
      root,
      'deploy-widgets',
      'description: Deploy the widget service to production servers.\ndisable-model-invocation: true\nargument-hint: "[environment]"\n',
      'Deploy the widgets to the named environment.',
    );
    skillFolder(
      root,
      'widget-conventions',
      'description: Conventions of the widget service codebase, for background knowledge.\nuser-invocable: false\n',
      'Widgets are named in kebab case.',
    );
    skillFolder(
      root,
      'widget-report',
      'description: Write a report on the widget service health.\n',
      'Summarise the widget service.',
    );
    // The CLI imports the folder and reports the fields in `skills list --json`.
    const home = tempDir();
    expect((await runCli(['--home', home, 'skills', 'import', root])).code).toBe(0);
    const listed = await runCli(['--home', home, 'skills', 'list', '--json']);
    expect(listed.code).toBe(0);
    const byName = new Map(
      (listed.json() as { skills: Array<Record<string, unknown>> }).skills.map((x) => [x.name, x]),
    );
    expect(byName.get('deploy-widgets')).toMatchObject({
      model_invocable: false,
      argument_hint: '[environment]',
    });
    expect(byName.get('widget-conventions')).toMatchObject({ user_invocable: false });
    expect(byName.get('widget-report')).not.toHaveProperty('model_invocable');
    const cliMatch = await runCli(['--home', home, 'skills', 'match', 'deploy widgets', '--json']);
    expect(cliMatch.code).toBe(0);
    expect(cliMatch.stdout).not.toContain('deploy-widgets');
    const cliOther = await runCli([
      '--home',
      home,
      'skills',
      'match',
      'widget service health report',
      '--json',
    ]);
    expect(cliOther.stdout).toContain('widget-report');

    const loaded = await loadPackages(root, DEFAULT_LIMITS);
    const host = testHost();
    const ctx = { transport: 'in-process' as const };
    await host.handlers['skills/import-packages'](
      { packages: loaded.map((l) => ({ file_name: l.file, package: packageForChannel(l) })) },
      ctx,
    );

    // Phase 1 never picks the skill the model may not start, even for its own words.
    for (const message of ['deploy the widget service to production', 'deploy widgets']) {
      const r = await host.handlers['skills/match']({ message, limit: 20 }, ctx);
      expect(
        r.matches.map((m) => m.name),
        message,
      ).not.toContain('deploy-widgets');
    }
    // The others still match (user-invocable: false is about the menu, not the model).
    const conv = await host.handlers['skills/match']({ message: 'widget service codebase conventions' }, ctx);
    expect(conv.matches.map((m) => m.name)).toContain('widget-conventions');
    const report = await host.handlers['skills/match'](
      { message: 'report on the widget service health' },
      ctx,
    );
    expect(report.matches[0]?.name).toBe('widget-report');

    // Listed, and marked; the / menu (fed by skills/list) follows the fields.
    const { skills } = await host.handlers['skills/list']({}, ctx);
    const deploy = skills.find((s) => s.name === 'deploy-widgets');
    expect(deploy).toMatchObject({ model_invocable: false, argument_hint: '[environment]' });
    expect(deploy?.user_invocable).toBeUndefined();
    expect(skills.find((s) => s.name === 'widget-conventions')).toMatchObject({ user_invocable: false });
    const report2 = skills.find((s) => s.name === 'widget-report')!;
    expect(report2.model_invocable).toBeUndefined();
    expect(report2.argument_hint).toBeUndefined();
    expect(slashMatches(skills, 'widget').map((s) => s.name)).toEqual(['widget-report', 'deploy-widgets']);
    expect(slashMatches(skills, 'deploy').map((s) => [s.name, s.argument_hint])).toEqual([
      ['deploy-widgets', '[environment]'],
    ]);
    expect(slashMatches(skills, 'conventions')).toEqual([]);

    // Started by name it still runs: skills/get (what apply_skill and the / menu load) finds it.
    const got = await host.handlers['skills/get']({ name: 'deploy-widgets' }, ctx);
    expect(got.skill).toMatchObject({ name: 'deploy-widgets', model_invocable: false });
  });
});
