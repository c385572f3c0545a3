// The command groups of `skilldesk`, in the order `--help` lists them. Each capability adds one line.
import { registerChatCommands } from './chat-commands.js';
import { registerComponentCommands } from './component-commands.js';
import { registerComposeCommands } from './compose-commands.js';
import type { RegisterCommands } from './context.js';
import { registerDispatchCommands } from './dispatch-commands.js';
import { registerLlmCommands } from './llm-commands.js';
import { registerMcpCommands } from './mcp-commands.js';
import { registerOptimizeCommands } from './optimize-commands.js';
import { registerProvidersCommands } from './providers-commands.js';
import { registerPythonCommands } from './python-commands.js';
import { registerSandboxCommands } from './sandbox-commands.js';
import {
  registerNativeRuntimeCommands,
  registerProgramCommands,
  registerScriptCommands,
} from './script-commands.js';
import { registerServeCommands } from './serve-commands.js';
import { registerSettingsCommands } from './settings-commands.js';
import { registerSidecarCommands } from './sidecar-commands.js';
import { registerSkillVersionCommands } from './skill-version-commands.js';
import { registerSkillsCommands } from './skills-commands.js';
import { registerSourcesCommands } from './sources-commands.js';

/** Every command group; `skills optimize` comes after `skills`, which it extends. */
export const COMMAND_GROUPS: readonly RegisterCommands[] = [
  registerSkillsCommands,
  registerScriptCommands,
  registerNativeRuntimeCommands,
  registerProgramCommands,
  registerSandboxCommands,
  registerPythonCommands,
  registerComponentCommands,
  registerLlmCommands,
  registerProvidersCommands,
  registerSettingsCommands,
  registerSidecarCommands,
  registerDispatchCommands,
  registerServeCommands,
  registerChatCommands,
  registerOptimizeCommands,
  registerComposeCommands,
  registerSkillVersionCommands,
  registerMcpCommands,
  registerSourcesCommands,
];
