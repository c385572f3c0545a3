export { agentFolderSlug } from './agent-export.js';
export * from './agent-skill.js';
export * from './catalog.js';
export * from './collection.js';
export * from './convert.js';
export * from './discover-folders.js';
export * from './eval-results.js';
export * from './eval-runs.js';
export * from './evals.js';
export * from './export.js';
export * from './handlers.js';
export * from './import.js';
export * from './import-files.js';
export * from './limits.js';
export * from './lint.js';
export * from './open.js';
export * from './package-schema.js';
export * from './packages.js';
export * from './pip.js';
export {
  type LoadedPlugin,
  loadPlugin,
  type PluginPart,
  type PluginServer,
  pluginManifestPath,
} from './plugin.js';
export * from './plugin-name.js';
export * from './requirements.js';
export * from './seed.js';
export * from './skill-prompts.js';
export * from './skills-ref-rules.js';
export * from './version.js';
export * from './version-handlers.js';
export * from './versions.js';
export * from './zip.js';
