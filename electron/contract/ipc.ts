/**
 * The Electron IPC boundary. One channel carries the RPC peer's messages both ways (see
 * `electron/rpc`): the preload exposes exactly {@link SkillDeskBridge} as `window.skilldesk`,
 * and the renderer runs its peer over it, as it does over the web-mode WebSocket.
 */
export const IPC_CHANNELS = {
  /** renderer ⇄ main: one RPC message (`req`, `res`, `event`, `sub`, `unsub`) */
  message: 'skilldesk:message',
} as const;

/** What the preload puts on `window.skilldesk`: a message port, nothing more. */
export interface SkillDeskBridge {
  /** Send one RPC message to the main process (structured-cloned by Electron). */
  send(message: unknown): void;
  /** Receive the main process's RPC messages; returns the function that stops receiving. */
  onMessage(receive: (message: unknown) => void): () => void;
}
