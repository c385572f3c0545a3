// Issue 16: MCP tools in chat, approvals, the tools/* slice.
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
export { type McpHttpEndpoint, serveMcpHttp } from './http.js';
export { exposedToolName, type HubTool, McpHub } from './hub.js';
export { clientOffersSampling, samplingLlm } from './sampling.js';
export { createSkillsMcpServer, SKILLS_EXTENSION, type SkillsMcpServerOptions } from './server.js';
