import { describe, expect, it } from 'vitest';
import { IPC_CHANNELS } from '../contract/ipc.js';
import { testHost } from '../test-support/index.js';
import { type IpcEventLike, type IpcMainLike, serveIpc } from './ipc-server.js';

const APP_URL = 'file:///app/out/renderer/index.html';

/** An in-memory ipcMain and renderer pair. */
function fakeIpc() {
  const handlers = new Map<string, (e: IpcEventLike, ...a: unknown[]) => unknown>();
  const listeners = new Map<string, Set<(e: IpcEventLike, ...a: unknown[]) => void>>();
  const ipcMain: IpcMainLike = {
    handle: (ch, fn) => handlers.set(ch, fn),
    removeHandler: (ch) => handlers.delete(ch),
    on: (ch, fn) => {
      if (!listeners.has(ch)) listeners.set(ch, new Set());
      listeners.get(ch)!.add(fn);
    },
    removeListener: (ch, fn) => listeners.get(ch)?.delete(fn),
  };
  function renderer(url: string, id = 1) {
    const received: unknown[][] = [];
    const destroyed: Array<() => void> = [];
    let dead = false;
    const event: IpcEventLike = {
      senderFrame: { url },
      sender: {
        id,
        send: (ch, ...args) => received.push([ch, ...args]),
        isDestroyed: () => dead,
        once: (_e, cb) => destroyed.push(cb),
      },
    };
    return {
      received,
      invoke: async (channel: string, req: unknown) =>
        handlers.get(IPC_CHANNELS.invoke)!(event, channel, req),
      send: (ch: string, ...args: unknown[]) => {
        for (const fn of listeners.get(ch) ?? []) fn(event, ...args);
      },
      destroy: () => {
        dead = true;
        for (const cb of destroyed) cb();
      },
    };
  }
  return { ipcMain, handlers, listeners, renderer };
}

function setup() {
  const ipc = fakeIpc();
  const host = testHost();
  const stop = serveIpc({ ipcMain: ipc.ipcMain, host, isTrustedUrl: (u) => u === APP_URL });
  return { ...ipc, host, stop };
}

describe('IPC server', () => {
  it('serves trusted frames with the envelope', async () => {
    const { renderer } = setup();
    const r = await renderer(APP_URL).invoke('skills/match', { message: 'summarize this thread' });
    expect(r).toMatchObject({ ok: true, value: { matches: expect.any(Array) } });
  });

  it('refuses untrusted frames without running anything', async () => {
    const { renderer } = setup();
    const evil = renderer('https://evil.example/');
    const r = await evil.invoke('skills/delete', { name: 'Summarize', scope: 'account' });
    expect(r).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    const still = await renderer(APP_URL).invoke('skills/get', { name: 'Summarize' });
    expect(still).toMatchObject({ ok: true });
  });

  it('validates requests', async () => {
    const { renderer } = setup();
    const r = await renderer(APP_URL).invoke('skills/delete', { name: 'X' });
    expect(r).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT', details: { issues: [{ path: 'scope' }] } },
    });
  });

  it('delivers events to subscribed renderers until they go away', async () => {
    const { renderer, host } = setup();
    const win = renderer(APP_URL, 7);
    const stranger = renderer('https://evil.example/', 8);
    win.send(IPC_CHANNELS.subscribe, 'skills/catalog-changed');
    stranger.send(IPC_CHANNELS.subscribe, 'skills/catalog-changed');
    win.send(IPC_CHANNELS.subscribe, 'not/an-event');
    host.events.emit('skills/catalog-changed', { reason: 'deleted', names: ['A'] });
    expect(win.received).toEqual([
      [IPC_CHANNELS.event, 'skills/catalog-changed', { reason: 'deleted', names: ['A'] }],
    ]);
    expect(stranger.received).toEqual([]);
    win.destroy();
    host.events.emit('skills/catalog-changed', { reason: 'deleted', names: ['B'] });
    expect(win.received).toHaveLength(1);
  });

  it('removes its handlers when stopped', () => {
    const { handlers, listeners, stop } = setup();
    stop();
    expect(handlers.size).toBe(0);
    expect([...listeners.values()].every((s) => s.size === 0)).toBe(true);
  });
});
