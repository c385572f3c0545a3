import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { isAppError } from '../contract/errors.js';
import { openStore, type SkillStore } from '../store/index.js';
import { smallPackage, tempDir } from '../test-support/index.js';
import { skillSlug } from './agent-skill.js';
import { SkillCatalog } from './catalog.js';
import { packageToRows } from './convert.js';
import { exportAgentSkill, writeAgentSkillFolder } from './export.js';
import { importPackages, type LoadedPackage, loadPackages } from './import.js';
import { DEFAULT_LIMITS } from './limits.js';
import { type SkillPackage, validatePackage } from './package-schema.js';
import { loadSeedPackages, seedAccountStore } from './seed.js';

const SKILL_MD = '---\nname: pdf-tools\ndescription: Extract text from PDF files.\n---\n\n# PDF tools\n';

function store(scope: 'account' | 'workspace' = 'account'): SkillStore {
  return openStore(scope, tempDir())!;
}

function writeJson(value: unknown, name = 'pkg.json'): string {
  const file = join(tempDir(), name);
  writeFileSync(file, JSON.stringify(value));
  return file;
}

function writeTree(files: Record<string, string>): string {
  const root = join(tempDir(), 'skill');
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), content);
  }
  return root;
}

async function zipOf(files: Record<string, string>): Promise<string> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(files)) zip.addBuffer(Buffer.from(content), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  const file = join(tempDir(), 'skill.zip');
  writeFileSync(file, Buffer.concat(chunks));
  return file;
}

function pkg(name: string, extra: Record<string, unknown> = {}): SkillPackage {
  const r = validatePackage(smallPackage(name, '1.0.0', extra));
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.value;
}

async function caught(p: Promise<unknown> | (() => unknown)): Promise<Error & { code?: string }> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    return e as Error & { code?: string };
  }
  throw new Error('expected a failure');
}

describe('built-in (system) skills', () => {
  it('refuses a package that claims source "system", naming the file and the JSON path', async () => {
    const file = writeJson(smallPackage('Sneaky', '1.0.0', { source: 'system' }));
    const err = await caught(loadPackages(file, DEFAULT_LIMITS));
    expect(isAppError(err, 'INVALID_INPUT')).toBe(true);
    expect(err.message).toBe(
      `${file}: source: "system" is reserved for the skills that ship with SkillDesk; set "source" to "user" or "community" (or remove it) to import this package`,
    );
    // The same rule holds for packages handed straight to the importer (the app's own import).
    const s = store();
    const direct = await caught(() =>
      importPackages(s, [{ file: 'drop.json', pkg: { ...pkg('Sneaky'), source: 'system' } }]),
    );
    expect(direct.message).toMatch(/^drop\.json: source: "system" is reserved/);
    expect(s.repo.countSkills()).toBe(0);
  });

  it('needs force to replace a built-in skill, under any spelling of its name, and never keeps the label', () => {
    const s = store();
    seedAccountStore(s);
    const builtIn = s.repo.getSummaryByName('Summarize')!;
    expect(builtIn.source).toBe('system');
    for (const version of ['9.0.0', builtIn.version]) {
      const loaded: LoadedPackage[] = [{ file: 'mine.json', pkg: { ...pkg('SUMMARIZE'), version } }];
      const err = (() => {
        try {
          importPackages(s, loaded);
        } catch (e) {
          return e as Error;
        }
      })();
      expect(isAppError(err, 'CONFLICT')).toBe(true);
      expect(err!.message).toMatch(/mine\.json: "Summarize" is a built-in SkillDesk skill .*--force/);
      expect(s.repo.getSummaryByName('Summarize')).toMatchObject({ id: builtIn.id, source: 'system' });
    }
    const [r] = importPackages(s, [{ file: 'mine.json', pkg: { ...pkg('SUMMARIZE'), version: '9.0.0' } }], {
      force: true,
    });
    expect(r).toMatchObject({ action: 'updated', previous_version: builtIn.version });
    expect(s.repo.getSummaryByName('summarize')).toMatchObject({
      id: builtIn.id,
      name: 'SUMMARIZE',
      source: 'user',
    });
    // A later seed leaves the user's replacement alone.
    const newer = loadSeedPackages().map((p) => (p.name === 'Summarize' ? { ...p, version: '99.0.0' } : p));
    seedAccountStore(s, newer);
    expect(s.repo.getSummaryByName('Summarize')).toMatchObject({ name: 'SUMMARIZE', source: 'user' });
  });

  it('still lets the app seed its own system skills', () => {
    const s = store();
    const { seeded } = seedAccountStore(s);
    expect(seeded.length).toBeGreaterThanOrEqual(6);
    for (const name of seeded) expect(s.repo.getSummaryByName(name)?.source).toBe('system');
  });

  it('lets a workspace skill of the same name override a built-in without force', () => {
    const account = store();
    seedAccountStore(account);
    const ws = store('workspace');
    expect(importPackages(ws, [{ file: 'a.json', pkg: pkg('summarize') }])[0]!.action).toBe('created');
  });
});

