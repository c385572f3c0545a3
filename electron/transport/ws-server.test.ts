import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Result } from '../contract/channels.js';
import type { ServerFrame } from '../contract/ws-frames.js';
import { createHost, type Host, type Logger } from '../host.js';
import { tempDir } from '../test-support/index.js';
import { startWebServer, type WebServer } from './ws-server.js';

const quiet: Logger & { errors: unknown[] } = {
  errors: [],
  info: () => {},
  error: (m, e) => {
    quiet.errors.push([m, e]);
  },
};

const running: Array<{ server: WebServer; host: Host }> = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.server.close();
    await r.host.dispose();
  }
});

async function start(opts: { staticDir?: string | null } = {}) {
  const host = createHost({ home: tempDir(), env: {}, mode: 'test', logger: quiet });
  const server = await startWebServer({ host, staticDir: opts.staticDir ?? null });
  running.push({ server, host });
  return { server, host };
}

/** Open a socket; resolves with it when open, rejects with the HTTP status when refused. */
function open(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`status ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

/** A raw client speaking the frames by hand; each answer is shown as the result envelope. */
function client(ws: WebSocket) {
  let id = 0;
  const waiting = new Map<string, (r: { result: Result<unknown> }) => void>();
  const events: ServerFrame[] = [];
  ws.on('message', (data) => {
    const f = JSON.parse(data.toString()) as ServerFrame;
    if (f.type === 'res' && f.id !== null && waiting.has(f.id))
      waiting.get(f.id)!({
        result: 'error' in f ? { ok: false, error: f.error } : { ok: true, value: f.result },
      });
    else events.push(f);
  });
  return {
    events,
    invoke(channel: string, req: unknown) {
      const myId = `t${++id}`;
      return new Promise<{ result: Result<unknown> }>((resolve) => {
        waiting.set(myId, resolve);
        ws.send(JSON.stringify({ type: 'req', id: myId, method: channel, params: req }));
      });
    },
    send: (frame: unknown) => ws.send(JSON.stringify(frame)),
  };
}

function httpGet(port: number, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
        let body = '';
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    },
  );
}

describe('web-mode WebSocket guard', () => {
  it('accepts the right token, Origin and Host', async () => {
    const { server } = await start();
    const ws = await open(server.wsUrl, { Origin: server.origin });
    const r = await client(ws).invoke('app/info', {});
    expect(r.result.ok).toBe(true);
    ws.close();
  });

  it('refuses a missing or wrong token', async () => {
    const { server } = await start();
    const base = `ws://127.0.0.1:${server.port}/api`;
    await expect(open(base, { Origin: server.origin })).rejects.toThrow('status 401');
    await expect(open(`${base}?token=nope`, { Origin: server.origin })).rejects.toThrow('status 401');
    await expect(open(`${base}?token=${server.token}x`, { Origin: server.origin })).rejects.toThrow(
      'status 401',
    );
  });

  it('refuses other origins and a missing Origin', async () => {
    const { server } = await start();
    await expect(open(server.wsUrl, { Origin: 'http://evil.example' })).rejects.toThrow('status 403');
    await expect(open(server.wsUrl, { Origin: `http://127.0.0.1:${server.port + 1}` })).rejects.toThrow(
      'status 403',
    );
    await expect(open(server.wsUrl, { Origin: 'null' })).rejects.toThrow('status 403');
    await expect(open(server.wsUrl)).rejects.toThrow('status 403');
  });

  it('refuses a DNS-rebinding Host header', async () => {
    const { server } = await start();
    await expect(
      open(server.wsUrl, { Origin: 'http://attacker.example:1234', Host: `attacker.example:${server.port}` }),
    ).rejects.toThrow('status 403');
    await expect(
      open(server.wsUrl, { Origin: server.origin, Host: `attacker.example:${server.port}` }),
    ).rejects.toThrow('status 403');
    const page = await httpGet(server.port, '/', { Host: `attacker.example:${server.port}` });
    expect(page.status).toBe(403);
  });

  it('accepts localhost as well as 127.0.0.1', async () => {
    const { server } = await start();
    const ws = await open(server.wsUrl, {
      Origin: `http://localhost:${server.port}`,
      Host: `localhost:${server.port}`,
    });
    ws.close();
  });
});

