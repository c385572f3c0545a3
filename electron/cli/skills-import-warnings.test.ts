import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../test-support/index.js';

const skillMd = (name: string) =>
  `---\nname: ${name}\ndescription: Checks the tone of a text.\n---\n# Tone\n`;

describe('skilldesk skills import: Agent Skills names', () => {
  it('imports a folder whose name breaks the standard, warning on stderr and not in --json', async () => {
    const home = tempDir();
    const dir = join(tempDir(), 'Tone Check');
    mkdirSync(dir);
    writeFileSync(join(dir, 'SKILL.md'), skillMd('Tone Check'));
    const r = await runCli(['--home', home, '--json', 'skills', 'import', dir]);
    expect(r.code).toBe(0);
    expect(r.json().imported[0]).toMatchObject({ name: 'Tone Check', action: 'created' });
    expect(r.stderr).toMatch(/warning: .*Tone Check: name: "Tone Check" breaks the Agent Skills naming rule/);
  });

  it('warns when the name differs from its folder, and is quiet when it complies', async () => {
    const home = tempDir();
    const root = tempDir();
    mkdirSync(join(root, 'tone'));
    writeFileSync(join(root, 'tone', 'SKILL.md'), skillMd('tone-check'));
    mkdirSync(join(root, 'summary'));
    writeFileSync(join(root, 'summary', 'SKILL.md'), skillMd('summary'));
    const r = await runCli(['--home', home, 'skills', 'import', root]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/"tone-check" differs from its folder "tone"/);
    expect(r.stderr).not.toMatch(/summary/);
  });
});

describe('skilldesk skills validate: warnings', () => {
  it('reports a JSON Schema that does not compile as a warning, exit 0', async () => {
    const dir = tempDir();
    const file = join(dir, 'pkg.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'Shapes',
        description: 'Checks a shape.',
        artifacts: [
          {
            kind: 'prompt_template',
            name: 'Shape',
            content: 'Describe {{ shape }}.',
            metadata: { assertions: [{ type: 'structural', schema: { type: 'blob' } }] },
          },
        ],
      }),
    );
    const r = await runCli(['--home', tempDir(), '--json', 'skills', 'validate', file]);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({
      ok: true,
      templates: [{ artifact: 'Shape', ok: true, variables: ['shape'] }],
      warnings: [
        {
          path: 'artifacts[0].metadata.assertions[0].schema',
          message: expect.stringMatching(/does not compile/),
        },
      ],
    });
    const text = await runCli(['--home', tempDir(), 'skills', 'validate', file]);
    expect(text.stdout).toMatch(
      /warning: artifacts\[0\]\.metadata\.assertions\[0\]\.schema: the JSON Schema does not compile/,
    );
  });
});
