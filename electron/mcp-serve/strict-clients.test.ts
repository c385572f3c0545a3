// `skilldesk mcp serve` as strict clients nobody here wrote see it: fastmcp's skills client lists
// and reads every skill (each file checked against the served size and SHA-256), and the MCP
// Inspector's `--verify` runs the SEP-2640 conformance and digest checks, over stdio and over
// Streamable HTTP in both protocol eras. The catalog holds Anthropic's public skills, the seeded
// ones, a skill whose description is past Agent Skills' 1,024 characters and one whose name is
// not a valid slug. Both clients come from `scripts/setup-strict-clients.mjs` (`.ci/run` runs it).

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, skipWithout, tempDir } from '../test-support/index.js';

const fastmcpPython = join(PROJECT_ROOT, '.tools', 'fastmcp', 'bin', 'python');
const inspector = join(
  PROJECT_ROOT,
  '.tools',
  'inspector',
  'node_modules',
  '@modelcontextprotocol',
  'inspector',
  'clients',
  'launcher',
  'build',
  'index.js',
);
const missing =
  process.platform === 'win32'
    ? 'the strict-client setup is written for POSIX paths'
    : !existsSync(fastmcpPython) || !existsSync(inspector)
      ? 'fastmcp or the MCP Inspector is not installed (run node scripts/setup-strict-clients.mjs)'
      : null;
const skip = skipWithout(missing, 'mcp serve against fastmcp and the MCP Inspector');
const cli = join(PROJECT_ROOT, 'bin', 'skilldesk.mjs');

let home = '';
let server: ChildProcess | null = null;
afterEach(() => {
  server?.kill();
  server = null;
});

/** A running `mcp serve --http 0` on `home`: its URL and token. */
async function serveHttp(): Promise<{ url: string; token: string }> {
  server = spawn(process.execPath, [cli, '--home', home, 'mcp', 'serve', '--http', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let said = '';
  return new Promise((resolve, reject) => {
    server!.stderr!.on('data', (d: Buffer) => {
      said += d.toString();
      const u = /(http:\/\/\S+)/.exec(said);
      const t = /Bearer (\S+)/.exec(said);
      if (u && t) resolve({ url: u[1]!, token: t[1]! });
    });
    server!.once('exit', (code) => reject(new Error(`mcp serve --http exited (${code}): ${said}`)));
  });
}

function fastmcp(target: object) {
  const r = spawnSync(
    fastmcpPython,
    [join(PROJECT_ROOT, 'electron', 'mcp-serve', 'fastmcp-client.py'), JSON.stringify(target)],
    { encoding: 'utf8', timeout: 300_000 },
  );
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { listed: string[]; read: string[]; failed: Record<string, string> };
}

function verify(args: string[]) {
  const r = spawnSync(
    process.execPath,
    [inspector, '--cli', '--verify', '--method', 'skills/list', ...args],
    {
      encoding: 'utf8',
      timeout: 300_000,
      env: { ...process.env, MCP_CATALOG_PATH: join(home, 'inspector.json') },
    },
  );
  return { status: r.status, reports: r.stdout.trim().split('\n').filter(Boolean), stderr: r.stderr };
}

describe.skipIf(skip)('mcp serve with strict clients: fastmcp and the MCP Inspector', () => {
  beforeAll(() => {
    home = tempDir();
    const long = join(tempDir(), 'claude-api');
    mkdirSync(long);
    const description =
      `${'Build apps with the Claude API and its SDKs, tool use, streaming, batches and prompt caching. '.repeat(12)}`.trim();
    writeFileSync(
      join(long, 'SKILL.md'),
      `---\nname: claude-api\ndescription: ${description}\n---\n# Claude API\n\nUse the SDK.\n`,
    );
    const odd = join(tempDir(), '-21risk-automation');
    mkdirSync(odd);
    writeFileSync(
      join(odd, 'SKILL.md'),
      '---\nname: -21risk-automation\ndescription: Automates 21risk checks.\n---\nRun the checks.\n',
    );
    for (const source of [join(PROJECT_ROOT, 'electron', 'skills', 'fixtures', 'anthropic'), long, odd]) {
      const r = spawnSync(process.execPath, [cli, '--home', home, 'skills', 'import', source], {
        encoding: 'utf8',
        timeout: 300_000,
      });
      expect(r.status, r.stderr).toBe(0);
    }
  }, 600_000);

  it('fastmcp lists every skill and reads each one whole, over stdio and HTTP', async () => {
    const overStdio = fastmcp({ command: [process.execPath, cli, '--home', home, 'mcp', 'serve'] });
    expect(overStdio.failed).toEqual({});
    expect(overStdio.listed).toContain('skill://claude-api/SKILL.md');
    expect(overStdio.listed).toContain('skill://21risk-automation/SKILL.md');
    expect(overStdio.listed).toContain('skill://brand-guidelines/SKILL.md');
    expect(overStdio.read.sort()).toEqual(overStdio.listed.sort());

    const overHttp = fastmcp(await serveHttp());
    expect(overHttp.failed).toEqual({});
    expect(overHttp.read.sort()).toEqual(overStdio.listed.sort());
  }, 600_000);

  it('the Inspector verifies every skill (conformance and digests) over stdio and HTTP, legacy and modern', async () => {
    const overStdio = verify([process.execPath, cli, '--home', home, 'mcp', 'serve']);
    expect(overStdio.status, overStdio.stderr).toBe(0);
    expect(overStdio.stderr).toMatch(/Verified \d+ skills and \d+ files: no conformance errors/);
    expect(overStdio.reports.length).toBeGreaterThanOrEqual(7);
    for (const line of overStdio.reports) {
      const report = JSON.parse(line) as { conformance: unknown[]; files: Array<{ status: string }> };
      expect(report.conformance).toEqual([]);
      for (const f of report.files) expect(f.status).toBe('verified');
    }
    const { url, token } = await serveHttp();
    for (const era of ['legacy', 'modern']) {
      const overHttp = verify([
        '--protocol-era',
        era,
        '--transport',
        'http',
        '--server-url',
        url,
        '--header',
        `Authorization: Bearer ${token}`,
      ]);
      expect(overHttp.status, `${era}: ${overHttp.stderr}`).toBe(0);
      expect(overHttp.reports.length).toBe(overStdio.reports.length);
    }
  }, 600_000);
});
