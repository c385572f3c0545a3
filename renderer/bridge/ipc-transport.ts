import type { SkillDeskBridge } from '../../electron/contract/ipc.js';
import { createPeer } from '../../electron/rpc/index.js';
import { peerTransport } from './peer-transport.js';
import type { Transport } from './transport.js';

/** The Electron transport: an RPC peer over the preload's `window.skilldesk` message port. */
export function createIpcTransport(bridge: SkillDeskBridge): Transport {
  const peer = createPeer(
    {
      send: (message) => bridge.send(message),
      onMessage: (receive) => {
        bridge.onMessage(receive);
      },
    },
    { idPrefix: 'c' },
  );
  return peerTransport(peer);
}
