import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { isAppError } from '../contract/errors.js';
import { openStore, type SkillStore } from '../store/index.js';
import { consistencyCheckerExample, snapshotDir, tempDir, VALID_STATE_BLOB } from '../test-support/index.js';
import { splitFrontmatter } from './agent-skill.js';
import { exportAgentSkill, exportJson } from './export.js';
import { importPackages, loadPackages } from './import.js';
import { DEFAULT_LIMITS } from './limits.js';
import { listVersions } from './versions.js';

// The design prints the example as a built-in (`source: "system"`), which user imports may not claim.
const validExample = () => {
  const p = consistencyCheckerExample();
  (p.artifacts as Array<Record<string, unknown>>)[3]!.state_blob = VALID_STATE_BLOB;
  p.source = 'user';
  return p;
};

function writeJson(dir: string, name: string, value: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(value, null, 2));
  return file;
}

function store(): SkillStore {
  return openStore('account', tempDir())!;
}

async function importFile(s: SkillStore, file: string, force = false) {
  return importPackages(s, await loadPackages(file, DEFAULT_LIMITS), { force });
}

function writeTree(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), content);
  }
}

async function zipOf(files: Record<string, string | Buffer>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  // yazl refuses hostile names, so write a same-length placeholder and patch the bytes after.
  const renames: Array<[Buffer, Buffer]> = [];
  Object.entries(files).forEach(([name, content], i) => {
    const safe = /^[\w./-]+$/.test(name) && !name.split('/').includes('..') && !name.startsWith('/');
    const stored = safe ? name : `Q${i}`.padEnd(name.length, 'q');
    if (!safe) renames.push([Buffer.from(stored), Buffer.from(name)]);
    zip.addBuffer(Buffer.isBuffer(content) ? content : Buffer.from(content), stored);
  });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  const out = Buffer.concat(chunks);
  for (const [from, to] of renames) {
    for (let at = out.indexOf(from); at >= 0; at = out.indexOf(from, at + 1)) to.copy(out, at);
  }
  return out;
}

const SKILL_MD = `---
name: pdf-tools
description: Extract text and tables from PDF files.
license: Apache-2.0
compatibility: Needs Python 3.10+
metadata:
  author: example-org
  version: "1.2.0"
allowed-tools: Bash(python:*) Read
---

# PDF tools

Use scripts/extract.py to pull the text out, then read references/FORMS.md for forms.
`;

