// Writers in separate processes: each waits its turn instead of losing its work. These tests start
// real processes (the CLI's bin, and a node process holding SQLite's write lock), as a second
// window or a script would.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli, smallPackage, tempDir } from '../test-support/index.js';
import { loadMigrations } from './db.js';

const BIN = resolve(PROJECT_ROOT, 'bin/skilldesk.mjs');

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

/** A folder of `n` small packages named `<prefix> 0..n-1`. */
function packages(prefix: string, n: number): string {
  const dir = tempDir('skilldesk-pkgs-');
  for (let i = 0; i < n; i++) {
    writeFileSync(join(dir, `${i}.json`), JSON.stringify(smallPackage(`${prefix} ${i}`)));
  }
  return dir;
}

/**
 * A process that takes the store's write lock (BEGIN IMMEDIATE) and keeps it for `holdMs` after
 * saying "locked" on stdout; resolves once the lock is held.
 */
async function holdWriteLock(file: string, holdMs: number): Promise<ChildProcess> {
  const script = `
    import Database from 'better-sqlite3';
    const db = new Database(${JSON.stringify(file)});
    db.exec('BEGIN IMMEDIATE');
    db.prepare("INSERT INTO seeded_skills (name, version) VALUES ('lock holder', '1.0.0')").run();
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${holdMs});
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((ok, fail) => {
    child.stdout!.on('data', (d) => {
      if (String(d).includes('locked')) ok();
    });
    child.on('exit', (code) => fail(new Error(`lock holder exited early (${code})`)));
  });
  return child;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((ok) => (child.exitCode !== null ? ok() : child.on('exit', () => ok())));
}

function skillCount(home: string, prefix: string): number {
  const db = new Database(join(home, 'agents.db'), { readonly: true });
  try {
    return db.prepare('SELECT COUNT(*) FROM skills WHERE name LIKE ?').pluck().get(`${prefix} %`) as number;
  } finally {
    db.close();
  }
}

describe('writers in several processes', () => {
  it('two CLI imports at once both store their whole batch', async () => {
    const home = tempDir();
    const a = packages('Alpha', 150);
    const b = packages('Beta', 150);
    const [ra, rb] = await Promise.all([
      cli(['--home', home, '--json', 'skills', 'import', a]),
      cli(['--home', home, '--json', 'skills', 'import', b]),
    ]);
    expect(ra.code, ra.stderr).toBe(0);
    expect(rb.code, rb.stderr).toBe(0);
    expect(skillCount(home, 'Alpha')).toBe(150);
    expect(skillCount(home, 'Beta')).toBe(150);
  }, 120_000);

  it('imports queued behind another writer wait for it, then both succeed', async () => {
    const home = tempDir();
    expect((await cli(['--home', home, 'skills', 'list'])).code).toBe(0);
    const holder = await holdWriteLock(join(home, 'agents.db'), 2_500);
    const [ra, rb] = await Promise.all([
      cli(['--home', home, '--json', 'skills', 'import', packages('Gamma', 40)]),
      cli(['--home', home, '--json', 'skills', 'import', packages('Delta', 40)]),
    ]);
    await exited(holder);
    expect(ra.code, ra.stderr).toBe(0);
    expect(rb.code, rb.stderr).toBe(0);
    expect(skillCount(home, 'Gamma')).toBe(40);
    expect(skillCount(home, 'Delta')).toBe(40);
  }, 120_000);

  it('the app (a host in this process) and a CLI process importing at once both succeed', async () => {
    const home = tempDir();
    expect((await cli(['--home', home, 'skills', 'list'])).code).toBe(0);
    const holder = await holdWriteLock(join(home, 'agents.db'), 1_500);
    const other = cli(['--home', home, '--json', 'skills', 'import', packages('Cli', 60)]);
    // Give the process time to start and queue behind the holder; this host then waits too.
    await new Promise((r) => setTimeout(r, 800));
    const here = await runCli(['--home', home, '--json', 'skills', 'import', packages('App', 60)]);
    const there = await other;
    await exited(holder);
    expect(here.code, here.stderr).toBe(0);
    expect(there.code, there.stderr).toBe(0);
    expect(skillCount(home, 'App')).toBe(60);
    expect(skillCount(home, 'Cli')).toBe(60);
  }, 120_000);

  it('an import killed with SIGKILL at a random point leaves the store whole: all of the batch or none', async () => {
    const home = tempDir();
    expect((await cli(['--home', home, 'skills', 'list'])).code).toBe(0);
    const dir = packages('Killed', 300);
    for (const delay of [300 + Math.random() * 400, 900 + Math.random() * 900, 1800 + Math.random() * 1500]) {
      const child = spawn(process.execPath, [BIN, '--home', home, 'skills', 'import', dir, '--force'], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME },
        stdio: 'ignore',
      });
      await new Promise((r) => setTimeout(r, delay));
      child.kill('SIGKILL');
      await exited(child);
      const db = new Database(join(home, 'agents.db'));
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        expect([0, 300]).toContain(skillCount(home, 'Killed'));
      } finally {
        db.close();
      }
    }
  }, 120_000);

  it('a lock held past the wait is STORE_BUSY (exit 1), naming the file and what to do', async () => {
    const home = tempDir();
    expect((await cli(['--home', home, 'skills', 'list'])).code).toBe(0);
    const holder = await holdWriteLock(join(home, 'agents.db'), 6_000);
    try {
      const r = await cli(['--home', home, '--json', 'skills', 'import', packages('Busy', 3)], {
        SKILLDESK_STORE_WAIT_MS: '300',
      });
      expect(r.code, r.stderr).toBe(1);
      const err = JSON.parse(r.stderr.trim().split('\n').at(-1)!).error;
      expect(err.code).toBe('STORE_BUSY');
      expect(err.message).toContain(join(home, 'agents.db'));
      expect(err.message).toMatch(/Another SkillDesk .* Try again/);
    } finally {
      holder.kill();
      await exited(holder);
    }
    expect(skillCount(home, 'Busy')).toBe(0);
  }, 60_000);

  it('several processes opening a new store at once all succeed, each migration applied once', async () => {
    const home = join(tempDir(), 'new-home');
    mkdirSync(home);
    const runs = await Promise.all(
      Array.from({ length: 5 }, () => cli(['--home', home, '--json', 'skills', 'list'])),
    );
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const db = new Database(join(home, 'agents.db'), { readonly: true });
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(loadMigrations().length);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
    }
    const listed = runs.map((r) => JSON.parse(r.stdout).skills.length);
    expect(new Set(listed).size).toBe(1);
  }, 120_000);
});
