import { createAnthropic } from '@ai-sdk/anthropic';
import { createDeepSeek } from '@ai-sdk/deepseek';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createXai } from '@ai-sdk/xai';
import type { LanguageModel } from 'ai';
import { type ProviderSdk, providerFacts } from '../contract/providers.js';
import type { ResolvedLlmConfig } from './providers.js';

/** A fetch implementation the SDK clients use (the global one by default). */
export type FetchLike = typeof globalThis.fetch;

interface SdkOptions {
  model: string;
  baseURL: string;
  apiKey: string | undefined;
  fetch: FetchLike | undefined;
}

/**
 * One model factory per AI SDK package (a provider's `sdk` in `PROVIDER_FACTS`): a new provider
 * that speaks through a package already here adds no line.
 */
const SDK_MODELS: Readonly<Record<ProviderSdk, (o: SdkOptions) => LanguageModel>> = {
  '@ai-sdk/anthropic': ({ model, baseURL, apiKey, fetch }) =>
    createAnthropic({ apiKey: apiKey ?? '', baseURL, fetch })(model),
  '@ai-sdk/openai': ({ model, baseURL, apiKey, fetch }) =>
    createOpenAI({ apiKey: apiKey ?? '', baseURL, fetch }).chat(model),
  '@ai-sdk/google': ({ model, baseURL, apiKey, fetch }) =>
    createGoogleGenerativeAI({ apiKey: apiKey ?? '', baseURL, fetch })(model),
  '@ai-sdk/xai': ({ model, baseURL, apiKey, fetch }) =>
    createXai({ apiKey: apiKey ?? '', baseURL, fetch })(model),
  '@ai-sdk/deepseek': ({ model, baseURL, apiKey, fetch }) =>
    createDeepSeek({ apiKey: apiKey ?? '', baseURL, fetch })(model),
  '@ai-sdk/openai-compatible': ({ model, baseURL, apiKey, fetch }) =>
    createOpenAICompatible({ name: 'openai-compatible', apiKey, baseURL, fetch, includeUsage: true })(model),
};

/**
 * Build the AI SDK model for a resolved config. The base URL is always passed explicitly so the
 * SDKs never pick up `OPENAI_BASE_URL`/`ANTHROPIC_BASE_URL` from the environment behind our back.
 * OpenAI goes through Chat Completions (not the Responses API) so any compatible endpoint — and
 * the loopback test server — speaks the same wire format.
 */
export function createSdkModel(
  config: ResolvedLlmConfig,
  apiKey: string | undefined,
  fetch?: FetchLike,
): LanguageModel {
  return SDK_MODELS[providerFacts(config.provider).sdk]({
    model: config.model,
    baseURL: config.baseUrl,
    apiKey,
    fetch,
  });
}
