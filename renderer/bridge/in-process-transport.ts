import type {
  Channel,
  EventName,
  EventPayload,
  EventSource,
  Result,
  Unsubscribe,
} from '../../electron/contract/channels.js';
import type { Transport } from './transport.js';

/** Runs one call against a handler table (e.g. `invokeChannel` bound to a host). */
export type Dispatch = (channel: Channel, req: unknown) => Promise<Result<unknown>>;

/**
 * A transport that calls the handler table in the same process (tests, storybook-like harnesses).
 * Requests and replies are JSON round-tripped so anything that would not survive IPC or the
 * WebSocket fails here too.
 */
export function createInProcessTransport(dispatch: Dispatch, events: EventSource): Transport {
  const roundTrip = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));
  return {
    invoke: async (channel, req) => roundTrip(await dispatch(channel, roundTrip(req))) as never,
    subscribe<E extends EventName>(event: E, cb: (payload: EventPayload<E>) => void): Unsubscribe {
      return events.subscribe(event, (payload) => cb(roundTrip(payload)));
    },
  };
}
