import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { AppError } from '../../electron/contract/errors.js';
import { createHost, type Host, type Logger } from '../../electron/host.js';
import { tempDir } from '../../electron/test-support/index.js';
import { startWebServer, type WebServer } from '../../electron/transport/ws-server.js';
import { createClient } from './client.js';
import type { Transport } from './transport.js';
import { createWsTransport, type WebSocketLike } from './ws-transport.js';

const quiet: Logger = { info: () => {}, error: () => {} };

describe('client', () => {
  it('unwraps values and rebuilds AppErrors from the envelope', async () => {
    const transport: Transport = {
      invoke: async (channel) =>
        channel === 'app/info'
          ? { ok: false, error: { code: 'NOT_FOUND', message: 'gone', details: { name: 'x' } } }
          : { ok: true, value: { skills: [] } },
      subscribe: () => () => {},
    };
    const client = createClient(transport);
    await expect(client.invoke('skills/list', {})).resolves.toEqual({ skills: [] });
    const err = await client.invoke('app/info', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'NOT_FOUND', message: 'gone', details: { name: 'x' } });
  });

  it('turns a transport failure into DISCONNECTED', async () => {
    const client = createClient({
      invoke: async () => {
        throw new Error('socket hang up');
      },
      subscribe: () => () => {},
    });
    await expect(client.invoke('skills/list', {})).rejects.toMatchObject({ code: 'DISCONNECTED' });
  });
});

describe('ws transport against the real server', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  async function serve(): Promise<{ server: WebServer; host: Host }> {
    const host = createHost({ home: tempDir(), env: {}, mode: 'test', logger: quiet });
    const server = await startWebServer({ host, staticDir: null });
    cleanup.push(
      () => host.dispose(),
      () => server.close(),
    );
    return { server, host };
  }

  const nodeSocket = (origin: string) => (url: string) =>
    new WebSocket(url, { headers: { Origin: origin } }) as unknown as WebSocketLike;

  it('calls channels, queues calls made while connecting, and receives events', async () => {
    const { server } = await serve();
    const ws = createWsTransport(server.wsUrl, { connect: nodeSocket(server.origin) });
    cleanup.push(() => ws.close());
    const client = createClient(ws);
    const events: unknown[] = [];
    client.subscribe('skills/catalog-changed', (p) => events.push(p));
    const [list, info] = await Promise.all([client.invoke('skills/list', {}), client.invoke('app/info', {})]);
    expect(list.skills.length).toBeGreaterThan(3);
    expect(info.name).toBe('SkillDesk');
    expect(ws.status()).toBe('open');
    await client.invoke('skills/delete', { name: 'Translate', scope: 'account' });
    // The event frame is sent before the reply frame, on the same ordered socket.
    expect(events).toEqual([{ reason: 'deleted', names: ['Translate'] }]);
    await expect(client.invoke('skills/get', { name: 'Translate' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('fails in-flight calls with DISCONNECTED and reconnects', async () => {
    const { server } = await serve();
    const sockets: WebSocket[] = [];
    const scheduled: Array<() => void> = [];
    const ws = createWsTransport(server.wsUrl, {
      connect: (url) => {
        const s = new WebSocket(url, { headers: { Origin: server.origin } });
        sockets.push(s);
        return s as unknown as WebSocketLike;
      },
      schedule: (fn) => scheduled.push(fn),
    });
    cleanup.push(() => ws.close());
    const client = createClient(ws);
    await client.invoke('app/info', {});
    const statuses: string[] = [];
    ws.onStatus((s) => statuses.push(s));
    const closed = new Promise((r) => sockets[0]!.once('close', r));
    sockets[0]!.terminate();
    await closed;
    expect(statuses).toEqual(['reconnecting']);
    const queued = client.invoke('app/info', {});
    expect(scheduled).toHaveLength(1);
    scheduled[0]!();
    await expect(queued).resolves.toMatchObject({ name: 'SkillDesk' });
    expect(statuses).toEqual(['reconnecting', 'open']);
  });

  it('is refused with a wrong token', async () => {
    const { server } = await serve();
    const scheduled: Array<() => void> = [];
    const ws = createWsTransport(`ws://127.0.0.1:${server.port}/api?token=wrong`, {
      connect: nodeSocket(server.origin),
      schedule: (fn) => scheduled.push(fn),
    });
    cleanup.push(() => ws.close());
    await expect(createClient(ws).invoke('app/info', {})).rejects.toMatchObject({ code: 'DISCONNECTED' });
  });
});
