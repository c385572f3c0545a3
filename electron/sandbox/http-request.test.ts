// http_request's gate, against a real local server: grants, special addresses (v4, v6, v4-mapped),
// a rebinding name, redirects re-checked per hop, the connection pinned to the checked address,
// and the size limit.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpLogEntry, httpRequest, specialAddress } from './http-request.js';

let server: Server;
let port = 0;
const seen: Array<{ url: string; host: string }> = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', host: req.headers.host ?? '' });
    if (req.url === '/to-metadata') {
      res.writeHead(301, { location: 'http://169.254.169.254/' });
      return res.end();
    }
    if (req.url === '/to-self') {
      res.writeHead(302, { location: '/ok' });
      return res.end();
    }
    if (req.url === '/big') {
      res.writeHead(200);
      return res.end(Buffer.alloc(4096, 97));
    }
    res.writeHead(200, { 'content-type': 'text/plain', server: 'Gate/1' });
    res.end(`ok ${req.method}`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const get = (url: string, granted: string[], more: Partial<Parameters<typeof httpRequest>[1]> = {}) =>
  httpRequest({ method: 'GET', url, headers: {}, body: null }, { skill: 'site-checker', granted, ...more });

describe('specialAddress', () => {
  it('classifies loopback, private, link-local, multicast, unspecified, v6 and v4-mapped', () => {
    expect(specialAddress('127.0.0.1')).toBe('loopback');
    expect(specialAddress('10.1.2.3')).toBe('private');
    expect(specialAddress('192.168.0.1')).toBe('private');
    expect(specialAddress('169.254.169.254')).toBe('linkLocal');
    expect(specialAddress('224.0.0.1')).toBe('multicast');
    expect(specialAddress('0.0.0.0')).toBe('unspecified');
    expect(specialAddress('::1')).toBe('loopback');
    expect(specialAddress('::')).toBe('unspecified');
    expect(specialAddress('fe80::1')).toBe('linkLocal');
    expect(specialAddress('fd00::1')).toBe('uniqueLocal');
    expect(specialAddress('::ffff:127.0.0.1')).toBe('loopback');
    expect(specialAddress('::ffff:10.0.0.1')).toBe('private');
    expect(specialAddress('93.184.216.34')).toBeNull();
    expect(specialAddress('2606:2800:220:1::1')).toBeNull();
  });
});

describe('httpRequest', () => {
  it('reaches a host granted by address and logs it', async () => {
    const log: HttpLogEntry[] = [];
    const r = await get(`http://127.0.0.1:${port}/x`, [`127.0.0.1:${port}`], { log: (e) => log.push(e) });
    expect(r.status).toBe(200);
    expect(Buffer.from(r.body, 'base64').toString()).toBe('ok GET');
    expect(r.headers).toContainEqual(['server', 'Gate/1']);
    expect(log).toEqual([{ method: 'GET', url: `http://127.0.0.1:${port}/x`, status: 200, bytes: 6 }]);
  });

  it('refuses an ungranted host, naming it and the setting', async () => {
    await expect(get(`http://127.0.0.1:${port}/`, ['example.com'])).rejects.toThrow(
      new RegExp(
        `may not reach 127\\.0\\.0\\.1:${port}: it is not granted.*skills grant "site-checker" 127\\.0\\.0\\.1:${port}`,
      ),
    );
    // A grant of another port is not this one.
    await expect(get(`http://127.0.0.1:${port}/`, ['127.0.0.1:1'])).rejects.toThrow(/not granted/);
  });

  it('refuses a granted name that resolves to a loopback address (rebinding), v4 and v4-mapped', async () => {
    for (const address of ['127.0.0.1', '::ffff:127.0.0.1', '10.0.0.7']) {
      const before = seen.length;
      await expect(
        get(`http://rebind.example:${port}/`, [`rebind.example:${port}`], {
          resolve: async () => [{ address, family: address.includes(':') ? 6 : 4 }],
        }),
      ).rejects.toThrow(/resolves to .*a (loopback|private) address/);
      expect(seen.length).toBe(before);
    }
  });

  it('connects to the address it checked, whatever the name resolves to afterwards', async () => {
    let calls = 0;
    // First answer: the test server (granted as localhost); any later answer would be elsewhere.
    const resolve = async () =>
      calls++ === 0 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.9.9.9', family: 4 }];
    const r = await get(`http://localhost:${port}/pinned`, [`localhost:${port}`], { resolve });
    expect(r.status).toBe(200);
    expect(calls).toBe(1);
    expect(seen.at(-1)).toEqual({ url: '/pinned', host: `localhost:${port}` });
  });

  it('checks every redirect hop: a redirect to an ungranted address is refused, one to itself followed', async () => {
    const log: HttpLogEntry[] = [];
    await expect(
      get(`http://127.0.0.1:${port}/to-metadata`, [`127.0.0.1:${port}`], { log: (e) => log.push(e) }),
    ).rejects.toThrow(/may not reach 169\.254\.169\.254: it is not granted/);
    expect(log.map((e) => [e.url, e.status])).toEqual([
      [`http://127.0.0.1:${port}/to-metadata`, 301],
      ['http://169.254.169.254/', null],
    ]);
    // An internal address is never offered to the user as a host to allow.
    expect(log[1]!.refused_host).toBeUndefined();
    const named: HttpLogEntry[] = [];
    await expect(get('https://api.example.com/v1', [], { log: (e) => named.push(e) })).rejects.toThrow(
      /not granted/,
    );
    expect(named[0]).toMatchObject({ url: 'https://api.example.com/v1', refused_host: 'api.example.com' });
    // Granting the name is not enough for a link-local address: only the address itself.
    const r = await get(`http://127.0.0.1:${port}/to-self`, [`127.0.0.1:${port}`]);
    expect([r.status, r.url]).toEqual([200, `http://127.0.0.1:${port}/ok`]);
  });

  it('bounds the response size and refuses other schemes and user info', async () => {
    await expect(
      get(`http://127.0.0.1:${port}/big`, [`127.0.0.1:${port}`], { maxResponseBytes: 1000 }),
    ).rejects.toThrow(/more than 1000 bytes/);
    await expect(get('file:///etc/passwd', ['etc'])).rejects.toThrow(/only http and https/);
    await expect(get(`http://u:p@127.0.0.1:${port}/`, [`127.0.0.1:${port}`])).rejects.toThrow(
      /user name or password/,
    );
  });
});
