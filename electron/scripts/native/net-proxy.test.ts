// The native sandbox's network path with the real sandbox: CPython in bubblewrap's empty network
// namespace reaches granted hosts only through the main process's proxy (HTTPS by CONNECT to a local
// server with a self-signed certificate, plain HTTP with redirects), with the http_request gate's
// rules — an ungranted host refused and logged with refused_host, the metadata address refused even
// through a granted name that resolves to it, sizes bounded — while a socket that skips the proxy
// has no route and DNS resolves nothing. Nothing of the run (the forwarder included) outlives it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Server } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpGateOptions, HttpLogEntry, Resolve } from '../../sandbox/http-request.js';
import { skipWithout } from '../../test-support/index.js';
import { withNetProxy } from './net-proxy.js';
import { nativeSandboxSupport, pythonPrefixes, runNativeSandboxed } from './sandbox.js';

const support = nativeSandboxSupport();
const python = (() => {
  const r = spawnSync(process.env.SKILLDESK_PYTHON || 'python3', ['-c', 'import sys;print(sys.executable)'], {
    encoding: 'utf8',
  });
  return r.status === 0 ? r.stdout.trim() : null;
})();
const hasRequests =
  !!python && spawnSync(python, ['-c', 'import requests'], { stdio: 'ignore' }).status === 0;
const openssl = spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0;

const missing = !support.ok
  ? support.reason
  : !python
    ? 'no python3'
    : !openssl
      ? 'no openssl (for the test server’s certificate)'
      : null;

/** Processes whose command line holds `mark`. */
function processesWith(mark: string): number[] {
  const out: number[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(mark)) out.push(Number(pid));
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

const routes = (req: IncomingMessage, res: ServerResponse) => {
  if (req.url === '/to-self') {
    res.writeHead(302, { location: '/ok' });
    return res.end();
  }
  if (req.url === '/to-metadata') {
    res.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' });
    return res.end();
  }
  if (req.url === '/big') {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    return res.end(Buffer.alloc(64 * 1024, 97));
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`ok ${req.method} ${req.url} ${Buffer.concat(chunks).toString()}`);
  });
};

