import type { SkillDeskBridge } from '../../electron/contract/ipc.js';
import { type Client, createClient } from './client.js';
import { createIpcTransport } from './ipc-transport.js';
import type { ConnectionStatus } from './transport.js';
import { createWsTransport } from './ws-transport.js';

export type { CallResult, Client } from './client.js';
export { createClient, toErrorData } from './client.js';
export { createInProcessTransport } from './in-process-transport.js';
export type { ConnectionStatus, Transport } from './transport.js';

declare global {
  interface Window {
    /** Set by the Electron preload; absent in web mode. */
    skilldesk?: SkillDeskBridge;
  }
}

const TOKEN_KEY = 'skilldesk.token';

/** A connected client, or why there is none. */
export type Connection =
  | {
      ok: true;
      client: Client;
      mode: 'electron' | 'web';
      status: () => ConnectionStatus;
      onStatus: (cb: (s: ConnectionStatus) => void) => () => void;
    }
  | { ok: false; reason: 'no-token' };

/**
 * Pick the transport for this page: the preload's API in Electron, else the web-mode WebSocket
 * with the token from the URL fragment (kept in sessionStorage so a reload still works, and
 * removed from the address bar so it is not copied around by accident).
 */
export function connect(win: Window = window): Connection {
  if (win.skilldesk) {
    return {
      ok: true,
      client: createClient(createIpcTransport(win.skilldesk)),
      mode: 'electron',
      status: () => 'open',
      onStatus: () => () => {},
    };
  }
  const fromHash = /(?:^#|&)token=([^&]+)/.exec(win.location.hash)?.[1];
  if (fromHash) {
    win.sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(fromHash));
    win.history.replaceState(null, '', win.location.pathname + win.location.search);
  }
  const token = win.sessionStorage.getItem(TOKEN_KEY);
  if (!token) return { ok: false, reason: 'no-token' };
  const scheme = win.location.protocol === 'https:' ? 'wss' : 'ws';
  const ws = createWsTransport(`${scheme}://${win.location.host}/api?token=${encodeURIComponent(token)}`);
  return { ok: true, client: createClient(ws), mode: 'web', status: ws.status, onStatus: ws.onStatus };
}
