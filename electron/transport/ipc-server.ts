/**
 * Electron face of the API: one RPC peer per renderer (see `electron/rpc`), over the single IPC
 * channel the preload exposes. Takes an `ipcMain`-like object so this file (and its tests)
 * import nothing from Electron. Every message is checked to come from a trusted frame (the
 * app's own renderer URL) before anything else happens, and a renderer that goes away closes
 * its peer: its calls are aborted and its subscriptions end.
 */

import { AppError } from '../contract/errors.js';
import { IPC_CHANNELS } from '../contract/ipc.js';
import type { Host } from '../host.js';
import type { Peer } from '../rpc/index.js';
import { servePeer } from './serve-peer.js';

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
  const peers = new Map<number, { peer: Peer; receive: (message: unknown) => void }>();

  const peerFor = (sender: IpcSenderLike) => {
    const known = peers.get(sender.id);
    if (known) return known;
    let receive: (message: unknown) => void = () => {};
    const peer = servePeer(
      {
        send: (message) => {
          if (!sender.isDestroyed()) sender.send(IPC_CHANNELS.message, message);
        },
        onMessage: (r) => {
          receive = r;
        },
      },
      { ...host, transport: 'ipc' },
    );
    const entry = { peer, receive: (m: unknown) => receive(m) };
    peers.set(sender.id, entry);
    sender.once('destroyed', () => drop(sender.id, 'the window closed'));
    return entry;
  };

  const drop = (id: number, why: string) => {
    peers.get(id)?.peer.close(new AppError('DISCONNECTED', why));
    peers.delete(id);
  };

  const onMessage = (e: IpcEventLike, message: unknown) => {
    const url = e.senderFrame?.url;
    if (typeof url !== 'string' || !isTrustedUrl(url)) {
      host.logger.error(`refused an IPC message from an untrusted frame: ${String(url).slice(0, 200)}`);
      return;
    }
    if (e.sender.isDestroyed()) return;
    peerFor(e.sender).receive(message);
  };

  ipcMain.on(IPC_CHANNELS.message, onMessage);
  return () => {
    ipcMain.removeListener(IPC_CHANNELS.message, onMessage);
    for (const id of [...peers.keys()]) drop(id, 'SkillDesk is shutting down');
  };
}
