/** Types of the generated `peer.bundle.mjs`: exactly what its entry exports. */
export * from '../runtime-peer.js';