describe('JSON packages', () => {
  it('imports the design example (with a valid blob) with all four artifacts and exports identical JSON', async () => {
    const s = store();
    const file = writeJson(tempDir(), 'cc.json', validExample());
    const [r] = await importFile(s, file);
    expect(r).toMatchObject({ name: 'Consistency Checker', action: 'created', artifacts: 4 });
    const skill = s.repo.getSkillByName('Consistency Checker')!;
    expect(skill.artifacts.map((a) => a.kind)).toEqual([
      'description',
      'prompt_template',
      'code_template',
      'dspy_module',
    ]);
    expect(skill.artifacts[3]!.state_blob!.toString('base64')).toBe(VALID_STATE_BLOB);
    expect(JSON.parse(exportJson(skill))).toEqual(validExample());
  });

  it('round-trips an exported package byte for byte', async () => {
    const s = store();
    const dir = tempDir();
    await importFile(s, writeJson(dir, 'cc.json', validExample()));
    const first = exportJson(s.repo.getSkillByName('Consistency Checker')!);
    const s2 = store();
    writeFileSync(join(dir, 'again.json'), first);
    await importFile(s2, join(dir, 'again.json'));
    expect(exportJson(s2.repo.getSkillByName('Consistency Checker')!)).toBe(first);
  });

  it('compares content: the same is unchanged, an edit under the same version raises its patch, an older version is refused unless forced', async () => {
    const s = store();
    const dir = tempDir();
    const v = (version: string, content: string) => {
      const p = validExample();
      p.version = version;
      (p.artifacts as Array<Record<string, unknown>>)[0]!.content = content;
      return writeJson(dir, `${version}.json`, p);
    };
    await importFile(s, v('1.1.0', 'first'));
    const id = s.repo.getSummaryByName('Consistency Checker')!.id;
    expect((await importFile(s, v('1.1.0', 'first')))[0]!.action).toBe('unchanged');
    const changed = (await importFile(s, v('1.1.0', 'changed')))[0]!;
    expect(changed).toMatchObject({
      action: 'updated',
      version: '1.1.1',
      previous_version: '1.1.0',
      version_bumped: true,
    });
    expect(changed.changes!.artifacts).toEqual([
      expect.objectContaining({ change: 'changed', patch: expect.stringMatching(/-first\n.*\n\+changed/) }),
    ]);
    expect(s.repo.getSkill(id)!.artifacts[0]!.content).toBe('changed');
    expect(listVersions(s.db, 'Consistency Checker').map((x) => x.version)).toEqual(['1.1.0']);
    // The same content again under the version it was first imported as: nothing to do.
    expect((await importFile(s, v('1.1.0', 'changed')))[0]).toMatchObject({
      action: 'unchanged',
      version: '1.1.1',
    });
    expect((await importFile(s, v('1.2.0', 'newer')))[0]).toMatchObject({
      action: 'updated',
      previous_version: '1.1.1',
      version: '1.2.0',
    });
    expect(s.repo.getSkill(id)!.artifacts[0]!.content).toBe('newer');
    await expect(importFile(s, v('1.0.0', 'older'))).rejects.toMatchObject({ code: 'VERSION_CONFLICT' });
    expect(s.repo.getSkill(id)!.version).toBe('1.2.0');
    expect((await importFile(s, v('1.0.0', 'older'), true))[0]!.action).toBe('updated');
    expect(s.repo.getSkill(id)!.artifacts[0]!.content).toBe('older');
  });

  it('is all or nothing across the packages of one command', async () => {
    const s = store();
    const dir = tempDir();
    writeJson(dir, 'a.json', {
      name: 'A',
      description: 'a',
      artifacts: [{ kind: 'description', name: 'd', content: 'x' }],
    });
    writeJson(dir, 'b.json', { ...validExample(), id: undefined, name: 'B' });
    const loaded = await loadPackages(dir, DEFAULT_LIMITS);
    // Make the second one collide on id with the first one, inside the transaction.
    loaded[1]!.pkg.id = 'fixed-id';
    loaded[0]!.pkg.id = 'fixed-id';
    expect(() => importPackages(s, loaded)).toThrow(/already belongs/);
    expect(s.repo.countSkills()).toBe(0);
  });

  it('names the file and the JSON path of a problem', async () => {
    const dir = tempDir();
    const file = writeJson(dir, 'cc.json', consistencyCheckerExample());
    await expect(loadPackages(file, DEFAULT_LIMITS)).rejects.toThrow(`${file}: artifacts[3].state_blob`);
    writeFileSync(join(dir, 'broken.json'), '{"name": ');
    await expect(loadPackages(join(dir, 'broken.json'), DEFAULT_LIMITS)).rejects.toThrow(
      /broken\.json: not valid JSON/,
    );
  });

  it('refuses a package over the size limit', async () => {
    const file = writeJson(tempDir(), 'big.json', { ...validExample(), description: 'x'.repeat(2000) });
    await expect(loadPackages(file, { ...DEFAULT_LIMITS, maxBytes: 1000 })).rejects.toMatchObject({
      code: 'TOO_LARGE',
    });
  });
});

