// The MCP client capability: servers' tools in chat, approvals, the tools/* slice. The MCP server
// SkillDesk itself serves is a face: electron/mcp-serve/.
export { ApprovalBroker, type ApprovalStore, sqliteApprovalStore } from './approvals.js';
export { declaredMcpTools, describeTool, mcpTurnTools } from './chat-tools.js';
export {
  type ConfiguredServer,
  listMcpServers,
  MCP_CONFIG_FILE,
  type McpServerConfig,
  type McpServerReport,
  serverEnvironment,
  testMcpServer,
} from './client.js';
export { removeServerConfig, saveServerConfig } from './config-file.js';
export { createMcpSlice, type McpSlice, type McpSliceDeps } from './handlers.js';
export { exposedToolName, type HubTool, McpHub } from './hub.js';
