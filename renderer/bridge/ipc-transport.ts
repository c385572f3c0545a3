import type { SkillDeskApi } from '../../electron/contract/channels.js';
import type { Transport } from './transport.js';

/** The Electron transport: the preload's `window.skilldesk`, already speaking the contract. */
export function createIpcTransport(api: SkillDeskApi): Transport {
  return {
    invoke: (channel, req) => api.invoke(channel, req),
    subscribe: (event, cb) => api.subscribe(event, cb),
  };
}
