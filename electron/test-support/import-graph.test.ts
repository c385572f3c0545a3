import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findImportCycles, findLayeringViolations } from './import-graph.js';
import { PROJECT_ROOT, tempDir } from './index.js';

/**
 * Imports of other capabilities' internals that predate the rule. The list only shrinks: a new
 * violation fails the test, and so does an entry that no longer occurs (remove it when fixed).
 */
const KNOWN: readonly string[] = [];

/** Write `files` (path under electron/ → source) into a fresh folder and check it. */
function check(files: Record<string, string>) {
  const root = join(tempDir('skilldesk-graph-'), 'electron');
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  return findLayeringViolations(root);
}

describe('the import graph of electron/', () => {
  it('reaches other capabilities only through their index.ts, and electron only from the shell', () => {
    const found = findLayeringViolations(join(PROJECT_ROOT, 'electron')).map((v) =>
      v.rule === 'electron-import' ? `${v.from} imports ${v.to}` : `${v.from} -> ${v.to}`,
    );
    const added = found.filter((v) => !KNOWN.includes(v));
    const fixed = KNOWN.filter((v) => !found.includes(v));
    expect(added, 'import these through the folder’s index.ts (or move the code)').toEqual([]);
    expect(fixed, 'these are fixed: remove them from KNOWN').toEqual([]);
  });

  it('flags a deliberately wrong fixture', () => {
    const found = check({
      'dispatch/dispatcher.ts': 'export const EXECUTABLE_KINDS = [];\n',
      'dispatch/index.ts': "export * from './dispatcher.js';\n",
      'chat/bad.ts':
        "import { EXECUTABLE_KINDS } from '../dispatch/dispatcher.js';\nexport const k = EXECUTABLE_KINDS;\n",
      'chat/lazy.ts': "export const load = () => import('../dispatch/dispatcher.js');\n",
      'chat/good.ts':
        "import { EXECUTABLE_KINDS } from '../dispatch/index.js';\nimport type { Channel } from '../contract/channels.js';\nexport type C = Channel;\nexport const k = EXECUTABLE_KINDS;\n",
      'store/uses-electron.ts': "import { app } from 'electron';\nexport const a = app;\n",
      'store/uses-electron.test.ts':
        "import { vi } from 'vitest';\nvi.mock('electron');\nimport 'electron';\n",
      'shell/window.ts': "import { BrowserWindow } from 'electron';\nexport const W = BrowserWindow;\n",
      'main.ts':
        "import { app } from 'electron';\nimport { W } from './shell/window.js';\nexport const x = [app, W];\n",
      'host.ts': "export * from './host/chat-handlers.js';\n",
      'host/chat-handlers.ts': 'export const chat = 1;\n',
    });
    expect(found).toEqual([
      { rule: 'capability-internals', from: 'chat/bad.ts', to: 'dispatch/dispatcher.js' },
      { rule: 'capability-internals', from: 'chat/lazy.ts', to: 'dispatch/dispatcher.js' },
      { rule: 'electron-import', from: 'store/uses-electron.test.ts', to: 'electron' },
      { rule: 'electron-import', from: 'store/uses-electron.ts', to: 'electron' },
    ]);
  });

  it('has no import cycle across capabilities (type-only imports count)', () => {
    expect(
      findImportCycles(join(PROJECT_ROOT, 'electron')),
      'these files import each other in a circle',
    ).toEqual([]);
  });

  it('finds a cycle through index files and type imports, and leaves one inside a folder alone', () => {
    const root = join(tempDir('skilldesk-cycles-'), 'electron');
    const files: Record<string, string> = {
      'host.ts':
        "import { serve } from './mcp/index.js';\nexport const h = serve;\nexport type Logger = {};\n",
      'mcp/index.ts': "export * from './server.js';\n",
      'mcp/server.ts':
        "import type { Client } from '../transport/index.js';\nexport const serve = (c: Client) => c;\n",
      'transport/index.ts':
        "import type { Logger } from '../host.js';\nexport type Client = { log: Logger };\n",
      'store/a.ts': "import type { B } from './b.js';\nexport type A = B;\n",
      'store/b.ts': "import type { A } from './a.js';\nexport type B = { a?: A };\n",
    };
    for (const [path, source] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), source);
    }
    expect(findImportCycles(root)).toEqual([
      ['host.ts', 'mcp/index.ts', 'mcp/server.ts', 'transport/index.ts'],
    ]);
  });
});
