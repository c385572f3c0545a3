// A skill run with --workspace on a folder that has no agents.db yet reads the folder's pages
// (indexed in memory), and the run leaves no store behind in the folder.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, smallPackage, tempDir } from '../test-support/index.js';

describe('run-skill --workspace on a folder without a store', () => {
  it("gives an account skill the folder's pages and writes nothing there", { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const ws = join(dir, 'notes');
    mkdirSync(ws);
    writeFileSync(join(ws, 'Aria.md'), '---\ntype: character\n---\n# Aria\nLives in [[Winterhold]].\n');
    const home = join(dir, 'home');
    const pkg = smallPackage('Page Reader', '1.0.0', {
      artifacts: [
        {
          kind: 'code_template',
          name: 'Read',
          ordinal: 0,
          content: 'import skilldesk\nskilldesk.submit({"type": skilldesk.get_page("aria")["type"]})\n',
        },
      ],
    });
    writeFileSync(join(dir, 'reader.json'), JSON.stringify(pkg));
    expect((await runCli(['--home', home, 'skills', 'import', join(dir, 'reader.json')])).code).toBe(0);
    const r = await runCli(['--home', home, '--workspace', ws, '--json', 'run-skill', 'Page Reader']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(JSON.parse(r.stdout).results[0].data).toEqual({ type: 'character' });
    expect(existsSync(join(ws, '.skilldesk'))).toBe(false);
    expect(existsSync(join(ws, 'agents.db'))).toBe(false);
  });
});
