/**
 * The server end of a peer-speaking face (Electron IPC, the web-mode WebSocket): requests run
 * through {@link invokeChannel} against the handler table, subscriptions reach the event hub.
 */
import type { CallContext, EventSource, Handlers } from '../contract/channels.js';
import { AppError } from '../contract/errors.js';
import type { Logger } from '../host.js';
import { createPeer, type Peer, type RpcPort } from '../rpc/index.js';
import { invokeChannel, isEventName } from './dispatch.js';

/** What {@link servePeer} serves. */
export interface PeerServerDeps {
  handlers: Handlers;
  events: EventSource;
  logger: Logger;
  transport: CallContext['transport'];
}

/** Serve the handler table and the events on `port`; the caller closes the peer when the port goes. */
export function servePeer(port: RpcPort, deps: PeerServerDeps): Peer {
  const { handlers, events, logger, transport } = deps;
  return createPeer(port, {
    idPrefix: 's',
    async handle(req, call) {
      const r = await invokeChannel(handlers, call.method, req, { transport, signal: call.signal }, logger);
      if (!r.ok) throw AppError.fromData(r.error);
      return r.value;
    },
    onSubscribe: (event, emit) => (isEventName(event) ? events.subscribe(event, emit) : null),
  });
}
