export { type McpHttpEndpoint, serveMcpHttp } from './http.js';
export { createSkillsMcpServer, SKILLS_EXTENSION, type SkillsMcpServerOptions } from './server.js';
