import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore, type SkillStore } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { skillSlug } from './agent-skill.js';
import { exportAgentSkill } from './export.js';
import { importPackages, loadPackages } from './import.js';
import { DEFAULT_LIMITS } from './limits.js';
import { agentSkillWarnings } from './lint.js';
import type { SkillPackage } from './package-schema.js';
import { skillsRefWarnings } from './skills-ref-rules.js';

// The reference validator (PyPI `skills-ref`, command `agentskills`) is installed into the
// sidecar's environment by `npm install` (sidecar/requirements.txt). In CI a missing validator
// fails here; elsewhere the tests say so and are skipped. SKILLS_REF names another copy.
const root = join(import.meta.dirname, '..', '..');
const venvBin = join(root, 'sidecar', '.venv', process.platform === 'win32' ? 'Scripts' : 'bin');
const validator =
  process.env.SKILLS_REF ??
  [join(venvBin, 'agentskills'), join(venvBin, 'agentskills.exe')].find((p) => existsSync(p));
if (!validator && process.env.CI)
  throw new Error(`skills-ref is not installed (${venvBin}/agentskills); run node scripts/setup-sidecar.mjs`);
const d = validator ? describe : describe.skip;

function validate(dir: string): { ok: boolean; out: string } {
  const r = spawnSync(validator!, ['validate', dir], { encoding: 'utf8', timeout: 60_000 });
  return { ok: r.status === 0, out: `${r.stdout}${r.stderr}` };
}

const store = (): SkillStore => openStore('account', tempDir())!;
const SEEDS = join(root, 'seed-skills');
const seeds = readdirSync(SEEDS).filter((f) => f.endsWith('.json'));

d('skills-ref validate on exported skills', () => {
  it.each(seeds)('the built-in %s exports as a valid Agent Skill', (file) => {
    const pkg = JSON.parse(readFileSync(join(SEEDS, file), 'utf8')) as SkillPackage;
    const s = store();
    importPackages(s, [{ file, pkg: { ...pkg, source: 'user' } }]);
    const { dir } = exportAgentSkill(s.repo.getSkillByName(pkg.name)!, join(tempDir(), skillSlug(pkg.name)));
    const r = validate(dir);
    expect(r.out).toMatch(/Valid skill/);
    expect(r.ok).toBe(true);
  });

  it('rejects what SkillDesk warns about: a description over 1,024 characters', async () => {
    const s = store();
    const long = 'Checks the tone of a text. '.repeat(45).trim();
    const file = join(tempDir(), 'p.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'Long Tone',
        description: long,
        artifacts: [{ kind: 'approach', name: 'How', content: 'Be kind.' }],
      }),
    );
    const [loaded] = await loadPackages(file, DEFAULT_LIMITS);
    // SkillDesk takes it (its own limit is 2,000) and says what the validator will say.
    expect(agentSkillWarnings(loaded!.pkg)).toEqual([
      expect.objectContaining({ path: 'description', message: expect.stringMatching(/1,024/) }),
    ]);
    importPackages(s, [loaded!]);
    const { dir } = exportAgentSkill(s.repo.getSkillByName('Long Tone')!, join(tempDir(), 'long-tone'));
    const r = validate(dir);
    expect(r.ok).toBe(false);
    expect(r.out).toMatch(/Description exceeds 1024/);
  });
});

d('import warnings agree with skills-ref validate', () => {
  // Real public skills (Anthropic's skills and plugins in the fixtures) and crafted bad ones.
  const FIXTURES = join(root, 'electron', 'skills', 'fixtures');
  const real = [
    ...readdirSync(join(FIXTURES, 'anthropic'))
      .filter((n) => existsSync(join(FIXTURES, 'anthropic', n, 'SKILL.md')))
      .map((n) => join(FIXTURES, 'anthropic', n)),
    ...['discord', 'telegram', 'example-plugin'].flatMap((p) => {
      const skills = join(FIXTURES, 'anthropic-plugins', p, 'skills');
      return readdirSync(skills).map((n) => join(skills, n));
    }),
  ];
  const fm = (s: string) => `---\n${s}\n---\n# Body\n`;
  const crafted: Record<string, string> = {
    ok: fm('name: ok\ndescription: Fine.'),
    'flow-list': fm('name: flow-list\ndescription: x\nmetadata:\n  trigger-keywords: ["a", "b"]'),
    'flow-mcp': fm('name: flow-mcp\ndescription: x\nmetadata:\n  mcp: [rube]'),
    'flow-map': fm('name: flow-map\ndescription: x\nmetadata: {a: b}'),
    'block-list': fm('name: block-list\ndescription: x\nallowed-tools:\n  - Read\n  - Write'),
    anchor: fm('name: &n anchor\ndescription: *n'),
    tagged: fm('name: tagged\ndescription: !!str x'),
    'dup-key': fm('name: dup-key\ndescription: x\ndescription: y'),
    'extra-key': fm('name: extra-key\ndescription: x\nuser-invocable: true'),
    'Upper-Name': fm('name: Upper-Name\ndescription: x'),
    'double--hyphen': fm('name: double--hyphen\ndescription: x'),
    'other-folder': fm('name: not-the-folder\ndescription: x'),
    'empty-description': fm("name: empty-description\ndescription: ''"),
    'long-description': fm(`name: long-description\ndescription: ${'word '.repeat(205).trim()}`),
    'long-compat': fm(`name: long-compat\ndescription: x\ncompatibility: ${'y'.repeat(501)}`),
    'list-compat': fm('name: list-compat\ndescription: x\ncompatibility:\n  - a'),
    'no-name': fm('description: x'),
    bom: `\uFEFF${fm('name: bom\ndescription: x')}`,
    crlf: fm('name: crlf\ndescription: x').replace(/\n/g, '\r\n'),
    'not-a-map': fm('- a\n- b'),
    'dashes-in-value': fm('name: dashes-in-value\ndescription: a---b'),
    'colon-value': fm('name: colon-value\ndescription: x: y'),
    'quoted-brackets': fm('name: quoted-brackets\ndescription: "[x] and {y}"'),
    'unicode-name-é': fm('name: unicode-name-é\ndescription: x'),
  };
  // Each crafted folder is written by its own test (temporary folders last one test).
  const make = (folder: string) => {
    const dir = join(tempDir(), folder);
    mkdirSync(dir);
    writeFileSync(join(dir, 'SKILL.md'), crafted[folder]!);
    return dir;
  };
  it.each([...real, ...Object.keys(crafted)])('%s', (which) => {
    const dir = which in crafted ? make(which) : which;
    const warnings = skillsRefWarnings(readFileSync(join(dir, 'SKILL.md')), basename(dir));
    const verdict = validate(dir);
    expect(warnings.length === 0, `${JSON.stringify(warnings)}\n${verdict.out}`).toBe(verdict.ok);
  });
});
