import type { EventName } from '../../electron/contract/channels.js';
import { AppError } from '../../electron/contract/errors.js';
import type { Peer } from '../../electron/rpc/index.js';
import type { Transport } from './transport.js';

/** The contract's API over an RPC peer: calls resolve with the envelope, never reject. */
export function peerTransport(peer: Peer): Transport {
  return {
    async invoke(channel, req) {
      try {
        return { ok: true, value: await peer.call(channel, req) } as never;
      } catch (e) {
        const error = e instanceof AppError ? e.toData() : { code: 'INTERNAL' as const, message: String(e) };
        return { ok: false, error };
      }
    },
    subscribe(event: EventName, cb) {
      return peer.subscribe(event, cb as (payload: unknown) => void);
    },
  };
}
