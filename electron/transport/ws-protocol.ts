import type { ClientFrame } from '../contract/ws-frames.js';

export type { ClientFrame, ServerFrame } from '../contract/ws-frames.js';

/** Parse one client message; an `{error}` says why it is not a frame. */
export function parseClientFrame(text: string): ClientFrame | { error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { error: 'a frame must be JSON' };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { error: 'a frame must be an object' };
  const f = raw as Record<string, unknown>;
  switch (f.type) {
    case 'invoke':
      if (typeof f.id !== 'number' || !Number.isSafeInteger(f.id))
        return { error: 'invoke needs an integer id' };
      if (typeof f.channel !== 'string') return { error: 'invoke needs a channel' };
      return { type: 'invoke', id: f.id, channel: f.channel, req: f.req };
    case 'subscribe':
    case 'unsubscribe':
      if (typeof f.event !== 'string') return { error: `${f.type} needs an event` };
      return { type: f.type, event: f.event };
    default:
      return { error: 'unknown frame type' };
  }
}
