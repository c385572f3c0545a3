// One skill as served: its folder, the entry's digests and sizes, its directories, and the
// extension's per-skill limits.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { quietLogger, tempDir, testHost } from '../test-support/index.js';
import { createInProcessClient } from '../transport/in-process-client.js';
import { MAX_FILES_PER_SKILL, ServedCatalog, serveSkill } from './catalog.js';

async function seedDetail() {
  const core = createInProcessClient(testHost({ home: tempDir() }));
  return (await core.invoke('skills/get', { name: 'CSV Statistics' })).skill;
}

describe('serveSkill', () => {
  it('serves SKILL.md first, every file with its digest and size, and each folder with its children', async () => {
    const detail = await seedDetail();
    const s = serveSkill(detail, 'csv-statistics')!;
    expect(s.entry.uri).toBe('skill://csv-statistics/SKILL.md');
    expect(s.files[0]!.path).toBe('SKILL.md');
    for (const f of s.files) {
      expect(f.size).toBe(f.bytes.length);
      expect(f.digest).toBe(`sha256:${createHash('sha256').update(f.bytes).digest('hex')}`);
    }
    expect(s.entry.resources).toEqual(s.files.map((f) => ({ uri: f.uri, digest: f.digest, size: f.size })));
    const root = s.dirs.get('skill://csv-statistics')!;
    expect(root.map((c) => c.name)).toContain('SKILL.md');
    for (const [dir, children] of s.dirs)
      for (const c of children) expect(c.uri.slice(0, c.uri.lastIndexOf('/'))).toBe(dir);
    // A slug that is not the skill's own: the display name is kept in metadata.
    const renamed = serveSkill(detail, 'csv-statistics-2')!;
    expect(renamed.entry.frontmatter).toMatchObject({
      name: 'csv-statistics-2',
      metadata: expect.objectContaining({ 'display-name': 'CSV Statistics' }),
    });
  });

  it('leaves out a skill past the 512-file limit', async () => {
    const detail = await seedDetail();
    const many = {
      ...detail,
      artifacts: [
        ...detail.artifacts,
        ...Array.from({ length: MAX_FILES_PER_SKILL }, (_, i) => ({
          id: `extra-${i}`,
          kind: 'resource' as const,
          name: `f${i}`,
          ordinal: 100 + i,
          content: 'x',
          model_variant: null,
          metadata: { path: `references/f${i}.md` },
          state_blob_bytes: null,
        })),
      ],
    };
    expect(serveSkill(many, 'csv-statistics')).toBeNull();
  });
});

describe('the served catalog and skill switches', () => {
  it('leaves out a skill switched off, serves a name-only one, and follows a switch made later', async () => {
    const core = createInProcessClient(testHost({ home: tempDir() }));
    await core.invoke('skills/set-switch', { name: 'Translate', state: 'off' });
    await core.invoke('skills/set-switch', { name: 'Summarize', state: 'name-only' });
    const served = new ServedCatalog(core);
    const slugs = (await served.current()).skills.map((s) => s.slug);
    expect(slugs).not.toContain('translate');
    expect(slugs).toContain('summarize');
    expect(slugs).toContain('csv-statistics');
    // A switch after the first build reaches the served catalog through the change log.
    await core.invoke('skills/set-switch', { name: 'CSV Statistics', state: 'off' });
    await core.invoke('skills/set-switch', { name: 'Translate', state: 'on' });
    const again = (await served.current()).skills.map((s) => s.slug);
    expect(again).not.toContain('csv-statistics');
    expect(again).toContain('translate');
  });
});

describe('a closed served catalog', () => {
  it('asks its store nothing more once closed, so a listing under way ends quietly at shutdown', async () => {
    const errors: string[] = [];
    const logger = { ...quietLogger, error: (m: string) => errors.push(m) };
    const host = testHost({ home: tempDir(), logger });
    const served = new ServedCatalog(createInProcessClient(host));
    const first = served.current();
    // The server closes and then its host (the store) while the first listing is under way.
    served.close();
    await host.dispose();
    await first;
    await served.current();
    expect(errors).toEqual([]);
  });
});
