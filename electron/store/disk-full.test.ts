// A full disk, for real: a small tmpfs is mounted (CI runs as root), filled to the last byte, and
// the CLI is run against a home on it. Where mounting is impossible the tests skip locally and
// fail in CI (see skipWithout).
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSettings } from '../settings/settings-file.js';
import { runCli, skipWithout, smallPackage, tempDir } from '../test-support/index.js';
import { freeBytes } from './storage-errors.js';

const SIZE = 6 * 1024 * 1024;

function tryMount(): { dir: string | null; why: string | null } {
  if (process.platform !== 'linux') return { dir: null, why: 'tmpfs mounts need Linux' };
  if (process.getuid?.() !== 0) return { dir: null, why: 'mounting a tmpfs needs root' };
  // Not a tempDir(): those are removed after each test, and a mount point cannot be.
  const dir = mkdtempSync(join(tmpdir(), 'skilldesk-full-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${SIZE}`, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0)
    return { dir: null, why: `mount -t tmpfs failed: ${(r.stderr || r.error?.message) ?? ''}` };
  return { dir, why: null };
}

const mount = tryMount();
const disk = mount.dir ?? '';

afterAll(() => {
  if (!mount.dir) return;
  spawnSync('umount', ['-l', mount.dir]);
  rmSync(mount.dir, { recursive: true, force: true });
});

/** Fill the disk to its last byte; returns a function that frees it again. */
function fill(): () => void {
  const filler = join(disk, `filler-${Math.random().toString(36).slice(2)}`);
  const fd = openSync(filler, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (const size of [chunk.length, 4096, 1]) {
      for (;;) {
        try {
          writeSync(fd, chunk, 0, size);
        } catch {
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return () => rmSync(filler, { force: true });
}

/** Fill the disk but for about `bytes`; returns a function that frees it again. */
function fillLeaving(bytes: number): () => void {
  const filler = join(disk, `filler-${Math.random().toString(36).slice(2)}`);
  writeFileSync(filler, Buffer.alloc(Math.max(0, (freeBytes(disk) ?? 0) - bytes)));
  return () => rmSync(filler, { force: true });
}

function packagesDir(n: number, prefix: string): string {
  const dir = tempDir('skilldesk-pkgs-');
  for (let i = 0; i < n; i++) {
    const pkg = smallPackage(`${prefix} ${i}`, '1.0.0', {
      description: `${prefix} ${i}: ${'words '.repeat(300)}`,
    });
    writeFileSync(join(dir, `${i}.json`), JSON.stringify(pkg));
  }
  return dir;
}

function count(home: string): number {
  const db = new Database(join(home, 'agents.db'), { readonly: true });
  try {
    return db.prepare("SELECT COUNT(*) FROM skills WHERE source = 'user'").pluck().get() as number;
  } finally {
    db.close();
  }
}

describe.skipIf(skipWithout(mount.why, 'disk-full tests on a tmpfs'))('a full disk', () => {
  let home = '';
  beforeAll(async () => {
    home = join(disk, 'home');
    mkdirSync(home);
    expect((await runCli(['--home', home, 'skills', 'list'])).code).toBe(0);
  });

  it('an import that fills the disk is DISK_FULL naming the store, and stores nothing', async () => {
    // Leave a little room: the import starts, then the disk fills under it.
    const free = fillLeaving(200 * 1024);
    try {
      const r = await runCli(['--home', home, '--json', 'skills', 'import', packagesDir(200, 'Big')]);
      expect(r.code, r.stderr).toBe(1);
      const err = JSON.parse(r.stderr.trim().split('\n').at(-1)!).error;
      expect(err.code).toBe('DISK_FULL');
      expect(err.message).toContain(join(home, 'agents.db'));
      expect(err.message).not.toMatch(/not a SkillDesk database|Move it aside/);
    } finally {
      free();
    }
    expect(count(home)).toBe(0);
    const again = await runCli(['--home', home, '--json', 'skills', 'import', packagesDir(3, 'Small')]);
    expect(again.code, again.stderr).toBe(0);
    expect(count(home)).toBe(3);
  });

  it('on a disk full to the last byte every command says DISK_FULL, never "not a SkillDesk database"', async () => {
    const free = fill();
    try {
      expect(freeBytes(disk)).toBe(0);
      for (const args of [['skills', 'list'], ['skills', 'import', packagesDir(1, 'Full')], ['sessions']]) {
        const r = await runCli(['--home', home, '--json', ...args]);
        expect(r.stderr).not.toMatch(/STORE_NOT_SQLITE|not a SkillDesk database|INTERNAL/);
        if (r.code !== 0)
          expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!).error.code).toBe('DISK_FULL');
      }
    } finally {
      free();
    }
    expect((await runCli(['--home', home, 'skills', 'list'])).code).toBe(0);
  });

  it('an export or a settings write on a full disk is DISK_FULL, keeps the old file and leaves no temp', async () => {
    const out = join(disk, 'exports');
    mkdirSync(out, { recursive: true });
    const file = join(out, 'skill.json');
    writeFileSync(file, '{"old": true}');
    writeSettings(home, {
      version: 2,
      providers: [],
      default_provider: null,
      sandbox: { allow_in_process_isolation: false },
    });
    const settingsBefore = readFileSync(join(home, 'settings.json'), 'utf8');
    const big = smallPackage('Large', '1.0.0', {
      artifacts: [{ kind: 'prompt_template', name: 'Main', ordinal: 0, content: 'x'.repeat(400 * 1024) }],
    });
    const pkg = join(tempDir(), 'large.json');
    writeFileSync(pkg, JSON.stringify(big));
    expect((await runCli(['--home', home, 'skills', 'import', pkg])).code).toBe(0);
    // Room to open the store and read, not to write the 400 KB export.
    const free = fillLeaving(160 * 1024);
    try {
      const r = await runCli(['--home', home, '--json', 'skills', 'export', 'Large', '-o', file]);
      expect(r.code, r.stderr).toBe(1);
      expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!).error).toMatchObject({
        code: 'DISK_FULL',
        details: { file, needed_bytes: expect.any(Number) },
        message: expect.stringMatching(/is full .* at least 400\.\d KB more is needed/),
      });
      expect(readFileSync(file, 'utf8')).toBe('{"old": true}');
      expect(readdirSync(out)).toEqual(['skill.json']);
    } finally {
      free();
    }
    const full = fill();
    try {
      expect(() =>
        writeSettings(home, {
          version: 2,
          providers: [{ id: 'openai', kind: 'openai', label: 'OpenAI' }],
          default_provider: 'openai',
          sandbox: { allow_in_process_isolation: false },
        }),
      ).toThrow(expect.objectContaining({ code: 'DISK_FULL' }));
      expect(readFileSync(join(home, 'settings.json'), 'utf8')).toBe(settingsBefore);
      expect(readdirSync(home).filter((f) => f.includes('tmp'))).toEqual([]);
    } finally {
      full();
    }
  });
});
