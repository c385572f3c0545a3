import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore, type SkillStore } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { MANIFEST_FILE } from './agent-manifest.js';
import { skillSlug, splitFrontmatter } from './agent-skill.js';
import { contentHash } from './content-hash.js';
import { skillToPackage } from './convert.js';
import { exportAgentSkill } from './export.js';
import { importPackages, loadPackages } from './import.js';
import { DEFAULT_LIMITS } from './limits.js';
import { agentSkillNameProblem } from './lint.js';
import type { SkillPackage } from './package-schema.js';

const root = join(import.meta.dirname, '..', '..');
const SEEDS = join(root, 'seed-skills');
const ANTHROPIC = join(import.meta.dirname, 'fixtures', 'anthropic');

/** Every file under `dir`: its bytes (base64) and whether it is executable. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (abs: string, rel: string) => {
    for (const e of readdirSync(abs, { withFileTypes: true })) {
      const a = join(abs, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(a, r);
      else out[r] = `${lstatSync(a).mode & 0o111 ? 'x' : '-'} ${readFileSync(a).toString('base64')}`;
    }
  };
  walk(dir, '');
  return out;
}

const store = (): SkillStore => openStore('account', tempDir())!;

async function importPath(s: SkillStore, path: string) {
  return importPackages(s, await loadPackages(path, DEFAULT_LIMITS));
}

/** Export `name` from `s` into a fresh folder; returns the folder. */
function exportTo(s: SkillStore, name: string): string {
  return exportAgentSkill(s.repo.getSkillByName(name)!, join(tempDir(), skillSlug(name))).dir;
}

const seeds = readdirSync(SEEDS)
  .filter((f) => f.endsWith('.json'))
  .sort();
const anthropic = readdirSync(ANTHROPIC, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

describe('Agent Skills export: every built-in skill survives export → import → export', () => {
  it.each(seeds)('%s', async (file) => {
    const pkg = JSON.parse(readFileSync(join(SEEDS, file), 'utf8')) as SkillPackage;
    const s1 = store();
    // A user's copy of the built-in (packages may not claim "system").
    importPackages(s1, [{ file, pkg: { ...pkg, source: 'user' } }]);
    const original = s1.repo.getSkillByName(pkg.name)!;
    const first = exportTo(s1, pkg.name);

    // The folder is a valid Agent Skill: its name is the folder's slug.
    const slug = skillSlug(pkg.name);
    expect(first.endsWith(`/${slug}`)).toBe(true);
    const fm = splitFrontmatter(readFileSync(join(first, 'SKILL.md'), 'utf8'), 'SKILL.md').data as Record<
      string,
      unknown
    >;
    expect(fm.name).toBe(slug);
    expect(agentSkillNameProblem(String(fm.name), slug)).toBeNull();
    // Templates are never written as scripts that would not run.
    const files1 = tree(first);
    for (const p of Object.keys(files1))
      if (p.endsWith('.py')) expect(p.startsWith('templates/')).toBe(false);

    const s2 = store();
    const [outcome] = await importPath(s2, first);
    expect(outcome!.name).toBe(pkg.name);
    const back = s2.repo.getSkillByName(pkg.name)!;
    // Nothing lost: every field and artifact (display name, tags, intent patterns, templates,
    // examples, model variants, DSPy state) is back; only the body's kept frontmatter is new.
    const strip = (p: SkillPackage): SkillPackage => ({
      // An empty list exports as none (block-style YAML cannot write one); it means the same.
      ...(Object.fromEntries(
        Object.entries(p).filter(([, v]) => !(Array.isArray(v) && v.length === 0)),
      ) as SkillPackage),
      artifacts: p.artifacts.map((a) => {
        if (!a.metadata || !('frontmatter' in a.metadata)) return a;
        const { frontmatter: _f, ...metadata } = a.metadata;
        const { metadata: _m, ...rest } = a;
        return Object.keys(metadata).length > 0 ? { ...rest, metadata } : rest;
      }),
    });
    expect(strip(skillToPackage(back))).toEqual({ ...strip(skillToPackage(original)), id: back.id });
    expect(contentHash(strip(skillToPackage(back)))).toBe(contentHash(strip(skillToPackage(original))));

    const second = exportTo(s2, pkg.name);
    expect(tree(second)).toEqual(files1);
  });
});

describe("Agent Skills export: Anthropic's public skills come back byte for byte", () => {
  it.each(anthropic)('%s', async (name) => {
    const src = join(ANTHROPIC, name);
    const s1 = store();
    const [o] = await importPath(s1, src);
    expect(o!.name).toBe(name);
    const first = exportTo(s1, name);
    // The author's folder exactly: frontmatter, bodies, LICENSE, executable scripts; no manifest.
    expect(tree(first)).toEqual(tree(src));
    expect(tree(first)[MANIFEST_FILE]).toBeUndefined();
    const s2 = store();
    await importPath(s2, first);
    expect(tree(exportTo(s2, name))).toEqual(tree(src));
    expect(contentHash(skillToPackage(s2.repo.getSkillByName(name)!))).toBe(
      contentHash(skillToPackage(s1.repo.getSkillByName(name)!)),
    );
  });
});

describe('Agent Skills export: what authors wrote is kept', () => {
  it('keeps BOMs, CRLF line endings, executable bits and frontmatter keys SkillDesk does not read', async () => {
    const src = join(tempDir(), 'crlf-skill');
    mkdirSync(join(src, 'scripts'), { recursive: true });
    mkdirSync(join(src, 'references'), { recursive: true });
    writeFileSync(
      join(src, 'SKILL.md'),
      '\uFEFF---\r\nname: crlf-skill\r\ndescription: "Keeps: bytes"\r\nargument-hint: "[file]"\r\ndisable-model-invocation: true\r\nmetadata:\r\n  released: "2024-01-01"\r\n  labels:\r\n    - a\r\n    - b\r\n---\r\n# Title\r\nBody.\r\n',
    );
    writeFileSync(join(src, 'references', 'notes.md'), '\uFEFFNotes\r\n');
    writeFileSync(join(src, 'scripts', 'run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
    // Keys beyond the standard are kept, with a warning that the reference validator rejects them.
    const [loaded] = await loadPackages(src, DEFAULT_LIMITS);
    expect(loaded!.warnings).toContainEqual({
      path: 'frontmatter',
      message: expect.stringContaining('"argument-hint", "disable-model-invocation"'),
    });
    const s = store();
    await importPath(s, src);
    const out = exportTo(s, 'crlf-skill');
    expect(tree(out)).toEqual(tree(src));
    expect(tree(out)['scripts/run.sh']!.startsWith('x ')).toBe(true);
  });

  it('rewrites a changed frontmatter with its other keys, BOM and line endings kept, and quotes date-like values', async () => {
    const src = join(tempDir(), 'hint-skill');
    mkdirSync(src);
    writeFileSync(
      join(src, 'SKILL.md'),
      '---\r\nname: hint-skill\r\ndescription: Old words.\r\nargument-hint: "[file]"\r\nmetadata:\r\n  released: "2024-01-01"\r\n---\r\nBody.\r\n',
    );
    const s = store();
    await importPath(s, src);
    const sk = s.repo.getSkillByName('hint-skill')!;
    s.repo.updateSkill({ ...sk, description: 'New words.' });
    const text = readFileSync(join(exportTo(s, 'hint-skill'), 'SKILL.md'), 'utf8');
    expect(text).toBe(
      '---\r\nname: hint-skill\r\ndescription: New words.\r\nargument-hint: "[file]"\r\nmetadata:\r\n  released: "2024-01-01"\r\n---\r\nBody.\r\n',
    );
  });
});
