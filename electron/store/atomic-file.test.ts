import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT, tempDir } from '../test-support/index.js';
import { cleanStaleTemps, writeFileAtomic, writeFolderAtomic } from './atomic-file.js';

describe('writeFileAtomic', () => {
  it('replaces a file whole, leaves no temp behind and gives the mode asked for', () => {
    const dir = tempDir();
    const file = join(dir, 'out.json');
    writeFileSync(file, 'old');
    writeFileAtomic(file, 'new content', { mode: 0o600 });
    expect(readFileSync(file, 'utf8')).toBe('new content');
    expect(readdirSync(dir)).toEqual(['out.json']);
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('removes its temp and leaves the old file when the write fails', () => {
    const dir = tempDir();
    // A non-empty folder where the file should go: the final rename fails.
    const target = join(dir, 'taken');
    mkdirSync(target);
    writeFileSync(join(target, 'x'), 'keep');
    expect(() => writeFileAtomic(target, 'data')).toThrow();
    expect(readdirSync(dir)).toEqual(['taken']);
    expect(readFileSync(join(target, 'x'), 'utf8')).toBe('keep');
  });

  it('writes through to a device it cannot replace', () => {
    if (process.platform === 'win32') return;
    expect(() => writeFileAtomic('/dev/null', 'discarded')).not.toThrow();
  });
});

describe('cleanStaleTemps', () => {
  it("removes temps of writers that are gone or old, and keeps a live writer's", () => {
    const dir = tempDir();
    const dead = join(dir, '.settings.json.999999999.abcd1234.skilldesk-tmp');
    const older = join(dir, 'secrets.json.999999998.tmp');
    const live = join(dir, `.settings.json.${process.pid}.beef0001.skilldesk-tmp`);
    const liveButOld = join(dir, `.mcp.json.${process.pid}.beef0002.skilldesk-tmp`);
    const unrelated = join(dir, 'notes.txt');
    for (const f of [dead, older, live, liveButOld, unrelated]) writeFileSync(f, 'x');
    const dayAgo = new Date(Date.now() - 24 * 3600 * 1000);
    utimesSync(liveButOld, dayAgo, dayAgo);
    expect(cleanStaleTemps(dir).sort()).toEqual([dead, older, liveButOld].sort());
    expect(existsSync(live)).toBe(true);
    expect(existsSync(unrelated)).toBe(true);
  });

  it('cleans only the temps of one file when named', () => {
    const dir = tempDir();
    const a = join(dir, '.a.json.999999999.0001.skilldesk-tmp');
    const b = join(dir, '.b.json.999999999.0002.skilldesk-tmp');
    writeFileSync(a, 'x');
    writeFileSync(b, 'x');
    expect(cleanStaleTemps(dir, 'a.json')).toEqual([a]);
    expect(existsSync(b)).toBe(true);
  });

  it('after kill -9 in the middle of writes, the file is old or new (never half) and the temp is cleaned', async () => {
    const dir = tempDir();
    const file = join(dir, 'export.jsonl');
    const old = 'old\n'.repeat(1000);
    writeFileSync(file, old);
    const big = 'n'.repeat(8 * 1024 * 1024);
    const script = `
      import { writeFileAtomic } from './electron/store/atomic-file.ts';
      process.stdout.write('go\\n');
      for (;;) writeFileAtomic(${JSON.stringify(file)}, 'n'.repeat(${big.length}));
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((ok) => child.stdout.once('data', () => ok()));
    await new Promise((r) => setTimeout(r, 150));
    child.kill('SIGKILL');
    await new Promise((ok) => child.on('exit', ok));
    const text = readFileSync(file, 'utf8');
    expect(text === old || text === big).toBe(true);
    cleanStaleTemps(dir);
    expect(readdirSync(dir)).toEqual(['export.jsonl']);
  }, 30_000);
});

describe('writeFolderAtomic', () => {
  const files = new Map([
    ['SKILL.md', Buffer.from('---\nname: x\n---\nbody')],
    ['references/a.md', Buffer.from('ref')],
  ]);

  it('writes a folder whole, into an empty or missing folder', () => {
    const parent = tempDir();
    const dir = join(parent, 'skill');
    writeFolderAtomic(dir, files);
    expect(readFileSync(join(dir, 'references/a.md'), 'utf8')).toBe('ref');
    expect(readdirSync(parent)).toEqual(['skill']);
  });

  it('replaces an existing folder only when asked, and leaves it intact otherwise', () => {
    const parent = tempDir();
    const dir = join(parent, 'skill');
    mkdirSync(dir);
    writeFileSync(join(dir, 'old.txt'), 'old');
    expect(() => writeFolderAtomic(dir, files)).toThrow(/already exists/);
    expect(readdirSync(dir)).toEqual(['old.txt']);
    expect(readdirSync(parent)).toEqual(['skill']);
    writeFolderAtomic(dir, files, { replace: true });
    expect(readdirSync(dir).sort()).toEqual(['SKILL.md', 'references']);
    expect(readdirSync(parent)).toEqual(['skill']);
  });
});
