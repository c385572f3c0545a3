import { describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { openStore, type SkillStore } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { importDropped, readDroppedFiles } from './import-files.js';
import { DEFAULT_LIMITS } from './limits.js';
import { agentSkillNameProblem, packageWarnings } from './lint.js';
import { validatePackage } from './package-schema.js';
import { listVersions } from './versions.js';

const store = (): SkillStore => openStore('account', tempDir())!;
const file = (path: string, text: string | Buffer) => ({
  path,
  bytes: typeof text === 'string' ? Buffer.from(text) : text,
});
const pkg = (name: string, version = '1.0.0', extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    name,
    description: `${name} helps.`,
    version,
    artifacts: [{ kind: 'approach', name: 'How', content: 'Do it.' }],
    ...extra,
  });
const skillMd = (name: string) => `---\nname: ${name}\ndescription: Checks tone.\n---\n# Tone\nBe kind.\n`;

async function zipOf(files: Record<string, string>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(files)) zip.addBuffer(Buffer.from(content), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

describe('readDroppedFiles', () => {
  it('finds JSON packages, Agent Skills folders (with their bundled files) and zips', async () => {
    const zip = await zipOf({
      'tone-check/SKILL.md': skillMd('tone-check'),
      'tone-check/references/a.md': 'A',
    });
    const found = await readDroppedFiles(
      [
        file('one.json', pkg('One')),
        file('summarise/SKILL.md', skillMd('summarise')),
        file('summarise/scripts/count.py', 'print(1)\n'),
        file('tone.zip', zip),
      ],
      DEFAULT_LIMITS,
    );
    expect(found.map((f) => [f.source, f.ok])).toEqual([
      ['one.json', true],
      ['tone.zip', true],
      ['summarise', true],
    ]);
    const folder = found.find((f) => f.source === 'summarise');
    expect(folder?.ok && folder.pkg.artifacts.map((a) => a.name)).toEqual(['SKILL.md', 'scripts/count.py']);
    const zipped = found.find((f) => f.source === 'tone.zip');
    expect(zipped?.ok && zipped.pkg.artifacts.map((a) => a.name)).toEqual(['SKILL.md', 'references/a.md']);
    expect(found.every((f) => f.ok && f.warnings.length === 0)).toBe(true);
  });

  it('refuses broken JSON, schema errors (with the JSON path) and stray files, each on its own', async () => {
    const found = await readDroppedFiles(
      [
        file('broken.json', '{"name": "x",'),
        file('bad.json', JSON.stringify({ name: 'Bad', description: 'd', artifacts: [{ kind: 'nope' }] })),
        file('notes.txt', 'hello'),
        file('good.json', pkg('Good')),
      ],
      DEFAULT_LIMITS,
    );
    const by = Object.fromEntries(found.map((f) => [f.source, f]));
    expect(by['broken.json']).toMatchObject({ ok: false, reason: expect.stringMatching(/not valid JSON/) });
    expect(by['bad.json']).toMatchObject({ ok: false, name: 'Bad' });
    expect(!by['bad.json']!.ok && by['bad.json']!.issues.map((i) => i.path)).toContain('artifacts[0].kind');
    expect(by['notes.txt']).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/not a skill package/),
    });
    expect(by['good.json']?.ok).toBe(true);
  });

  it('warns, and still reads, an Agent Skills name that breaks the standard or differs from its folder', async () => {
    const found = await readDroppedFiles(
      [file('Tone Checker/SKILL.md', skillMd('Tone Checker')), file('other/SKILL.md', skillMd('tone'))],
      DEFAULT_LIMITS,
    );
    expect(found.map((f) => f.ok)).toEqual([true, true]);
    const at = (source: string) => {
      const f = found.find((x) => x.source === source);
      return f?.ok ? f.warnings : null;
    };
    expect(at('Tone Checker')).toEqual([{ path: 'name', message: expect.stringMatching(/naming rule/) }]);
    expect(at('other')).toEqual([
      { path: 'name', message: expect.stringMatching(/differs from its folder "other"/) },
    ]);
  });

  it('refuses a path that escapes the dropped folder', async () => {
    const [f] = await readDroppedFiles([file('../x.json', pkg('X'))], DEFAULT_LIMITS);
    expect(f).toMatchObject({ ok: false, source: '../x.json' });
  });
});

