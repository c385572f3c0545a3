import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../test-support/index.js';

const FIXTURE = join(import.meta.dirname, '..', 'skills', 'fixtures', 'anthropic', 'webapp-testing');

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

describe('skilldesk skills export --format zip', () => {
  it('zips a skill with its modes; the zip imports back to the same folder, byte for byte', async () => {
    const home = tempDir();
    const g = ['--home', home];
    expect((await runCli([...g, 'skills', 'import', FIXTURE])).code).toBe(0);
    const zip = join(tempDir(), 'webapp-testing.zip');
    const r = await runCli([
      ...g,
      '--json',
      'skills',
      'export',
      'webapp-testing',
      '--format',
      'zip',
      '-o',
      zip,
    ]);
    expect(r.code).toBe(0);
    expect(r.json().exported).toMatchObject({ format: 'zip', path: zip });
    // Zipping again gives the same bytes (fixed times, sorted entries).
    const again = join(tempDir(), 'again.zip');
    await runCli([...g, 'skills', 'export', 'webapp-testing', '--format', 'zip', '-o', again]);
    expect(readFileSync(again).equals(readFileSync(zip))).toBe(true);
    // An existing file is not overwritten without --force.
    const exists = await runCli([...g, 'skills', 'export', 'webapp-testing', '--format', 'zip', '-o', zip]);
    expect(exists.code).not.toBe(0);
    expect(exists.stderr).toMatch(/--force/);

    const home2 = tempDir();
    const imported = await runCli(['--home', home2, '--json', 'skills', 'import', zip]);
    expect(imported.json().imported[0]).toMatchObject({ name: 'webapp-testing', action: 'created' });
    const out = join(tempDir(), 'out');
    const folder = await runCli([
      '--home',
      home2,
      'skills',
      'export',
      'webapp-testing',
      '--format',
      'agent-skill',
      '-o',
      out,
    ]);
    expect(folder.code).toBe(0);
    expect(tree(out)).toEqual(tree(FIXTURE));
    expect(tree(out)['scripts/with_server.py']!.startsWith('x ')).toBe(true);
  });
});
