import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore, type SkillStore } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { skillSlug } from './agent-skill.js';
import { exportAgentSkill } from './export.js';
import { importPackages, loadPackages } from './import.js';
import { DEFAULT_LIMITS } from './limits.js';
import { agentSkillWarnings } from './lint.js';
import type { SkillPackage } from './package-schema.js';

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
