/**
 * Electron face of the API. Takes an `ipcMain`-like object so this file (and its tests) import
 * nothing from Electron. Every message is checked to come from a trusted frame (the app's own
 * renderer URL) before anything else happens.
 */
import type { EventName, Result, Unsubscribe } from '../contract/channels.js';
import { IPC_CHANNELS } from '../contract/ipc.js';
import type { Host } from '../host.js';
import { invokeChannel, isEventName } from './dispatch.js';

/** The part of Electron's `WebContents` used here. */
export interface IpcSenderLike {
  id: number;
  send(channel: string, ...args: unknown[]): void;
  isDestroyed(): boolean;
  once(event: 'destroyed', listener: () => void): unknown;
}

/** The part of Electron's IPC event used here. */
export interface IpcEventLike {
  sender: IpcSenderLike;
  senderFrame: { url: string } | null;
}

/** The part of Electron's `ipcMain` used here. */
export interface IpcMainLike {
  // biome-ignore lint/suspicious/noExplicitAny: mirrors Electron's own listener signature
  handle(channel: string, listener: (event: IpcEventLike, ...args: any[]) => unknown): void;
  removeHandler(channel: string): void;
  // biome-ignore lint/suspicious/noExplicitAny: mirrors Electron's own listener signature
  on(channel: string, listener: (event: IpcEventLike, ...args: any[]) => void): unknown;
  // biome-ignore lint/suspicious/noExplicitAny: mirrors Electron's own listener signature
  removeListener(channel: string, listener: (event: IpcEventLike, ...args: any[]) => void): unknown;
}

/** Options for {@link serveIpc}. */
export interface IpcServerOptions {
  ipcMain: IpcMainLike;
  host: Pick<Host, 'handlers' | 'events' | 'logger'>;
  /** True for the URL of a frame allowed to call the API (the app's own renderer). */
  isTrustedUrl: (url: string) => boolean;
}

/** Serve the API over IPC; returns the function that stops serving. */
export function serveIpc(opts: IpcServerOptions): () => void {
  const { ipcMain, host, isTrustedUrl } = opts;
  const trusted = (e: IpcEventLike) => {
    const url = e.senderFrame?.url;
    const ok = typeof url === 'string' && isTrustedUrl(url);
    if (!ok)
      host.logger.error(`refused an IPC message from an untrusted frame: ${String(url).slice(0, 200)}`);
    return ok;
  };
  // Subscriptions per renderer, dropped when it goes away.
  const subs = new Map<number, Map<EventName, Unsubscribe>>();
  const dropSender = (id: number) => {
    for (const off of subs.get(id)?.values() ?? []) off();
    subs.delete(id);
  };

  const onInvoke = async (e: IpcEventLike, channel: unknown, req: unknown): Promise<Result<unknown>> => {
    if (!trusted(e)) {
      return {
        ok: false,
        error: { code: 'FORBIDDEN', message: 'This window may not use the SkillDesk API.' },
      };
    }
    return invokeChannel(host.handlers, channel, req, { transport: 'ipc' }, host.logger);
  };

  const onSubscribe = (e: IpcEventLike, event: unknown) => {
    if (!trusted(e) || !isEventName(event)) return;
    const sender = e.sender;
    let mine = subs.get(sender.id);
    if (!mine) {
      mine = new Map();
      subs.set(sender.id, mine);
      sender.once('destroyed', () => dropSender(sender.id));
    }
    if (mine.has(event)) return;
    mine.set(
      event,
      host.events.subscribe(event, (payload) => {
        if (!sender.isDestroyed()) sender.send(IPC_CHANNELS.event, event, payload);
      }),
    );
  };

  const onUnsubscribe = (e: IpcEventLike, event: unknown) => {
    if (!trusted(e) || !isEventName(event)) return;
    const mine = subs.get(e.sender.id);
    mine?.get(event)?.();
    mine?.delete(event);
  };

  ipcMain.handle(IPC_CHANNELS.invoke, onInvoke);
  ipcMain.on(IPC_CHANNELS.subscribe, onSubscribe);
  ipcMain.on(IPC_CHANNELS.unsubscribe, onUnsubscribe);
  return () => {
    ipcMain.removeHandler(IPC_CHANNELS.invoke);
    ipcMain.removeListener(IPC_CHANNELS.subscribe, onSubscribe);
    ipcMain.removeListener(IPC_CHANNELS.unsubscribe, onUnsubscribe);
    for (const id of [...subs.keys()]) dropSender(id);
  };
}
