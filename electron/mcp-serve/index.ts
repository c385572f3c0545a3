// `skilldesk mcp serve`: SkillDesk's skills served over MCP, a face beside the CLI and web mode.
// It reaches the core only through a client of the handler table, as the other faces do.
export { type McpHttpEndpoint, serveMcpHttp } from './http.js';
export { clientOffersSampling, samplingLlm } from './sampling.js';
export { createSkillsMcpServer, SKILLS_EXTENSION, type SkillsMcpServerOptions } from './server.js';
