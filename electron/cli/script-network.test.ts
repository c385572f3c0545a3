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

describe.skipIf(skipWithout(missing, 'a native script’s network'))('a native script’s network', () => {
  it('has none without a grant; with one, reaches the granted host only, through the proxy', async () => {
    const server = createServer((req, res) => res.end(`served ${req.url}`));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const home = tempDir();
      const skill = join(tempDir(), 'fetcher');
      mkdirSync(join(skill, 'scripts'), { recursive: true });
      writeFileSync(
        join(skill, 'SKILL.md'),
        '---\nname: fetcher\ndescription: Fetches a URL.\n---\nRun scripts/get.py URL…\n',
      );
      writeFileSync(
        join(skill, 'scripts', 'get.py'),
        [
          'import os, sys, urllib.request',
          'print("proxy", "HTTP_PROXY" in os.environ)',
          'for url in sys.argv[1:]:',
          '    try:',
          '        print(urllib.request.urlopen(url, timeout=20).read().decode())',
          '    except Exception as e:',
          '        print("refused", url, "|", e)',
        ].join('\n'),
      );
      expect((await runCli(['--home', home, 'skills', 'import', skill])).code).toBe(0);
      seedNativeEnv(home, 'fetcher', nativePython!);
      acceptNativeRuntime(home, 'fetcher', ['lxml']);
      const run = async () => {
        const ran = await runCli([
          '--home',
          home,
          '--json',
          'skills',
          'run-script',
          'fetcher',
          'scripts/get.py',
          `http://${host}/rates`,
          'http://example.org/',
          '--timeout-ms',
          '60000',
        ]);
        expect(ran.stderr).toBe('');
        return ran.json() as { stdout: string; requests?: Array<Record<string, unknown>> };
      };

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
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  }, 180_000);
});

describe('a Pyodide script’s network', () => {
  it('has none without a grant; with one, reaches the granted host only, through http_request', async () => {
    const server = createServer((req, res) => res.end(`served ${req.url}`));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const home = tempDir();
      const skill = join(tempDir(), 'fetcher-py');
      mkdirSync(join(skill, 'scripts'), { recursive: true });
      writeFileSync(
        join(skill, 'SKILL.md'),
        '---\nname: fetcher-py\ndescription: Fetches a URL.\n---\nRun scripts/get.py URL…\n',
      );
      writeFileSync(
        join(skill, 'scripts', 'get.py'),
        [
          'import sys, urllib.request',
          'for url in sys.argv[1:]:',
          '    try:',
          '        print(urllib.request.urlopen(url, timeout=20).read().decode())',
          '    except Exception as e:',
          '        print("refused", url, "|", e)',
        ].join('\n'),
      );
      expect((await runCli(['--home', home, 'skills', 'import', skill])).code).toBe(0);
      const run = async () => {
        const ran = await runCli([
          '--home',
          home,
          '--json',
          'skills',
          'run-script',
          'fetcher-py',
          'scripts/get.py',
          `http://${host}/rates`,
          'http://example.org/',
        ]);
        expect(ran.stderr).toBe('');
        return ran.json() as { stdout: string; requests?: Array<Record<string, unknown>> };
      };
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
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  }, 180_000);
});
