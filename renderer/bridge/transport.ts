import type { SkillDeskApi } from '../../electron/contract/channels.js';

/**
 * How the client reaches the main process: Electron IPC (an RPC peer over `window.skilldesk`), the web-mode
 * WebSocket, or the handler table in the same process (tests). All speak the contract's API:
 * `invoke` resolves with the result envelope; `subscribe` returns an unsubscribe.
 */
export type Transport = SkillDeskApi;

/** Connection state, for transports that can lose their connection. */
export type ConnectionStatus = 'connecting' | 'open' | 'reconnecting';
