import type {
  Channel,
  EventName,
  EventPayload,
  Req,
  Res,
  Unsubscribe,
} from '../../electron/contract/channels.js';
import { AppError, type AppErrorData } from '../../electron/contract/errors.js';
import type { Transport } from './transport.js';

/** The outcome of {@link Client.call}: the reply, or the error as data (never a rejection). */
export type CallResult<T> = { ok: true; value: T } | { ok: false; error: AppErrorData };

/** The renderer's typed handle on the API: replies unwrapped, errors rebuilt as AppError. */
export interface Client {
  /** Call a channel; rejects with an AppError carrying the main process's code and details. */
  invoke<C extends Channel>(channel: C, req: Req<C>): Promise<Res<C>>;
  /**
   * Call a channel and get its outcome as a value: a store can branch on `ok` and hand the error
   * to the user, with nothing left to swallow in a `.catch`.
   */
  call<C extends Channel>(channel: C, req: Req<C>): Promise<CallResult<Res<C>>>;
  /** Listen to an event; returns the function that stops listening. */
  subscribe<E extends EventName>(event: E, cb: (payload: EventPayload<E>) => void): Unsubscribe;
}

/** Wrap a transport in the typed client. */
export function createClient(transport: Transport): Client {
  const client: Client = {
    async call(channel, req) {
      try {
        return { ok: true, value: await client.invoke(channel, req) };
      } catch (e) {
        return { ok: false, error: toErrorData(e) };
      }
    },
    async invoke(channel, req) {
      let result: Awaited<ReturnType<Transport['invoke']>>;
      try {
        result = await transport.invoke(channel, req);
      } catch (e) {
        if (e instanceof AppError) throw e;
        throw new AppError(
          'DISCONNECTED',
          'SkillDesk could not reach its main process. Check that it is still running, then try again.',
          { cause: e instanceof Error ? e.message : String(e) },
        );
      }
      if (result.ok) return result.value as Res<typeof channel>;
      throw AppError.fromData(result.error);
    },
    subscribe: (event, cb) => transport.subscribe(event, cb),
  };
  return client;
}

/** Any thrown value as the contract's error data (an unknown one becomes INTERNAL). */
export function toErrorData(e: unknown): AppErrorData {
  return e instanceof AppError ? e.toData() : { code: 'INTERNAL', message: String(e) };
}
