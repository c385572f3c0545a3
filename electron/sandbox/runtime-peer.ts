/**
 * The entry of `runtime/peer.bundle.mjs`: what the sandbox process needs of the app's code — the
 * RPC peer, AppError and the sandbox protocol — bundled (zod included) because the process runs
 * plain JavaScript with only its runtime folder readable. Regenerate with
 * `npm run build:sandbox-peer`; a test fails when the bundle is stale.
 */
export { AppError } from '../contract/errors.js';
export { createPeer } from '../rpc/index.js';
export * from './protocol.js';
