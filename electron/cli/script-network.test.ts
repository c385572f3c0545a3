// A skill's script and the network, from the command line, in both runtimes: without a grant it
// has none; with `skills grant`, the granted host is reached (native: through the proxy; Pyodide:
// through http_request — the same grants and gate as an LLM skill's tools), another host is
// refused, and every attempt is in the result's `requests`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acceptNativeRuntime, nativeSandboxSupport } from '../scripts/index.js';
import { runCli, skipWithout, tempDir } from '../test-support/index.js';
import { nativePythonOrNull, seedNativeEnv } from '../test-support/native-env.js';

const nativePython = nativePythonOrNull();
const sandbox = nativeSandboxSupport();
const missing = !sandbox.ok ? sandbox.reason : !nativePython ? 'no Python 3.11+' : null;

/** A local HTTP server answering `served <path>` for the length of `fn`; its `host:port`. */
async function withLocalServer(fn: (host: string) => Promise<void>): Promise<void> {
  const server = createServer((req, res) => res.end(`served ${req.url}`));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    await fn(`127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
  }
}

/** An Agent Skills folder `name` whose scripts/get.py fetches each URL it is given (`prelude` first). */
function fetcherSkill(name: string, prelude: string[]): string {
  const skill = join(tempDir(), name);
  mkdirSync(join(skill, 'scripts'), { recursive: true });
  writeFileSync(
    join(skill, 'SKILL.md'),
    `---\nname: ${name}\ndescription: Fetches a URL.\n---\nRun scripts/get.py URL…\n`,
  );
  writeFileSync(
    join(skill, 'scripts', 'get.py'),
    [
      ...prelude,
      'for url in sys.argv[1:]:',
      '    try:',
      '        print(urllib.request.urlopen(url, timeout=20).read().decode())',
      '    except Exception as e:',
      '        print("refused", url, "|", e)',
    ].join('\n'),
  );
  return skill;
}

/** `skills run-script NAME scripts/get.py` on the granted host and on example.org. */
async function fetchBoth(home: string, name: string, host: string, extra: string[] = []) {
  const ran = await runCli([
    '--home',
    home,
    '--json',
    'skills',
    'run-script',
    name,
    'scripts/get.py',
    `http://${host}/rates`,
    'http://example.org/',
    ...extra,
  ]);
  expect(ran.stderr).toBe('');
  return ran.json() as { stdout: string; requests?: Array<Record<string, unknown>> };
}

describe.skipIf(skipWithout(missing, 'a native script’s network'))('a native script’s network', () => {
  it('has none without a grant; with one, reaches the granted host only, through the proxy', async () => {
    await withLocalServer(async (host) => {
      const home = tempDir();
      const skill = fetcherSkill('fetcher', [
        'import os, sys, urllib.request',
        'print("proxy", "HTTP_PROXY" in os.environ)',
      ]);
      expect((await runCli(['--home', home, 'skills', 'import', skill])).code).toBe(0);
      seedNativeEnv(home, 'fetcher', nativePython!);
      acceptNativeRuntime(home, 'fetcher', ['lxml']);
      const run = () => fetchBoth(home, 'fetcher', host, ['--timeout-ms', '60000']);

      const before = await run();
      expect(before.stdout).toContain('proxy False');
      expect(before.stdout).not.toContain('served');
      expect(before.requests).toBeUndefined();

      expect((await runCli(['--home', home, 'skills', 'grant', 'fetcher', host])).code).toBe(0);
      const after = await run();
      expect(after.stdout).toContain('proxy True');
      expect(after.stdout).toContain('served /rates');
      expect(after.stdout).toContain(
        'refused http://example.org/ | HTTP Error 403: skill "fetcher" may not reach example.org: it is not granted. Grant it with: skilldesk skills grant "fetcher" example.org',
      );
      expect(after.requests).toEqual([
        { method: 'GET', url: `http://${host}/rates`, status: 200, bytes: 13 },
        expect.objectContaining({ method: 'GET', url: 'http://example.org/', refused_host: 'example.org' }),
      ]);
    });
  }, 180_000);
});

describe('a Pyodide script’s network', () => {
  it('has none without a grant; with one, reaches the granted host only, through http_request', async () => {
    await withLocalServer(async (host) => {
      const home = tempDir();
      const skill = fetcherSkill('fetcher-py', ['import sys, urllib.request']);
      expect((await runCli(['--home', home, 'skills', 'import', skill])).code).toBe(0);
      const run = () => fetchBoth(home, 'fetcher-py', host);
      const before = await run();
      expect(before.stdout).not.toContain('served');
      expect(before.requests).toBeUndefined();

      expect((await runCli(['--home', home, 'skills', 'grant', 'fetcher-py', host])).code).toBe(0);
      const after = await run();
      expect(after.stdout).toContain('served /rates');
      expect(after.stdout).toMatch(
        /refused http:\/\/example\.org\/ \|.*may not reach example\.org: it is not granted/,
      );
      expect(after.requests).toEqual([
        { method: 'GET', url: `http://${host}/rates`, status: 200, bytes: 13 },
        expect.objectContaining({ method: 'GET', url: 'http://example.org/', refused_host: 'example.org' }),
      ]);
    });
  }, 180_000);
});
