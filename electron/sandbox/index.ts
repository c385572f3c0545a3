export {
  type CodeTemplateArtifact,
  CodeTemplateMetadataSchema,
  type CodeTemplateOptions,
  type CodeTemplateResult,
  literalizeTemplate,
  pyLiteral,
  renderCodeTemplate,
  runCodeTemplate,
} from './code-template.js';
export { type BuiltComponent, buildComponentFromJs } from './component-build.js';
export {
  type ComponentArtifact,
  ComponentMetadataSchema,
  type ComponentRunOptions,
  type ComponentRunResult,
  runComponentArtifact,
} from './component-run.js';
export {
  type ComponentInfo,
  type ComponentProblem,
  cachedComponentInfo,
  checkSurface,
  componentHash,
  DEFAULT_GRANTS,
  describeProblems,
  inspectComponentBytes,
  prepareComponent,
  SKILL_WIT,
} from './components.js';
export {
  createSandboxHost,
  HOST_FUNCTIONS,
  type HostFunctionName,
  type SandboxHostDeps,
  type SandboxWorkspace,
} from './host-functions.js';
export {
  type GateTarget,
  gateTarget,
  type HttpGateOptions,
  type HttpLogEntry,
  type HttpRequestInput,
  type HttpResponseOutput,
  httpRequest,
  specialAddress,
} from './http-request.js';
export {
  type InputFolderFile,
  type InputFolderLimits,
  MAX_INPUT_FOLDER_FILES,
  MAX_NATIVE_INPUT_FOLDER_BYTES,
  scanInputFolder,
} from './input-folder.js';
export {
  DEFAULT_LIMITS,
  MAX_LIMITS,
  resolveLimits,
  type SandboxLimits,
  type SandboxLimitsOverride,
  SandboxLimitsOverrideSchema,
} from './limits.js';
export {
  createSandboxPool,
  pyodideDir,
  RUNTIME_DIR,
  SandboxPool,
  type SandboxPoolOptions,
  type SandboxPoolStats,
} from './pool.js';
export { PYTHON_DISPLAY_SOURCE } from './python-display.js';
export {
  MAX_PYTHON_INPUT_BYTES,
  MAX_PYTHON_OUTPUT_BYTES,
  MAX_PYTHON_OUTPUT_FILES,
  PYTHON_CODE_NAME,
  type PythonException,
  type PythonNetwork,
  pythonGateOptions,
  type RunPythonCodeOptions,
  type RunPythonCodeResult,
  runPythonCode,
} from './python-run.js';
export {
  MAX_SCRIPT_INPUT_BYTES,
  MAX_SCRIPT_INPUTS,
  MAX_SCRIPT_OUTPUT_BYTES,
  MAX_SCRIPT_OUTPUT_FILES,
  mediaTypeOf,
  type RunSkillScriptOptions,
  type RunSkillScriptResult,
  readScriptInputs,
  runSkillScript,
  SCRIPT_CWD,
  SCRIPT_INPUTS_DIR,
  SCRIPT_OUT_DIR,
  SCRIPT_PACKAGES_DIR,
  type ScriptFile,
  type ScriptInput,
  type ScriptOutputFile,
  type ScriptPackage,
  scriptInputName,
  scriptRelativePath,
} from './scripts.js';
export {
  createForkSpawner,
  detectIsolation,
  type ForkSandboxOptions,
  permissionFlags,
  sandboxIsolation,
  spawnNodeSandbox,
} from './spawn.js';
export type {
  SandboxError,
  SandboxHost,
  SandboxIsolation,
  SandboxLlm,
  SandboxLlmUsage,
  SandboxProcessHandle,
  SandboxRunOptions,
  SandboxRunResult,
  SandboxSpawnSpec,
  SpawnSandboxProcess,
} from './types.js';
