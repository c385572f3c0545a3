/** The Electron IPC channel names that carry the typed API (the preload uses exactly these). */
export const IPC_CHANNELS = {
  /** invoke(channel, req) → Result */
  invoke: 'skilldesk:invoke',
  /** send(event): start receiving an event */
  subscribe: 'skilldesk:subscribe',
  /** send(event): stop receiving an event */
  unsubscribe: 'skilldesk:unsubscribe',
  /** main → renderer: (event, payload) */
  event: 'skilldesk:event',
} as const;
