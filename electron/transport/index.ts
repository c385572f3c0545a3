// The transports that serve the handler table: Electron IPC, the web-mode WebSocket, and the
// in-process client the CLI and MCP faces use; plus the one edge every call goes through.
export * from './dispatch.js';
export * from './in-process-client.js';
export * from './ipc-server.js';
export * from './renderer-build.js';
export * from './ws-server.js';