describe('names', () => {
  it('treat NFKC and case variants as one skill across an import and the store', () => {
    const s = store();
    importPackages(s, [{ file: 'a.json', pkg: pkg('ÉTUDE') }]);
    const [r] = importPackages(s, [{ file: 'b.json', pkg: { ...pkg('étude'), version: '2.0.0' } }]);
    expect(r).toMatchObject({ action: 'updated', previous_version: '1.0.0' });
    expect(s.repo.countSkills()).toBe(1);
    const both = [
      { file: 'x.json', pkg: pkg('Straße') },
      { file: 'y.json', pkg: pkg('STRASSE') },
    ];
    expect(() => importPackages(s, both)).toThrow(/y\.json: a skill named "STRASSE" is also in x\.json/);
  });

  it.each([
    ['a right-to-left override', 'Summarize\u202etxt.exe', /bidirectional-text controls \(U\+202E/],
    ['a first-strong isolate', 'Trans\u2068late', /bidirectional-text controls \(U\+2068/],
    ['a zero-width space', 'Sum\u200bmarize', /invisible, zero-width or control characters \(U\+200B/],
    ['a zero-width joiner', 'Sum\u200dmarize', /invisible, zero-width or control characters \(U\+200D/],
    ['a word joiner', 'Sum\u2060marize', /invisible, zero-width or control characters \(U\+2060/],
    ['a byte order mark', 'Sum\ufeffmarize', /invisible, zero-width or control characters \(U\+FEFF/],
  ])('refuses a name holding %s, in JSON and in SKILL.md', async (_what, name, message) => {
    const file = writeJson(smallPackage(name));
    const err = await caught(loadPackages(file, DEFAULT_LIMITS));
    expect(isAppError(err, 'INVALID_INPUT')).toBe(true);
    expect(err.message).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: name: `));
    expect(err.message).toMatch(message);
    const dir = writeTree({ 'SKILL.md': `---\nname: "${name}"\ndescription: d\n---\nbody` });
    const err2 = await caught(loadPackages(dir, DEFAULT_LIMITS));
    expect(err2.message).toMatch(message);
  });
});

describe('bundled file paths', () => {
  it.each([
    ['a reserved device name', 'nul.txt', /NUL device/],
    ['a reserved COM port', 'COM1.md', /COM1 device/],
    ['a reserved name as a folder', 'docs/con', /CON device/],
    ['a reserved LPT port with two extensions', 'lpt9.tar.gz', /LPT9 device/],
    ['a trailing dot', 'notes.', /ends in a dot or a space/],
    ['a trailing space', 'notes ', /ends in a dot or a space/],
    ['a colon', 'docs/notes:v2.md', /":", which Windows does not allow/],
    ['a question mark', 'what?.md', /"\?", which Windows does not allow/],
  ])('refuses a folder bundling a file with %s', async (_what, path, message) => {
    const dir = writeTree({ 'SKILL.md': SKILL_MD, [path]: 'x' });
    const err = await caught(loadPackages(dir, DEFAULT_LIMITS));
    expect(isAppError(err, 'UNSAFE_PATH')).toBe(true);
    expect(err.message).toContain(`${dir}: the bundled file "${path}"`);
    expect(err.message).toMatch(message);
  });

  it('refuses files whose paths differ only by case, in a folder and in a zip', async () => {
    const dir = writeTree({ 'SKILL.md': SKILL_MD, 'references/Guide.md': 'a', 'references/GUIDE.md': 'b' });
    const err = await caught(loadPackages(dir, DEFAULT_LIMITS));
    expect(err.code).toBe('UNSAFE_PATH');
    expect(err.message).toMatch(
      /"references\/Guide\.md" collides with "references\/GUIDE\.md"|"references\/GUIDE\.md" collides with "references\/Guide\.md"/,
    );
    const lower = writeTree({ 'SKILL.md': SKILL_MD, 'skill.md': 'shadow' });
    expect((await caught(loadPackages(lower, DEFAULT_LIMITS))).message).toMatch(
      /"skill\.md" collides with "SKILL\.md"/,
    );
    const zip = await zipOf({ 'SKILL.md': SKILL_MD, 'Docs/a.md': 'a', 'docs/b.md': 'b' });
    const zerr = await caught(loadPackages(zip, DEFAULT_LIMITS));
    expect(zerr.code).toBe('UNSAFE_PATH');
    expect(zerr.message).toMatch(/the bundled file "docs\/b\.md" collides with the folder "Docs"/);
  });

  it('refuses reserved names inside a zip', async () => {
    const zip = await zipOf({ 'pdf-tools/SKILL.md': SKILL_MD, 'pdf-tools/scripts/AUX.py': 'print(1)' });
    const err = await caught(loadPackages(zip, DEFAULT_LIMITS));
    expect(err.code).toBe('UNSAFE_PATH');
    expect(err.message).toMatch(/"scripts\/AUX\.py" .*AUX device/);
  });

  it('refuses non-portable paths and case collisions in JSON packages, naming the JSON path', async () => {
    const resource = (name: string, metadata?: Record<string, unknown>) => ({
      kind: 'resource',
      name,
      content: 'x',
      ...(metadata ? { metadata } : {}),
    });
    const cases: Array<[unknown[], RegExp]> = [
      [
        [resource('guide', { path: 'COM1.md' })],
        /artifacts\[1\]\.metadata\.path: the file path "COM1\.md" .*COM1 device/,
      ],
      [[resource('nul.txt')], /artifacts\[1\]\.name: the file path "nul\.txt" .*NUL device/],
      [[resource('a', { path: 'docs/x:y.md' })], /artifacts\[1\]\.metadata\.path: .*":", which Windows/],
      [
        [resource('A.md'), resource('a.md')],
        /artifacts\[2\]\.name: the file path "a\.md" collides with "A\.md"/,
      ],
      [[resource('readme', { path: 'Skill.MD' })], /collides with "SKILL\.md"/],
    ];
    for (const [extra, message] of cases) {
      const p = smallPackage('Paths');
      p.artifacts = [...(p.artifacts as unknown[]), ...extra];
      const file = writeJson(p);
      const err = await caught(loadPackages(file, DEFAULT_LIMITS));
      expect(isAppError(err, 'INVALID_INPUT')).toBe(true);
      expect(err.message).toMatch(message);
      expect(err.message.startsWith(`${file}: `)).toBe(true);
    }
  });
});

describe('export to a folder', () => {
  function stored(artifacts: Array<Record<string, unknown>>, name = 'Exported') {
    const s = store();
    const rows = packageToRows({
      name,
      description: 'd',
      version: '1.0.0',
      artifacts: [{ kind: 'approach', name: 'SKILL.md', content: 'body' }, ...(artifacts as never[])],
    });
    // Written straight to the store, as a skill imported before these checks existed would be.
    s.repo.createSkill(rows.skill);
    for (const a of rows.artifacts) s.repo.addArtifact(a);
    return s.repo.getSkillByName(name)!;
  }

  it('never writes a reserved or otherwise non-portable path', () => {
    for (const path of ['nul.txt', 'docs/COM1.md', 'trailing.', 'a:b']) {
      const skill = stored([{ kind: 'resource', name: 'r', content: 'x', metadata: { path } }]);
      const out = join(tempDir(), 'out');
      const err = (() => {
        try {
          exportAgentSkill(skill, out);
        } catch (e) {
          return e as Error;
        }
      })();
      expect(isAppError(err, 'UNSAFE_PATH')).toBe(true);
      expect(err!.message).toContain(`"${path}"`);
      expect(existsSync(out)).toBe(false);
    }
  });

  it('skips a file whose path differs from another only by case', () => {
    const skill = stored([
      { kind: 'resource', name: 'one', content: '1', metadata: { path: 'docs/Guide.md' } },
      { kind: 'resource', name: 'two', content: '2', metadata: { path: 'docs/GUIDE.md' } },
    ]);
    const r = exportAgentSkill(skill, join(tempDir(), 'out'));
    // The manifest names what the folder holds (the skipped one is not in it).
    expect(r.files.sort()).toEqual(['SKILL.md', 'docs/Guide.md', 'skilldesk.json']);
    expect(r.skipped).toEqual(['two']);
  });

  it('never names a skill folder after a Windows device', () => {
    expect(skillSlug('CON')).toBe('con-skill');
    expect(skillSlug('Com1')).toBe('com1-skill');
    expect(skillSlug('Console')).toBe('console');
  });
});

describe('lookups by name across scopes', () => {
  it('resolve ÉTUDE in the workspace over étude in the account, as the list shows', () => {
    const account = store();
    const workspace = store('workspace');
    importPackages(account, [{ file: 'a.json', pkg: pkg('étude') }]);
    importPackages(workspace, [{ file: 'w.json', pkg: pkg('ÉTUDE') }]);
    importPackages(account, [{ file: 's.json', pkg: pkg('straße') }]);
    importPackages(workspace, [{ file: 't.json', pkg: pkg('STRASSE') }]);
    const c = new SkillCatalog(account, workspace);
    const list = c.listAll({ includeOverridden: true });
    expect(list.find((e) => e.name === 'ÉTUDE')).toMatchObject({ scope: 'workspace', overrides: 'account' });
    expect(list.find((e) => e.name === 'étude')).toMatchObject({
      scope: 'account',
      overridden_by: 'workspace',
    });
    for (const spelling of ['étude', 'Étude', 'ÉTUDE', 'E\u0301TUDE']) {
      expect(c.resolve(spelling)).toMatchObject({ scope: 'workspace', skill: { name: 'ÉTUDE' } });
    }
    expect(c.resolve('étude', 'account')).toMatchObject({ overridden_by: 'workspace' });
    expect(c.resolve('strasse')).toMatchObject({ scope: 'workspace', skill: { name: 'STRASSE' } });
    expect(c.isOverridden('Straße')).toBe(true);
  });
});

describe('writing an Agent Skills folder', () => {
  it('refuses files handed over with non-portable or colliding paths before writing any', () => {
    const out = join(tempDir(), 'out');
    const files = (paths: string[]) => new Map(paths.map((p) => [p, Buffer.from('x')]));
    for (const paths of [
      ['SKILL.md', 'docs/nul.txt'],
      ['SKILL.md', 'a.md', 'A.md'],
      ['SKILL.md', 'docs/x:y'],
    ]) {
      expect(() => writeAgentSkillFolder('skill', files(paths), out)).toThrow(/the bundled file/);
      expect(existsSync(out)).toBe(false);
    }
    expect(() => writeAgentSkillFolder('aux', files(['SKILL.md']), out)).toThrow(/AUX device/);
  });
});