describe('Agent Skills folders', () => {
  const files = {
    'SKILL.md': SKILL_MD,
    'scripts/extract.py': 'import sys\nprint("{{ not a template }}")\n',
    'references/FORMS.md': '# Forms\nFill them in.\n',
    'assets/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 255]),
  };

  it('imports frontmatter, body as approach, and scripts and other files as resources', async () => {
    const dir = join(tempDir(), 'pdf-tools');
    writeTree(dir, files);
    const s = store();
    await importFile(s, dir);
    const skill = s.repo.getSkillByName('pdf-tools')!;
    expect(skill).toMatchObject({
      description: 'Extract text and tables from PDF files.',
      version: '1.2.0',
      license: 'Apache-2.0',
      compatibility: 'Needs Python 3.10+',
      allowed_tools: 'Bash(python:*) Read',
      // metadata.version became the skill's version (an export writes it back there).
      metadata: { author: 'example-org' },
    });
    expect(skill.artifacts.map((a) => [a.kind, a.name])).toEqual([
      ['approach', 'SKILL.md'],
      ['resource', 'assets/logo.png'],
      ['resource', 'references/FORMS.md'],
      ['resource', 'scripts/extract.py'],
    ]);
    expect(skill.artifacts[0]!.content).toContain('# PDF tools');
    expect(skill.artifacts[3]!.metadata).toEqual({ path: 'scripts/extract.py' });
  });

  it('round-trips folder → store → folder', async () => {
    const src = join(tempDir(), 'pdf-tools');
    writeTree(src, files);
    const s = store();
    await importFile(s, src);
    const out = join(tempDir(), 'out');
    const r = exportAgentSkill(s.repo.getSkillByName('pdf-tools')!, out);
    expect(r.skipped).toEqual([]);
    const a = snapshotDir(src);
    const b = snapshotDir(r.dir);
    expect(Object.keys(b).sort()).toEqual(Object.keys(a).sort());
    for (const k of Object.keys(a)) if (k !== 'SKILL.md') expect(b[k]).toBe(a[k]);
    const orig = splitFrontmatter(readFileSync(join(src, 'SKILL.md'), 'utf8'), 'src');
    const back = splitFrontmatter(readFileSync(join(r.dir, 'SKILL.md'), 'utf8'), 'out');
    expect(back).toEqual(orig);
  });

  it('imports a zip of the folder, with or without a top folder', async () => {
    const dir = tempDir();
    const withTop = Object.fromEntries(Object.entries(files).map(([k, v]) => [`pdf-tools/${k}`, v]));
    writeFileSync(join(dir, 'a.zip'), await zipOf(withTop));
    writeFileSync(join(dir, 'b.zip'), await zipOf(files));
    for (const z of ['a.zip', 'b.zip']) {
      const [p] = await loadPackages(join(dir, z), DEFAULT_LIMITS);
      expect(p!.pkg.name).toBe('pdf-tools');
      expect(p!.pkg.artifacts).toHaveLength(4);
    }
  });

  it('imports a zip of JSON packages', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'pkgs.zip'), await zipOf({ 'cc.json': JSON.stringify(validExample()) }));
    const loaded = await loadPackages(join(dir, 'pkgs.zip'), DEFAULT_LIMITS);
    expect(loaded.map((l) => l.pkg.name)).toEqual(['Consistency Checker']);
  });

  it('refuses zip entries that escape the folder', async () => {
    const dir = tempDir();
    for (const bad of ['../evil.md', '/etc/evil.md', 'a/../../evil.md', 'C:/evil.md', 'a\\..\\evil.md']) {
      writeFileSync(join(dir, 'x.zip'), await zipOf({ 'SKILL.md': SKILL_MD, [bad]: 'x' }));
      const err = await loadPackages(join(dir, 'x.zip'), DEFAULT_LIMITS).catch((e) => e);
      expect(isAppError(err, 'UNSAFE_PATH'), bad).toBe(true);
    }
  });

  it('refuses zip bombs and oversized archives without inflating them', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'bomb.zip'),
      await zipOf({ 'SKILL.md': SKILL_MD, 'big.txt': Buffer.alloc(20 * 1024 * 1024) }),
    );
    const err = await loadPackages(join(dir, 'bomb.zip'), DEFAULT_LIMITS).catch((e) => e);
    expect(isAppError(err, 'TOO_LARGE')).toBe(true);
    writeFileSync(
      join(dir, 'ratio.zip'),
      await zipOf({ 'SKILL.md': SKILL_MD, 'big.txt': Buffer.alloc(3 * 1024 * 1024) }),
    );
    const err2 = await loadPackages(join(dir, 'ratio.zip'), DEFAULT_LIMITS).catch((e) => e);
    expect(err2.message).toMatch(/zip bomb/);
    const many = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`f${i}.txt`, 'x']));
    writeFileSync(join(dir, 'many.zip'), await zipOf({ 'SKILL.md': SKILL_MD, ...many }));
    expect(await loadPackages(join(dir, 'many.zip'), DEFAULT_LIMITS).catch((e) => e.code)).toBe('TOO_LARGE');
  });

  it('refuses symbolic links in a folder', async () => {
    const dir = join(tempDir(), 'linky');
    writeTree(dir, { 'SKILL.md': SKILL_MD });
    symlinkSync('/etc/passwd', join(dir, 'passwd'));
    await expect(loadPackages(dir, DEFAULT_LIMITS)).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
  });

  it('explains a SKILL.md without frontmatter or a name', async () => {
    const dir = join(tempDir(), 'bad');
    writeTree(dir, { 'SKILL.md': '# just markdown' });
    await expect(loadPackages(dir, DEFAULT_LIMITS)).rejects.toThrow(/frontmatter/);
    writeTree(dir, { 'SKILL.md': '---\ndescription: x\n---\nbody' });
    await expect(loadPackages(dir, DEFAULT_LIMITS)).rejects.toThrow(/name/);
  });
});

