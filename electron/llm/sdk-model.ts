import { createAnthropic } from '@ai-sdk/anthropic';
import { createDeepSeek } from '@ai-sdk/deepseek';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createXai } from '@ai-sdk/xai';
import type { LanguageModel } from 'ai';
import { assertNever } from '../contract/errors.js';
import type { ResolvedLlmConfig } from './providers.js';

/** A fetch implementation the SDK clients use (the global one by default). */
export type FetchLike = typeof globalThis.fetch;

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
  const { model, baseUrl: baseURL } = config;
  switch (config.provider) {
    case 'anthropic':
      return createAnthropic({ apiKey: apiKey ?? '', baseURL, fetch })(model);
    case 'openai':
      return createOpenAI({ apiKey: apiKey ?? '', baseURL, fetch }).chat(model);
    case 'google':
      return createGoogleGenerativeAI({ apiKey: apiKey ?? '', baseURL, fetch })(model);
    case 'xai':
      return createXai({ apiKey: apiKey ?? '', baseURL, fetch })(model);
    case 'deepseek':
      return createDeepSeek({ apiKey: apiKey ?? '', baseURL, fetch })(model);
    case 'openai-compatible':
      return createOpenAICompatible({
        name: 'openai-compatible',
        apiKey,
        baseURL,
        fetch,
        includeUsage: true,
      })(model);
    default:
      return assertNever(config.provider);
  }
}
