// The main-process client of the DSPy sidecar (sidecar/, Python): lifecycle, protocol, LM routing.

export { formatProgress, parseDspyModuleContent, parseTrainingJsonl } from './artifact.js';
export {
  type CallOptions,
  createSidecarClient,
  type LmCallContext,
  type LmHandler,
  type ModelCallOptions,
  type SidecarClient,
  type SidecarClientOptions,
  type SidecarState,
  type SidecarStatus,
} from './client.js';
export {
  defaultSidecarDataDir,
  findAppRoot,
  type ResolveSidecarOptions,
  resolveSidecarCommand,
  SIDECAR_BINARY_NAME,
  type SidecarCommand,
  sidecarEnv,
  venvPython,
} from './command.js';
export { createSidecarHandlers, type SidecarHandlerDeps } from './handlers.js';
export {
  type DspyModuleContent,
  DspyModuleContentSchema,
  type ExecuteReq,
  type ExecuteRes,
  LmMessageSchema,
  type LmRequest,
  LmRequestSchema,
  type LmResponse,
  type ManifestRes,
  OPTIMIZE_METRICS,
  OPTIMIZERS,
  type OptimizeProgress,
  type OptimizeReq,
  type OptimizeRes,
  SIDECAR_CALLBACKS,
  SIDECAR_EVENTS,
  SIDECAR_METHODS,
  SIDECAR_PROTOCOL_VERSION,
  type SidecarMethod,
  type SidecarMethodMap,
  type SidecarUsage,
  type StateBlob,
  type VersionRes,
} from './protocol.js';
