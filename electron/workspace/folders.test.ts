import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../contract/errors.js';
import { tempDir } from '../test-support/index.js';
import { checkWorkspaceFolder, completeFolder, expandHome } from './folders.js';
import { openRecentWorkspaces } from './recent.js';

function codeOf(f: () => unknown): string | null {
  try {
    f();
    return null;
  } catch (e) {
    return e instanceof AppError ? e.code : 'THROWN';
  }
}

describe('workspace folders', () => {
  it('accepts a writable folder and refuses relative paths, missing folders, files and read-only folders', () => {
    const dir = tempDir();
    expect(checkWorkspaceFolder(`${dir}/`)).toBe(dir);
    expect(expandHome('~/notes', '/home/u')).toBe('/home/u/notes');
    expect(codeOf(() => checkWorkspaceFolder('notes'))).toBe('INVALID_INPUT');
    expect(codeOf(() => checkWorkspaceFolder(join(dir, 'nope')))).toBe('NOT_FOUND');
    writeFileSync(join(dir, 'file.md'), 'x');
    expect(codeOf(() => checkWorkspaceFolder(join(dir, 'file.md')))).toBe('INVALID_INPUT');
    const ro = join(dir, 'ro');
    mkdirSync(ro);
    chmodSync(ro, 0o500);
    // Root can write anywhere; the check only means something for a normal user.
    if (process.getuid?.() !== 0) expect(codeOf(() => checkWorkspaceFolder(ro))).toBe('FORBIDDEN');
  });

  it('completes folder names (not files; hidden ones only when asked), case-insensitively', () => {
    const dir = tempDir();
    for (const d of ['Notes', 'notebooks', 'other', '.hidden']) mkdirSync(join(dir, d));
    writeFileSync(join(dir, 'notes.md'), 'x');
    expect(completeFolder(`${dir}/no`).map((c) => c.name)).toEqual(['notebooks', 'Notes']);
    expect(completeFolder(`${dir}/`).map((c) => c.name)).toEqual(['notebooks', 'Notes', 'other']);
    expect(completeFolder(`${dir}/.h`)).toEqual([{ name: '.hidden', path: join(dir, '.hidden') }]);
    expect(completeFolder('relative/path')).toEqual([]);
    expect(completeFolder(join(dir, 'missing', 'x'))).toEqual([]);
  });

  it('remembers recent workspaces newest first, at most ten, and survives a damaged file', () => {
    const home = tempDir();
    let t = 0;
    const warnings: string[] = [];
    const recent = openRecentWorkspaces(home, {
      now: () => new Date(Date.UTC(2026, 0, 1, 0, 0, t++)),
      onWarning: (m) => warnings.push(m),
    });
    const a = tempDir();
    const b = tempDir();
    recent.touch(a);
    recent.touch(b);
    expect(recent.touch(a).map((r) => r.path)).toEqual([a, b]);
    for (let i = 0; i < 12; i++) recent.touch(join(home, `gone-${i}`));
    const list = recent.list();
    expect(list).toHaveLength(10);
    expect(list[0]).toMatchObject({ name: 'gone-11', exists: false });
    expect(recent.forget(join(home, 'gone-11')).map((r) => r.name)[0]).toBe('gone-10');
    writeFileSync(join(home, 'recent-workspaces.json'), '{"items": 5}');
    expect(recent.list()).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(recent.touch(a).map((r) => r.path)).toEqual([a]);
  });
});
