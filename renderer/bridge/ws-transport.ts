import type { EventName, Result } from '../../electron/contract/channels.js';
import { AppError } from '../../electron/contract/errors.js';
import type { ClientFrame, ServerFrame } from '../../electron/contract/ws-frames.js';
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
  let nextId = 1;
  const pending = new Map<number, (r: Result<unknown>) => void>();
  const queue: string[] = [];
  const listeners = new Map<string, Set<(payload: never) => void>>();
  const statusListeners = new Set<(s: ConnectionStatus) => void>();

  const setStatus = (s: ConnectionStatus) => {
    if (s === status) return;
    status = s;
    for (const cb of statusListeners) cb(s);
  };

  const sendFrame = (frame: ClientFrame) => {
    const text = JSON.stringify(frame);
    if (socket && socket.readyState === OPEN) socket.send(text);
    else queue.push(text);
  };

  const open = () => {
    const ws = connect(url);
    socket = ws;
    ws.onopen = () => {
      attempts = 0;
      setStatus('open');
      for (const event of listeners.keys()) ws.send(JSON.stringify({ type: 'subscribe', event }));
      for (const text of queue.splice(0)) ws.send(text);
    };
    ws.onmessage = (ev) => {
      let frame: ServerFrame;
      try {
        frame = JSON.parse(String(ev.data)) as ServerFrame;
      } catch {
        return;
      }
      if (frame.type === 'result') {
        const done = pending.get(frame.id);
        pending.delete(frame.id);
        done?.(frame.result);
      } else if (frame.type === 'event') {
        for (const cb of [...(listeners.get(frame.event) ?? [])]) (cb as (p: unknown) => void)(frame.payload);
      }
    };
    ws.onerror = () => {};
    ws.onclose = () => {
      if (socket !== ws) return;
      socket = null;
      const lost: Result<unknown> = {
        ok: false,
        error: new AppError(
          'DISCONNECTED',
          'The connection to SkillDesk dropped before it answered. Try again in a moment.',
        ).toData(),
      };
      for (const done of pending.values()) done(lost);
      pending.clear();
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
    invoke(channel, req) {
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, resolve as (r: Result<unknown>) => void);
        sendFrame({ type: 'invoke', id, channel, req });
      });
    },
    subscribe(event: EventName, cb) {
      let set = listeners.get(event);
      if (!set) {
        set = new Set();
        listeners.set(event, set);
        sendFrame({ type: 'subscribe', event });
      }
      const fn = cb as (payload: never) => void;
      set.add(fn);
      return () => {
        set.delete(fn);
        if (set.size === 0) {
          listeners.delete(event);
          sendFrame({ type: 'unsubscribe', event });
        }
      };
    },
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
