// A lying HTTP catalog, served on loopback by someone who read catalog.ts: a SHA-256 that does
// not match, a Content-Length smaller or larger than the body, no length and an endless body, an
// index over the limit, and packages that together would fill the disk. Each is refused clearly,
// quickly, and leaves the cached snapshot as it was.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchCatalog } from './catalog.js';

const pkg = JSON.stringify({
  name: 'csv-tools',
  description: 'CSV tools',
  artifacts: [{ kind: 'approach', name: 'how', content: 'Read the CSV.' }],
});
const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');
const MB = 1024 * 1024;

let server: Server;
let base = '';
/** Bytes each endless response managed to write before the client hung up. */
const streamed: number[] = [];
const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {};

beforeAll(async () => {
  server = createServer((req, res) => {
    const route = routes[req.url ?? ''];
    if (route) route(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const index = (skills: unknown[]) => (_q: IncomingMessage, res: ServerResponse) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ skills }));
  routes['/pkg.json'] = (_q, res) => res.writeHead(200).end(pkg);
  routes['/lying-sha.json'] = index([{ name: 'csv-tools', url: 'pkg.json', sha256: sha(`${pkg} `) }]);
  routes['/good.json'] = index([{ name: 'csv-tools', url: 'pkg.json', sha256: sha(pkg).toUpperCase() }]);
  // Says 10 bytes, sends the whole package.
  routes['/short-length.json'] = index([{ name: 'a', url: 'short.json' }]);
  routes['/short.json'] = (req) =>
    req.socket.end(`HTTP/1.1 200 OK\r\ncontent-length: 10\r\nconnection: close\r\n\r\n${pkg}`);
  // Says more than it sends, then hangs up.
  routes['/long-length.json'] = index([{ name: 'a', url: 'long.json' }]);
  routes['/long.json'] = (_q, res) => {
    res.writeHead(200, { 'content-length': String(pkg.length + 1000) });
    res.write(pkg);
    setImmediate(() => res.socket?.destroy());
  };
  // No length, and a body that never ends.
  routes['/endless-index.json'] = (_q, res) => endless(res);
  routes['/endless-pkg.json'] = index([{ name: 'a', url: 'endless.json' }]);
  routes['/endless.json'] = (_q, res) => endless(res);
  routes['/declared-huge.json'] = (_q, res) => {
    res.writeHead(200, { 'content-length': String(512 * MB) });
    res.write('{');
    setImmediate(() => res.socket?.destroy());
  };
  // 2,000 entries of one 100 KB package: each under the limit, all together far over it.
  const big = JSON.stringify({
    name: 'big',
    description: 'Big',
    artifacts: [{ kind: 'approach', name: 'how', content: 'y'.repeat(100_000) }],
  });
  routes['/big.json'] = (_q, res) => res.writeHead(200).end(big);
  routes['/many.json'] = index(Array.from({ length: 2000 }, (_, i) => ({ name: `s${i}`, url: 'big.json' })));
});

function endless(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let sent = 0;
  const pump = () => {
    while (sent < 1024 * MB && res.write(chunk)) sent += chunk.length;
    if (sent < 1024 * MB) res.once('drain', pump);
  };
  res.on('close', () => streamed.push(sent));
  pump();
}

afterAll(() => {
  server.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const dirs: string[] = [];
function cache(): string {
  const d = mkdtempSync(join(tmpdir(), 'sd-adv-cat-'));
  dirs.push(d);
  return join(d, 'cat');
}

const codeOf = (e: unknown) => (e as { code?: string }).code ?? (e as Error).constructor.name;

describe('a lying HTTP catalog', () => {
  it('serves an honest catalog (digest in upper case) into the cache', async () => {
    const dir = cache();
    const r = await fetchCatalog(`${base}/good.json`, null, dir, 4 * MB);
    expect(r.status).toBe('fetched');
    expect(readdirSync(dir)).toEqual(['csv-tools.json']);
  });

  it('a SHA-256 that does not match the package is refused, naming both digests', async () => {
    const dir = cache();
    const err = await fetchCatalog(`${base}/lying-sha.json`, null, dir, 4 * MB).catch((e) => e);
    expect(codeOf(err)).toBe('INVALID_INPUT');
    expect((err as Error).message).toContain(sha(pkg));
    expect(existsSync(dir)).toBe(false);
  });

  it('a body shorter than its Content-Length is a broken download, not a crash', async () => {
    const err = await fetchCatalog(`${base}/long-length.json`, null, cache(), 4 * MB).catch((e) => e);
    expect(codeOf(err)).toBe('SourceUnreachable');
    expect((err as Error).message).toMatch(/long\.json: the download broke off/);
  });

  it('a Content-Length smaller than the body yields only the declared bytes, which then fail as a package', async () => {
    const dir = cache();
    const r = await fetchCatalog(`${base}/short-length.json`, null, dir, 4 * MB);
    // What arrived is what was declared (10 bytes): the importer refuses it as JSON later.
    expect(r.status).toBe('fetched');
    expect(readdirSync(dir)).toEqual(['a.json']);
  });

  it('an index or a package with no length and an endless body stops at the limit, quickly', async () => {
    for (const url of ['/endless-index.json', '/endless-pkg.json']) {
      const started = Date.now();
      const err = await fetchCatalog(`${base}${url}`, null, cache(), 2 * MB).catch((e) => e);
      expect(codeOf(err), url).toBe('TOO_LARGE');
      expect((err as Error).message, url).toMatch(/more than 2097152 bytes/);
      expect(Date.now() - started, url).toBeLessThan(30_000);
    }
    // The server was cut off long before it could send its gigabyte.
    await expect.poll(() => streamed.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    for (const n of streamed) expect(n).toBeLessThan(64 * MB);
  });

  it('a declared size over the limit is refused before the body is read', async () => {
    const err = await fetchCatalog(`${base}/declared-huge.json`, null, cache(), 4 * MB).catch((e) => e);
    expect(codeOf(err)).toBe('TOO_LARGE');
  });

  it('packages that together are over 8 times the limit are refused and nothing is cached', async () => {
    const dir = cache();
    const err = await fetchCatalog(`${base}/many.json`, null, dir, 4 * MB).catch((e) => e);
    expect(codeOf(err)).toBe('TOO_LARGE');
    expect((err as Error).message).toMatch(/add up to more than 33554432 bytes/);
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(join(dir, '..'))).toEqual([]);
  }, 120_000);
});
