export * from './peer.js';
