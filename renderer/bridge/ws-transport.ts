import { AppError } from '../../electron/contract/errors.js';
import type { ClientFrame } from '../../electron/contract/ws-frames.js';
import { createPeer, type RpcPort } from '../../electron/rpc/index.js';
import { peerTransport } from './peer-transport.js';
import type { ConnectionStatus, Transport } from './transport.js';

/** The part of the browser WebSocket used here (the `ws` package's client fits too). */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

/** Options for {@link createWsTransport}. */
export interface WsTransportOptions {
  /** Default: the browser's `WebSocket`. */
  connect?: (url: string) => WebSocketLike;
  /** Reconnect delays in ms, the last one repeating (default 250 → 4000). */
  backoff?: number[];
  /** Injected for tests; default `setTimeout`. */
  schedule?: (fn: () => void, ms: number) => unknown;
}

/** The web-mode transport, with its connection state. */
export interface WsTransport extends Transport {
  status(): ConnectionStatus;
  onStatus(cb: (s: ConnectionStatus) => void): () => void;
  close(): void;
}

const OPEN = 1;

/**
 * Connect to the web-mode server. Calls made while (re)connecting wait for the socket; calls in
 * flight when it drops fail with DISCONNECTED (they may or may not have run). Subscriptions are
 * renewed after a reconnect.
 */
export function createWsTransport(url: string, opts: WsTransportOptions = {}): WsTransport {
  const connect = opts.connect ?? ((u: string) => new WebSocket(u) as unknown as WebSocketLike);
  const backoff = opts.backoff ?? [250, 500, 1000, 2000, 4000];
  const schedule = opts.schedule ?? ((fn, ms) => setTimeout(fn, ms));
  let socket: WebSocketLike | null = null;
  let status: ConnectionStatus = 'connecting';
  let attempts = 0;
  let closed = false;
  let receive: (message: unknown) => void = () => {};
  const queue: string[] = [];
  const statusListeners = new Set<(s: ConnectionStatus) => void>();

  const setStatus = (s: ConnectionStatus) => {
    if (s === status) return;
    status = s;
    for (const cb of statusListeners) cb(s);
  };

  // Calls wait for the socket; subscriptions are (re)sent by the peer once it opens.
  const port: RpcPort = {
    send(message) {
      const frame = message as ClientFrame;
      if (socket && socket.readyState === OPEN) socket.send(JSON.stringify(frame));
      else if (frame.type === 'req') queue.push(JSON.stringify(frame));
    },
    onMessage(r) {
      receive = r;
    },
  };
  const peer = createPeer(port, { idPrefix: 'c' });

  const open = () => {
    const ws = connect(url);
    socket = ws;
    ws.onopen = () => {
      attempts = 0;
      setStatus('open');
      peer.resubscribe();
      for (const text of queue.splice(0)) ws.send(text);
    };
    ws.onmessage = (ev) => {
      let frame: unknown;
      try {
        frame = JSON.parse(String(ev.data));
      } catch {
        return;
      }
      receive(frame);
    };
    ws.onerror = () => {};
    ws.onclose = () => {
      if (socket !== ws) return;
      socket = null;
      queue.length = 0;
      peer.failPending(
        new AppError(
          'DISCONNECTED',
          'The connection to SkillDesk dropped before it answered. Try again in a moment.',
        ),
      );
      if (closed) return;
      setStatus('reconnecting');
      const delay = backoff[Math.min(attempts, backoff.length - 1)] ?? 1000;
      attempts++;
      schedule(() => {
        if (!closed) open();
      }, delay);
    };
  };
  open();

  return {
    ...peerTransport(peer),
    status: () => status,
    onStatus(cb) {
      statusListeners.add(cb);
      return () => statusListeners.delete(cb);
    },
    close() {
      closed = true;
      socket?.close();
    },
  };
}
