import { describe, expect, it } from 'vitest';
import { createClient } from '../../renderer/bridge/client.js';
import { createIpcTransport } from '../../renderer/bridge/ipc-transport.js';
import type { Handlers } from '../contract/channels.js';
import { IPC_CHANNELS, type SkillDeskBridge } from '../contract/ipc.js';
import { quietLogger, testHost } from '../test-support/index.js';
import { type IpcEventLike, type IpcMainLike, serveIpc } from './ipc-server.js';

const APP_URL = 'file:///app/out/renderer/index.html';

/**
 * An in-memory ipcMain and renderer windows. Messages are structured-cloned, as Electron does;
 * each window runs the real renderer transport over a bridge shaped like the preload's.
 */
function fakeIpc() {
  const listeners = new Map<string, Set<(e: IpcEventLike, ...a: unknown[]) => void>>();
  const ipcMain: IpcMainLike = {
    on: (ch, fn) => {
      if (!listeners.has(ch)) listeners.set(ch, new Set());
      listeners.get(ch)!.add(fn);
    },
    removeListener: (ch, fn) => listeners.get(ch)?.delete(fn),
  };
  function renderer(url: string, id = 1) {
    /** Every message the main process sent this window. */
    const received: unknown[] = [];
    const receivers = new Set<(m: unknown) => void>();
    const destroyed: Array<() => void> = [];
    let dead = false;
    const event: IpcEventLike = {
      senderFrame: { url },
      sender: {
        id,
        send: (ch, message) => {
          if (ch !== IPC_CHANNELS.message) return;
          received.push(message);
          const copy = structuredClone(message);
          queueMicrotask(() => {
            for (const r of receivers) r(copy);
          });
        },
        isDestroyed: () => dead,
        once: (_e, cb) => destroyed.push(cb),
      },
    };
    /** What the preload exposes. */
    const bridge: SkillDeskBridge = {
      send: (message) => {
        const copy = structuredClone(message);
        queueMicrotask(() => {
          for (const fn of listeners.get(IPC_CHANNELS.message) ?? []) fn(event, copy);
        });
      },
      onMessage: (receive) => {
        receivers.add(receive);
        return () => receivers.delete(receive);
      },
    };
    return {
      received,
      bridge,
      client: createClient(createIpcTransport(bridge)),
      destroy: () => {
        dead = true;
        for (const cb of destroyed) cb();
      },
    };
  }
  return { ipcMain, listeners, renderer };
}

function setup(handlers?: (base: Handlers) => Handlers) {
  const ipc = fakeIpc();
  const host = testHost();
  const served = { ...host, handlers: handlers ? handlers(host.handlers) : host.handlers };
  const stop = serveIpc({ ipcMain: ipc.ipcMain, host: served, isTrustedUrl: (u) => u === APP_URL });
  return { ...ipc, host, stop };
}

/** Resolve once `check` holds (messages cross in microtasks). */
async function until(check: () => boolean) {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 1));
  expect(check()).toBe(true);
}

describe('IPC server (an RPC peer per window)', () => {
  it('serves trusted frames through the renderer’s transport', async () => {
    const { renderer } = setup();
    const r = await renderer(APP_URL).client.call('skills/match', { message: 'summarize this thread' });
    expect(r).toMatchObject({ ok: true, value: { matches: expect.any(Array) } });
  });

  it('refuses untrusted frames without running or answering anything', async () => {
    const { renderer, host } = setup();
    const evil = renderer('https://evil.example/', 2);
    evil.bridge.send({
      type: 'req',
      id: 'x1',
      method: 'skills/delete',
      params: { name: 'Summarize', scope: 'account' },
    });
    evil.bridge.send({ type: 'sub', event: 'skills/catalog-changed' });
    await new Promise((r) => setTimeout(r, 20));
    expect(evil.received).toEqual([]);
    host.events.emit('skills/catalog-changed', { reason: 'deleted', names: ['A'] });
    expect(evil.received).toEqual([]);
    const still = await renderer(APP_URL).client.call('skills/get', { name: 'Summarize' });
    expect(still).toMatchObject({ ok: true });
  });

  it('validates requests and answers malformed messages with a protocol error', async () => {
    const { renderer } = setup();
    const win = renderer(APP_URL);
    const r = await win.client.call('skills/delete', { name: 'X' } as never);
    expect(r).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT', details: { issues: [{ path: 'scope' }] } },
    });
    win.bridge.send({ type: 'req', id: 42 });
    await until(() => win.received.some((m) => (m as { id?: unknown }).id === null));
  });

  it('delivers events to subscribed windows until they go away', async () => {
    const { renderer, host } = setup();
    const win = renderer(APP_URL, 7);
    const seen: unknown[] = [];
    win.client.subscribe('skills/catalog-changed', (p) => seen.push(p));
    await until(() => true);
    await new Promise((r) => setTimeout(r, 5));
    host.events.emit('skills/catalog-changed', { reason: 'deleted', names: ['A'] });
    await until(() => seen.length === 1);
    expect(seen).toEqual([{ reason: 'deleted', names: ['A'] }]);
    win.destroy();
    host.events.emit('skills/catalog-changed', { reason: 'deleted', names: ['B'] });
    await new Promise((r) => setTimeout(r, 5));
    expect(seen).toHaveLength(1);
  });

  it('aborts the calls of a window that closes', async () => {
    let aborted = false;
    const { renderer } = setup((base) => ({
      ...base,
      'skills/list': (_req, ctx) =>
        new Promise((resolve) => {
          ctx.signal?.addEventListener('abort', () => {
            aborted = true;
            resolve({ skills: [] });
          });
        }),
    }));
    const win = renderer(APP_URL, 9);
    void win.client.call('skills/list', {});
    await new Promise((r) => setTimeout(r, 5));
    expect(aborted).toBe(false);
    win.destroy();
    await until(() => aborted);
  });

  it('removes its listener when stopped', () => {
    const { listeners, stop } = setup();
    stop();
    expect([...listeners.values()].every((s) => s.size === 0)).toBe(true);
  });

  it('logs refused frames', async () => {
    const lines: string[] = [];
    const ipc = fakeIpc();
    const host = testHost({ logger: { ...quietLogger, error: (m) => lines.push(m) } });
    serveIpc({ ipcMain: ipc.ipcMain, host, isTrustedUrl: () => false });
    ipc.renderer('https://evil.example/').bridge.send({ type: 'sub', event: 'x' });
    await until(() => lines.length === 1);
    expect(lines[0]).toContain('untrusted frame');
  });
});