describe('importDropped', () => {
  it('writes nothing when any package is refused, and says which and why', async () => {
    const s = store();
    const found = await readDroppedFiles(
      [file('good.json', pkg('Good')), file('broken.json', '{')],
      DEFAULT_LIMITS,
    );
    const r = importDropped(s, found);
    expect(r.written).toBe(false);
    expect(r.packages.map((p) => [p.source, p.outcome])).toEqual([
      ['good.json', 'not_imported'],
      ['broken.json', 'refused'],
    ]);
    expect(s.repo.getSummaryByName('Good')).toBeFalsy();
  });

  it('reports created, updated (keeping the replaced version) and unchanged', async () => {
    const s = store();
    importDropped(
      s,
      await readDroppedFiles([file('a.json', pkg('A')), file('b.json', pkg('B'))], DEFAULT_LIMITS),
    );
    const r = importDropped(
      s,
      await readDroppedFiles(
        [file('a.json', pkg('A', '1.1.0')), file('b.json', pkg('B')), file('c.json', pkg('C'))],
        DEFAULT_LIMITS,
      ),
    );
    expect(r.written).toBe(true);
    expect(r.packages.map((p) => [p.name, p.outcome, p.previous_version ?? null])).toEqual([
      ['A', 'updated', '1.0.0'],
      ['B', 'unchanged', null],
      ['C', 'created', null],
    ]);
    expect(listVersions(s.db, 'A').map((v) => v.version)).toContain('1.0.0');
  });

  it('refuses a downgrade found only by the store, and rolls back the rest', async () => {
    const s = store();
    importDropped(s, await readDroppedFiles([file('a.json', pkg('A', '2.0.0'))], DEFAULT_LIMITS));
    const r = importDropped(
      s,
      await readDroppedFiles(
        [file('new.json', pkg('New')), file('a.json', pkg('A', '1.0.0', { description: 'A changed.' }))],
        DEFAULT_LIMITS,
      ),
    );
    expect(r.written).toBe(false);
    expect(r.packages.map((p) => [p.source, p.outcome])).toEqual([
      ['new.json', 'not_imported'],
      ['a.json', 'refused'],
    ]);
    expect(r.packages[1]!.reason).toMatch(/older than the 2\.0\.0/);
    expect(s.repo.getSummaryByName('New')).toBeFalsy();
  });
});

describe('lint', () => {
  it('names the Agent Skills rule a name breaks', () => {
    expect(agentSkillNameProblem('tone-check', 'tone-check')).toBeNull();
    expect(agentSkillNameProblem('tone-check')).toBeNull();
    expect(agentSkillNameProblem('Tone')).toMatch(/naming rule/);
    expect(agentSkillNameProblem('a--b')).toMatch(/naming rule/);
    expect(agentSkillNameProblem('-a')).toMatch(/naming rule/);
    expect(agentSkillNameProblem('a'.repeat(65))).toMatch(/64/);
  });

  it('warns about a structural assertion whose JSON Schema does not compile', () => {
    const v = validatePackage({
      name: 'S',
      description: 'd',
      artifacts: [
        {
          kind: 'code_template',
          name: 'Code',
          content: 'x',
          metadata: {
            assertions: [
              { type: 'structural', schema: { type: 'object' } },
              { type: 'structural', schema: { type: 'no-such-type' } },
            ],
          },
        },
      ],
    });
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    const w = packageWarnings(v.value);
    expect(w).toHaveLength(1);
    expect(w[0]).toMatchObject({
      path: 'artifacts[0].metadata.assertions[1].schema',
      message: expect.stringMatching(/does not compile/),
    });
  });
});
