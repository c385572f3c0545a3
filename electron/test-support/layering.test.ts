// The layering rules are lint rules (biome.json); this proves they fire, by linting small fixtures
// written under a copy of the project's configuration.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT, tempDir } from './index.js';

const BIOME = join(PROJECT_ROOT, 'node_modules', '@biomejs', 'biome', 'bin', 'biome');

/** Lint `files` (path → source) under the project's biome.json; returns exit code and output. */
function lint(files: Record<string, string>): { code: number | null; output: string } {
  const dir = tempDir('skilldesk-lint-');
  const config = JSON.parse(readFileSync(join(PROJECT_ROOT, 'biome.json'), 'utf8'));
  delete config.$schema;
  config.vcs = { enabled: false };
  writeFileSync(join(dir, 'biome.json'), JSON.stringify(config));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  const r = spawnSync(process.execPath, [BIOME, 'lint', '--max-diagnostics=50', ...Object.keys(files)], {
    cwd: dir,
    encoding: 'utf8',
  });
  return { code: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('layering lint rules', () => {
  it('keep node:* and the core out of the renderer, which may import the contract', () => {
    const ok = lint({
      'renderer/features/x/ok.ts':
        "import type { Channel } from '../../../electron/contract/channels.js';\nexport type X = Channel;\n",
    });
    expect(ok.code, ok.output).toBe(0);

    const bad = lint({
      'renderer/features/x/uses-node.ts':
        "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n",
    });
    expect(bad.code).toBe(1);
    expect(bad.output).toMatch(/noRestrictedImports/);
    expect(bad.output).toMatch(/runs without Node/);

    const core = lint({
      'renderer/features/x/uses-core.ts':
        "import { createHost } from '../../../electron/host.js';\nexport const h = createHost;\n",
    });
    expect(core.code).toBe(1);
    expect(core.output).toMatch(/imports only electron\/contract/);

    const peer = lint({
      'renderer/bridge/uses-peer.ts':
        "import { createPeer } from '../../electron/rpc/index.js';\nexport const p = createPeer;\n",
    });
    expect(peer.code, peer.output).toBe(0);
    const internals = lint({
      'renderer/bridge/uses-peer-file.ts':
        "import { createPeer } from '../../electron/rpc/peer.js';\nexport const p = createPeer;\n",
    });
    expect(internals.code).toBe(1);
  });

  it('keep electron out of the core, but not out of main.ts and shell/', () => {
    const src = "import { app } from 'electron';\nexport const a = app;\n";
    const bad = lint({ 'electron/chat/uses-electron.ts': src });
    expect(bad.code).toBe(1);
    expect(bad.output).toMatch(/Only electron\/main.ts, preload.ts and shell\/ may import electron/);
    const shell = lint({ 'electron/shell/ok.ts': src, 'electron/main.ts': src });
    expect(shell.code, shell.output).toBe(0);
  });
});
