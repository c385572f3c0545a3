import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../test-support/index.js';

describe('skilldesk run-code', () => {
  it('runs files in order in one pool, JSON lines, exit 1 when one fails, later files still run', async () => {
    const dir = tempDir();
    const ws = join(dir, 'ws');
    mkdirSync(ws);
    writeFileSync(
      join(ws, 'Aria.md'),
      '---\ntype: character\ntags: [hero]\n---\n# Aria\nLives in [[Winterhold]].\n',
    );
    writeFileSync(
      join(dir, 'a.py'),
      'import skilldesk\nprint("a")\nskilldesk.submit(skilldesk.get_page("aria")["type"])\n',
    );
    writeFileSync(join(dir, 'b.py'), 'raise ValueError("bad")\n');
    const r = await runCli(
      [
        '--home',
        join(dir, 'home'),
        '--workspace',
        ws,
        '--json',
        'run-code',
        '--timeout-ms',
        '1500',
        join(dir, 'a.py'),
        join(dir, 'b.py'),
        '-',
      ],
      {},
      'while True: pass\n',
    );
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.ok)).toEqual([true, false, false]);
    expect(lines[0]).toMatchObject({ result: 'character', stdout: 'a\n', error: null });
    expect(lines[1].error).toEqual({ type: 'ValueError', message: 'bad' });
    expect(lines[2].file).toBe('-');
    expect(lines[2].error.code).toBe('SANDBOX_TIMEOUT');
    expect(r.code).toBe(1);
  }, 60_000);

  it('exits 2 on usage errors without running anything', async () => {
    const dir = tempDir();
    expect((await runCli(['--home', dir, 'run-code', join(dir, 'missing.py')])).code).toBe(2);
    expect((await runCli(['--home', dir, 'run-code', '-', '-'])).code).toBe(2);
    expect((await runCli(['--home', dir, 'run-code', 'x.py', '--timeout-ms', 'soon'])).code).toBe(2);
  });
});

describe('skilldesk sandbox prepare', () => {
  it('starts the sandbox once and leaves its snapshot in the home cache; --json says ready', async () => {
    const home = join(tempDir(), 'home');
    const r = await runCli(['--home', home, '--json', 'sandbox', 'prepare']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ready: true });
    const cached = readdirSync(join(home, 'cache')).filter((f) => f.endsWith('.snapshot'));
    expect(cached).toHaveLength(1);
  }, 120_000);
});
