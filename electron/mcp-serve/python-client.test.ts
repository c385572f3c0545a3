// `skilldesk mcp serve` at 10,000 skills driven by the official MCP Python SDK client over stdio,
// as a user's client starts it: the opening requests are answered while the catalog is still being
// built (the SDK gives up on `server/discover` after 10 s and falls back to the older protocol),
// what is served keeps Agent Skills' limits for hostile names and descriptions, and a skill is
// found by the name it is served under as well as the one it is stored under.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SkillPackage } from '../skills/package-schema.js';
import { PROJECT_ROOT, skipWithout, tempDir } from '../test-support/index.js';
import { catalogPackage, writeSkillCatalog } from '../test-support/skill-catalog.js';

const python = join(
  PROJECT_ROOT,
  'sidecar',
  '.venv',
  process.platform === 'win32' ? 'Scripts' : 'bin',
  'python',
);
const missing = !existsSync(python)
  ? 'sidecar/.venv is missing (npm install creates it)'
  : spawnSync(python, ['-c', 'import mcp.client.client'], { timeout: 60_000 }).status !== 0
    ? 'the Python MCP SDK is not installed in sidecar/.venv (npm install adds it)'
    : null;
const skip = skipWithout(missing, 'mcp serve against the Python SDK client');

const LONG = `${'Build apps with the Claude API and its SDKs, '.repeat(24)}and the rest`;

describe.skipIf(skip)('mcp serve with the Python SDK client at 10,000 skills', () => {
  beforeAll(() => {
    // The CLI rebuilds its bundle when a source is newer: not part of what is timed.
    spawnSync(process.execPath, [join(PROJECT_ROOT, 'bin', 'skilldesk.mjs'), '--version'], {
      timeout: 300_000,
    });
  }, 300_000);

  it('answers discover and tools/list at once, serves valid names and descriptions, takes served names', () => {
    const home = tempDir();
    const extra = [
      { ...catalogPackage(100_001), name: 'Claude API', description: LONG },
      { ...catalogPackage(100_002), name: '-21risk-automation' },
      { ...catalogPackage(100_003), name: `${'x'.repeat(63)}-y--Z` },
      { ...catalogPackage(100_004), name: 'Ünïcödé: «names» / with:colons' },
    ] as SkillPackage[];
    writeSkillCatalog(home, 10_000, extra);
    const r = spawnSync(
      python,
      [
        join(PROJECT_ROOT, 'electron', 'mcp-serve', 'python-client.py'),
        JSON.stringify({
          command: [
            process.execPath,
            join(PROJECT_ROOT, 'bin', 'skilldesk.mjs'),
            '--home',
            home,
            'mcp',
            'serve',
          ],
          served: '21risk-automation',
          stored: '-21risk-automation',
        }),
      ],
      { encoding: 'utf8', timeout: 600_000, maxBuffer: 64 * 1024 * 1024 },
    );
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    // The modern protocol: discover was answered before the SDK's 10 s gave up on it. The bound
    // here is generous for a loaded machine; the figure itself is a row of `npm run bench`.
    expect(out.protocol).toBe('2026-07-28');
    expect(out.connected_ms).toBeLessThan(8_000);
    expect(out.tools_list_ms - out.connected_ms).toBeLessThan(5_000);
    expect(out.tools).toEqual([
      'apply_skill',
      'list_skills',
      'read_skill',
      'run_python',
      'run_script',
      'search_skills',
    ]);
    // Both names reach the same skill.
    expect(out.read_served_error).toBe(false);
    expect(out.read_stored_error).toBe(false);
    expect(out.read_served_text).toBe(out.read_stored_text);
    expect(out.served_skill_md).toContain('name: 21risk-automation');
    // Every served name a valid Agent Skills name, every description within 1,024 characters.
    expect(out.skills).toBeGreaterThanOrEqual(10_004);
    for (const name of out.names as string[]) {
      expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(name.length).toBeLessThanOrEqual(64);
    }
    expect(out.max_description).toBeLessThanOrEqual(1024);
    const cut = out.descriptions['claude-api'] as string;
    expect(cut.endsWith(' […]')).toBe(true);
    expect(LONG.startsWith(cut.slice(0, -4))).toBe(true);
    expect(LONG[cut.length - 4]).toBe(' ');
  }, 900_000);
});
