/**
 * The handler table as a typed client in the same process: what the CLI (and core tests) call.
 * Every call goes through the same edge as IPC and WebSocket (`invokeChannel`: schema check,
 * result envelope), and requests and replies are JSON round-tripped so anything that would not
 * survive the wire fails here too.
 */
import type {
  Channel,
  EventName,
  EventPayload,
  Req,
  Res,
  Result,
  Unsubscribe,
} from '../contract/channels.js';
import { AppError } from '../contract/errors.js';
import type { Host } from '../host.js';
import { invokeChannel } from './dispatch.js';

/** Per-call options. */
export interface CallOptions {
  /** Aborting it tells the handler its caller went away (runs and turns stop). */
  signal?: AbortSignal;
}

/** A typed client of the handler table. */
export interface CoreClient {
  /** Call a channel; resolves with the envelope, never rejects for an app error. */
  call<C extends Channel>(channel: C, req: Req<C>, opts?: CallOptions): Promise<Result<Res<C>>>;
  /** Call a channel; rejects with the AppError the handler replied with. */
  invoke<C extends Channel>(channel: C, req: Req<C>, opts?: CallOptions): Promise<Res<C>>;
  /** Listen to an event; returns the function that stops listening. */
  subscribe<E extends EventName>(event: E, cb: (payload: EventPayload<E>) => void): Unsubscribe;
}

const roundTrip = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

/** A client calling `host`'s handler table directly. */
export function createInProcessClient(host: Pick<Host, 'handlers' | 'events' | 'logger'>): CoreClient {
  const call = async <C extends Channel>(channel: C, req: Req<C>, opts: CallOptions = {}) =>
    roundTrip(
      await invokeChannel(
        host.handlers,
        channel,
        roundTrip(req),
        { transport: 'in-process', signal: opts.signal },
        host.logger,
      ),
    ) as Result<Res<C>>;
  return {
    call,
    async invoke(channel, req, opts) {
      const r = await call(channel, req, opts);
      if (r.ok) return r.value;
      throw AppError.fromData(r.error);
    },
    subscribe: (event, cb) => host.events.subscribe(event, (payload) => cb(roundTrip(payload))),
  };
}
