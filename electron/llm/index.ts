// The LLM provider layer: provider registry and config, the client the app calls, prices, and the
// loopback provider server used by tests, demos and `skilldesk dev provider`.

export { createLlm, type LlmDeps, toAppError, toModelMessages } from './client.js';
export { contextWindow, DEFAULT_CONTEXT_TOKENS, listingBudgetTokens } from './context-window.js';
export {
  DEFAULT_LOOPBACK_MODELS,
  type LoopbackScript,
  type LoopbackScriptInput,
  LoopbackScriptSchema,
  loadLoopbackScript,
  parseLoopbackScript,
  type ScriptTurn,
} from './loopback/script.js';
export {
  type LoopbackOptions,
  type LoopbackProvider,
  type RecordedRequest,
  startLoopbackProvider,
} from './loopback/server.js';
export {
  imageModelsOf,
  KNOWN_MODELS,
  listModels,
  type ModelList,
  modelId,
  modelReadsImages,
} from './models.js';
export {
  BUILTIN_PRICES,
  estimateCost,
  findPrice,
  loadPriceTable,
  type ModelPrice,
  mergePrices,
  PRICES_FILE,
  type PriceTable,
  PriceTableSchema,
  readPriceTable,
} from './prices.js';
export {
  envKeySource,
  isProviderId,
  type KeySource,
  type LlmConfig,
  LlmConfigSchema,
  type LlmFlags,
  llmConfigFromFlags,
  NO_KEYS,
  PROVIDER_IDS,
  PROVIDERS,
  type ProviderId,
  ProviderIdSchema,
  type ProviderInfo,
  parseLlmConfig,
  type ResolvedEndpoint,
  type ResolvedLlmConfig,
  resolveApiKey,
  resolveEndpoint,
  resolveLlmConfig,
} from './providers.js';
export type {
  Llm,
  LlmAssistantMessage,
  LlmEvent,
  LlmFinish,
  LlmFinishReason,
  LlmMessage,
  LlmRequest,
  LlmResult,
  LlmToolCall,
  LlmToolMessage,
  LlmToolSpec,
  LlmUsage,
  LlmUserMessage,
} from './types.js';
