export {
  type ConfiguredServer,
  listMcpServers,
  MCP_CONFIG_FILE,
  type McpServerConfig,
  type McpServerReport,
  serverEnvironment,
  testMcpServer,
} from './client.js';
export { type McpHttpEndpoint, serveMcpHttp } from './http.js';
export { createSkillsMcpServer, SKILLS_EXTENSION, type SkillsMcpServerOptions } from './server.js';
