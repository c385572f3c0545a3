/** The frames of the web-mode WebSocket (one JSON object per message). */
import type { Result } from './channels.js';

/** Client → server. `id` pairs a result with its call. */
export type ClientFrame =
  | { type: 'invoke'; id: number; channel: string; req: unknown }
  | { type: 'subscribe'; event: string }
  | { type: 'unsubscribe'; event: string };

/** Server → client. */
export type ServerFrame =
  | { type: 'result'; id: number; result: Result<unknown> }
  | { type: 'event'; event: string; payload: unknown }
  | { type: 'protocol-error'; message: string };