describe('hostile input (property-based)', () => {
  it('never changes a store, byte for byte, when a package is malformed', async () => {
    const home = tempDir();
    const s = openStore('account', home)!;
    await importFile(s, writeJson(tempDir(), 'cc.json', validExample()));
    s.close();
    const before = snapshotDir(home);
    const dir = tempDir();
    const mutate = fc.oneof(
      fc.record({
        path: fc.constantFrom('name', 'description', 'version', 'tags', 'artifacts'),
        value: fc.anything(),
      }),
      fc.record({
        path: fc.constantFrom(
          'kind',
          'name',
          'content',
          'state_blob',
          'metadata',
          'ordinal',
          'model_variant',
        ),
        index: fc.nat(3),
        value: fc.anything(),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(mutate, { minLength: 1, maxLength: 4 }), async (mutations) => {
        const pkg = validExample() as Record<string, unknown>;
        pkg.name = 'Fuzzed';
        delete pkg.id;
        for (const m of mutations) {
          const arts = pkg.artifacts;
          if (!('index' in m)) pkg[m.path] = m.value;
          else if (Array.isArray(arts) && typeof arts[m.index] === 'object' && arts[m.index] !== null)
            arts[m.index][m.path] = m.value;
        }
        const file = writeJson(dir, 'fuzz.json', pkg);
        let loaded: Awaited<ReturnType<typeof loadPackages>>;
        try {
          loaded = await loadPackages(file, DEFAULT_LIMITS);
        } catch (e) {
          expect(isAppError(e)).toBe(true);
          return;
        }
        // Valid by chance: import into a throwaway copy, never the snapshot store.
        const other = store();
        importPackages(other, loaded);
        other.close();
      }),
      { numRuns: 150 },
    );
    expect(snapshotDir(home)).toEqual(before);
  });

  it('rolls back a failing multi-package import without changing the file', async () => {
    const home = tempDir();
    const s = openStore('account', home)!;
    await importFile(s, writeJson(tempDir(), 'cc.json', validExample()));
    s.close();
    const before = snapshotDir(home);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ minLength: 1, maxLength: 20 }), { minLength: 1, maxLength: 5 }),
        async (names) => {
          const s2 = openStore('account', home)!;
          const loaded = names.map((n, i) => ({
            file: `p${i}.json`,
            pkg: {
              name: `N${i}-${n.replace(/\s/g, '_')}`,
              description: 'd',
              version: '1.0.0',
              artifacts: [{ kind: 'description' as const, name: 'd', content: n }],
            },
          }));
          // The last one is an older version of the installed skill: the whole import must roll back.
          loaded.push({
            file: 'old.json',
            pkg: { ...loaded[0]!.pkg, name: 'Consistency Checker', version: '0.1.0' },
          });
          expect(() => importPackages(s2, loaded)).toThrow(/older/);
          s2.close();
        },
      ),
      { numRuns: 40 },
    );
    expect(snapshotDir(home)).toEqual(before);
  });
});