describe('web-mode API', () => {
  async function connected() {
    const { server, host } = await start();
    const ws = await open(server.wsUrl, { Origin: server.origin });
    return { c: client(ws), ws, host };
  }

  it('wraps replies in the envelope', async () => {
    const { c, ws } = await connected();
    const r = await c.invoke('skills/list', {});
    expect(r.result.ok).toBe(true);
    if (r.result.ok) {
      const names = (r.result.value as { skills: Array<{ name: string }> }).skills.map((s) => s.name);
      expect(names).toContain('Consistency Checker');
    }
    ws.close();
  });

  it('reports request validation errors as INVALID_INPUT with the path', async () => {
    const { c, ws } = await connected();
    const r = await c.invoke('skills/match', { message: 42 });
    expect(r.result).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT', details: { issues: [{ path: 'message' }] } },
    });
    const extra = await c.invoke('skills/list', { bogus: true });
    expect(extra.result.ok).toBe(false);
    ws.close();
  });

  it('reports an unknown channel, including prototype names', async () => {
    const { c, ws } = await connected();
    for (const ch of ['skills/nope', '__proto__', 'constructor', 'toString']) {
      const r = await c.invoke(ch, {});
      expect(r.result).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    }
    ws.close();
  });

  it('names the JSON path of an invalid package', async () => {
    const { c, ws } = await connected();
    const pkg = {
      name: 'Broken',
      description: 'x',
      artifacts: [{ kind: 'spell', name: 'A', content: 'x' }],
    };
    const r = await c.invoke('skills/import-package', {
      package: JSON.stringify(pkg),
      file_name: 'broken.json',
    });
    expect(r.result.ok).toBe(false);
    if (!r.result.ok) {
      expect(r.result.error.code).toBe('INVALID_INPUT');
      expect(r.result.error.message).toContain('broken.json: artifacts[0].kind');
      expect(r.result.error.details?.issues).toEqual([
        expect.objectContaining({ path: 'artifacts[0].kind' }),
      ]);
    }
    ws.close();
  });

  it('pushes catalog events to subscribers and stops after unsubscribe', async () => {
    const { c, ws } = await connected();
    c.send({ type: 'sub', event: 'skills/catalog-changed' });
    const pkg = {
      name: 'Evented',
      description: 'Fires an event.',
      artifacts: [{ kind: 'approach', name: 'A', content: 'Do.' }],
    };
    // A call made after the subscribe frame is handled after it (frames are processed in order).
    await c.invoke('skills/import-package', { package: pkg });
    expect(c.events).toContainEqual({
      type: 'event',
      event: 'skills/catalog-changed',
      data: { reason: 'imported', names: ['Evented'] },
    });
    c.send({ type: 'unsub', event: 'skills/catalog-changed' });
    const before = c.events.length;
    await c.invoke('skills/delete', { name: 'Evented', scope: 'account' });
    expect(c.events.length).toBe(before);
    ws.close();
  });

  it('answers malformed frames with a protocol error and keeps the socket', async () => {
    const { c, ws } = await connected();
    ws.send('not json');
    c.send({ type: 'sub', event: 'no/such-event' });
    const r = await c.invoke('app/info', {});
    expect(r.result.ok).toBe(true);
    const refused = c.events.filter((e) => e.type === 'res' && e.id === null);
    expect(refused).toHaveLength(2);
    expect(refused[1]).toMatchObject({
      error: { code: 'INVALID_INPUT', message: 'unknown event "no/such-event"' },
    });
    ws.close();
  });

  it('turns unknown errors into INTERNAL without the stack, logging it', async () => {
    const { c, ws, host } = await connected();
    host.handlers['app/info'] = () => {
      throw new Error('secret path /home/me/.ssh');
    };
    quiet.errors.length = 0;
    const r = await c.invoke('app/info', {});
    expect(r.result).toEqual({
      ok: false,
      error: { code: 'INTERNAL', message: expect.not.stringContaining('secret') },
    });
    expect(JSON.stringify(r)).not.toContain('.ssh');
    expect(quiet.errors).toHaveLength(1);
    ws.close();
  });
});

describe('web-mode static files', () => {
  function site() {
    const dir = tempDir();
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>t</title>');
    writeFileSync(join(dir, 'assets', 'app.js'), 'console.log(1)');
    return dir;
  }

  it('serves the app with a strict CSP', async () => {
    const { server } = await start({ staticDir: site() });
    const page = await httpGet(server.port, '/', { Host: `127.0.0.1:${server.port}` });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>t</title>');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const js = await httpGet(server.port, '/assets/app.js');
    expect(js.headers['content-type']).toContain('text/javascript');
  });

  it('never serves files outside the build folder', async () => {
    const { server } = await start({ staticDir: site() });
    for (const p of ['/../package.json', '/%2e%2e/%2e%2e/etc/passwd', '/assets/../../x.js']) {
      const r = await httpGet(server.port, p);
      expect(r.body).not.toContain('root:');
      expect([200, 404]).toContain(r.status);
      if (r.status === 200) expect(r.body).toContain('<title>t</title>');
    }
    expect((await httpGet(server.port, '/assets/missing.js')).status).toBe(404);
  });

  it('says how to build when the UI is missing', async () => {
    const { server } = await start({ staticDir: tempDir() });
    const r = await httpGet(server.port, '/');
    expect(r.status).toBe(503);
    expect(r.body).toContain('npm run build:renderer');
  });
});
