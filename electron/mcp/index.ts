export { createSkillsMcpServer, SKILLS_EXTENSION, type SkillsMcpServerOptions } from './server.js';
