/**
 * The web-mode WebSocket protocol: one JSON object per message, the RPC peer's messages
 * (`electron/rpc`) narrowed to this boundary. The page calls channels and subscribes to events;
 * the server answers and pushes events. Errors cross as `{code, message, details?}`.
 */
import type { Channel, EventName } from './channels.js';
import type { AppErrorData } from './errors.js';

/** Page → server. `id` pairs an answer with its call. */
export type ClientFrame =
  | { type: 'req'; id: string; method: Channel; params: unknown }
  | { type: 'sub'; event: EventName }
  | { type: 'unsub'; event: EventName };

/** Server → page. A `res` with `id: null` refuses a message that was not a frame. */
export type ServerFrame =
  | { type: 'res'; id: string; result: unknown }
  | { type: 'res'; id: string | null; error: AppErrorData }
  | { type: 'event'; event: EventName; data: unknown };