describe.skipIf(skipWithout(missing, 'the native sandbox’s network proxy'))(
  'the native sandbox’s network proxy',
  () => {
    let root: string;
    let skillDir: string;
    let http: Server;
    let https: Server;
    let httpPort = 0;
    let httpsPort = 0;
    let prefixes: string[];

    beforeAll(async () => {
      root = mkdtempSync(join(tmpdir(), 'skilldesk-net-proxy-'));
      skillDir = join(root, 'skill');
      mkdirSync(skillDir);
      const made = spawnSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-keyout',
          join(root, 'key.pem'),
          '-out',
          join(skillDir, 'cert.pem'),
          '-days',
          '2',
          '-subj',
          '/CN=localhost',
          '-addext',
          'subjectAltName=IP:127.0.0.1,DNS:localhost',
        ],
        { encoding: 'utf8' },
      );
      if (made.status !== 0) throw new Error(`openssl: ${made.stderr}`);
      http = createHttpServer(routes);
      https = createHttpsServer(
        { key: readFileSync(join(root, 'key.pem')), cert: readFileSync(join(skillDir, 'cert.pem')) },
        routes,
      );
      await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
      await new Promise<void>((r) => https.listen(0, '127.0.0.1', r));
      httpPort = (http.address() as AddressInfo).port;
      httpsPort = (https.address() as AddressInfo).port;
      prefixes = pythonPrefixes(python!);
    });
    afterAll(async () => {
      await new Promise<void>((r) => http.close(() => r()));
      await new Promise<void>((r) => https.close(() => r()));
      rmSync(root, { recursive: true, force: true });
    });

    /** Run `code` in the sandbox with a proxy for `gate` (none for null); the script gets PORTS. */
    async function run(code: string, gate: Partial<HttpGateOptions> | null, argv: string[] = []) {
      const script = `s-${Math.random().toString(36).slice(2)}.py`;
      writeFileSync(join(skillDir, script), `HTTP_PORT = ${httpPort}\nHTTPS_PORT = ${httpsPort}\n${code}`);
      const log: HttpLogEntry[] = [];
      const r = await withNetProxy(
        gate ? { skill: 'net-test', granted: [], ...gate, log: (e) => log.push(e) } : null,
        (proxySocket) =>
          runNativeSandboxed({
            python: python!,
            pythonPaths: prefixes,
            skillDir,
            script,
            argv,
            outDir: join(root, 'out'),
            proxySocket,
            limits: { timeout_ms: 60_000 },
          }),
      );
      rmSync(join(skillDir, script), { force: true });
      return { ...r, log };
    }

    const loopbackGrants = () => [`127.0.0.1:${httpPort}`, `127.0.0.1:${httpsPort}`];

    it('reaches granted hosts over HTTPS (CONNECT) and plain HTTP, from urllib, http.client and requests', async () => {
      const r = await run(
        `import os, ssl, urllib.parse, urllib.request, http.client
ctx = ssl.create_default_context(cafile="cert.pem")
print("A", urllib.request.urlopen("https://127.0.0.1:%d/a" % HTTPS_PORT, context=ctx).read().decode())
print("B", urllib.request.urlopen("http://127.0.0.1:%d/to-self" % HTTP_PORT).read().decode())
p = urllib.parse.urlsplit(os.environ["HTTPS_PROXY"])
c = http.client.HTTPSConnection(p.hostname, p.port, context=ctx, timeout=20)
c.set_tunnel("127.0.0.1", HTTPS_PORT)
c.request("POST", "/c", body=b"posted")
print("C", c.getresponse().read().decode())
try:
    import requests
except ImportError:
    print("D no requests")
else:
    print("D", requests.get("https://127.0.0.1:%d/d" % HTTPS_PORT, verify="cert.pem", timeout=20).text)
`,
        { granted: loopbackGrants(), httpsOnly: true },
      );
      expect(r.stderr).toBe('');
      expect(r.exit_code).toBe(0);
      expect(r.stdout).toContain('A ok GET /a');
      // The redirect was followed by the gate (checked as a new hop).
      expect(r.stdout).toContain('B ok GET /ok');
      expect(r.stdout).toContain('C ok POST /c posted');
      if (hasRequests) expect(r.stdout).toContain('D ok GET /d');
      const tunnels = r.log.filter((e) => e.method === 'CONNECT');
      expect(tunnels.length).toBeGreaterThanOrEqual(hasRequests ? 3 : 2);
      for (const t of tunnels) {
        expect(t).toMatchObject({ url: `https://127.0.0.1:${httpsPort}`, status: 200 });
        expect(t.bytes).toBeGreaterThan(0);
        expect(t.error).toBeUndefined();
      }
      expect(r.log).toContainEqual({
        method: 'GET',
        url: `http://127.0.0.1:${httpPort}/to-self`,
        status: 302,
        bytes: 0,
      });
      expect(r.log).toContainEqual(
        expect.objectContaining({ method: 'GET', url: `http://127.0.0.1:${httpPort}/ok`, status: 200 }),
      );
    });

    it('refuses an ungranted host before resolving it, tells the script why, and logs refused_host', async () => {
      const asked: string[] = [];
      const resolve: Resolve = async (h) => {
        asked.push(h);
        return [{ address: '93.184.216.34', family: 4 }];
      };
      const r = await run(
        `import urllib.request
for url in ["https://api.example.com/v1", "http://example.org/", "https://127.0.0.1:%d/" % (HTTP_PORT,)]:
    try:
        urllib.request.urlopen(url, timeout=20)
        print("REACHED", url)
    except Exception as e:
        print("refused", url, "|", e)
`,
        {
          granted: [`127.0.0.1:${httpsPort}`],
          httpsOnly: true,
          resolve,
          refusal: { who: 'run_python in this chat', grant: (h) => `Allow ${h} for this chat.` },
        },
      );
      expect(r.stdout).not.toContain('REACHED');
      expect(r.stdout).toContain(
        'refused https://api.example.com/v1 | <urlopen error Tunnel connection failed: 403 run_python in this chat may not reach api.example.com: it is not granted. Allow api.example.com for this chat.>',
      );
      expect(r.stdout).toMatch(
        /refused http:\/\/example\.org\/ \| HTTP Error 403: .*may not reach example\.org/,
      );
      expect(asked).toEqual([]);
      expect(r.log.map((e) => e.refused_host)).toEqual(['api.example.com', 'example.org', undefined]);
      for (const e of r.log) expect(e.status).toBeNull();
    });

    it('refuses the metadata address: by a granted name that resolves to it, by address, and by a redirect', async () => {
      const resolve: Resolve = async (h) => {
        if (h === 'metadata.test') return [{ address: '169.254.169.254', family: 4 }];
        throw new Error(`no such name ${h}`);
      };
      const r = await run(
        `import socket, urllib.request
for url in ["https://metadata.test/latest/meta-data/", "https://169.254.169.254/", "http://127.0.0.1:%d/to-metadata" % HTTP_PORT]:
    try:
        urllib.request.urlopen(url, timeout=20)
        print("REACHED", url)
    except Exception as e:
        print("refused", url, "|", e)
try:
    socket.create_connection(("169.254.169.254", 80), timeout=3)
    print("REACHED raw")
except OSError as e:
    print("raw refused", e.errno)
`,
        { granted: ['metadata.test', `127.0.0.1:${httpPort}`], httpsOnly: true, resolve },
      );
      expect(r.stdout).not.toContain('REACHED');
      expect(r.stdout).toContain('resolves to 169.254.169.254, a linkLocal address');
      expect(r.stdout).toMatch(/refused https:\/\/169\.254\.169\.254\/ \|.*may not reach 169\.254\.169\.254/);
      expect(r.stdout).toMatch(
        /refused http:\/\/127\.0\.0\.1:\d+\/to-metadata \|.*may not reach 169\.254\.169\.254/,
      );
      expect(r.stdout).toMatch(/raw refused \d+/);
      // An internal address is never offered as a one-click grant.
      expect(r.log.every((e) => e.refused_host === undefined)).toBe(true);
      expect(r.log.filter((e) => e.error).length).toBe(3);
      expect(r.log).toContainEqual(
        expect.objectContaining({ url: 'http://169.254.169.254/latest/meta-data/', status: null }),
      );
    });

    it('a socket that skips the proxy has no route, and DNS inside resolves nothing, with a grant in force', async () => {
      const mark = `netmark-${Math.random().toString(36).slice(2)}`;
      const r = await run(
        `import os, socket
print("proxy", os.environ.get("HTTPS_PROXY", "none"))
for addr in [("1.1.1.1", 443), ("93.184.216.34", 80), ("127.0.0.1", HTTP_PORT), ("::1", HTTP_PORT)]:
    try:
        socket.create_connection(addr, timeout=3)
        print("REACHED", addr)
    except OSError as e:
        print("blocked", addr[0], e.errno)
for name in ["example.com", "api.example.com", "metadata.google.internal"]:
    try:
        print("RESOLVED", name, socket.getaddrinfo(name, 443))
    except OSError as e:
        print("unresolved", name)
`,
        { granted: [...loopbackGrants(), 'example.com'], httpsOnly: true },
        [mark],
      );
      expect(r.exit_code).toBe(0);
      expect(r.stdout).toMatch(/^proxy http:\/\/127\.0\.0\.1:\d+$/m);
      expect(r.stdout).not.toContain('REACHED');
      expect(r.stdout).not.toContain('RESOLVED');
      expect(r.stdout.match(/^blocked /gm)).toHaveLength(4);
      expect(r.stdout.match(/^unresolved /gm)).toHaveLength(3);
      // The host's server heard nothing, and nothing of the run (the forwarder too) is left.
      expect(r.log).toEqual([]);
      expect(processesWith(mark)).toEqual([]);
    });

    it('bounds what a request may bring back, tunnel and plain alike', async () => {
      const r = await run(
        `import ssl, urllib.request
ctx = ssl.create_default_context(cafile="cert.pem")
for url in ["https://127.0.0.1:%d/big" % HTTPS_PORT, "http://127.0.0.1:%d/big" % HTTP_PORT]:
    try:
        n = len(urllib.request.urlopen(url, context=ctx if url.startswith("https") else None, timeout=20).read())
        print("GOT", n)
    except Exception as e:
        print("cut", type(e).__name__)
`,
        { granted: loopbackGrants(), httpsOnly: true, maxResponseBytes: 16 * 1024 },
      );
      expect(r.stdout).not.toContain('GOT');
      expect(r.stdout.match(/^cut /gm)).toHaveLength(2);
      expect(r.log.filter((e) => /more than 16384 bytes/.test(e.error ?? ''))).toHaveLength(2);
    });

    // A private address of this machine, granted as an address: reachable, but over https only —
    // neither a plain request nor plain HTTP inside a CONNECT tunnel gets through.
    const lan = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    it.runIf(lan)('keeps https only: plain HTTP is refused, inside a CONNECT tunnel too', async () => {
      const plain = createHttpServer(routes);
      await new Promise<void>((r) => plain.listen(0, lan, r));
      const port = (plain.address() as AddressInfo).port;
      try {
        const r = await run(
          `import os, urllib.parse, urllib.request, http.client
try:
    urllib.request.urlopen("http://${lan}:${port}/x", timeout=20)
    print("REACHED plain")
except Exception as e:
    print("plain refused |", e)
p = urllib.parse.urlsplit(os.environ["HTTPS_PROXY"])
c = http.client.HTTPConnection(p.hostname, p.port, timeout=20)
c.set_tunnel("${lan}", ${port})
try:
    c.request("GET", "/tunnelled")
    print("REACHED tunnel", c.getresponse().read())
except Exception as e:
    print("tunnel refused |", type(e).__name__)
`,
          { granted: [`${lan}:${port}`], httpsOnly: true },
        );
        expect(r.stdout).not.toContain('REACHED');
        expect(r.stdout).toMatch(/plain refused \| HTTP Error 403: .*over https only/);
        expect(r.stdout).toContain('tunnel refused |');
        expect(r.log).toContainEqual(
          expect.objectContaining({ method: 'CONNECT', error: expect.stringMatching(/over https only/) }),
        );
      } finally {
        await new Promise<void>((r) => plain.close(() => r()));
      }
    });

    it('without a grant the sandbox has no proxy at all', async () => {
      const r = await run(
        `import os, urllib.request
print("proxy", os.environ.get("HTTPS_PROXY", "none"), os.path.exists("/run/skilldesk/net/proxy.sock"))
try:
    urllib.request.urlopen("http://127.0.0.1:%d/" % HTTP_PORT, timeout=3)
    print("REACHED")
except Exception as e:
    print("refused", type(e).__name__)
`,
        null,
      );
      expect(r.stdout).toContain('proxy none False');
      expect(r.stdout).toContain('refused URLError');
    });
  },
  120_000,
);
