import { z } from 'zod';
import { type ProviderWire, providerFacts } from '../contract/providers.js';
import {
  type KeySource,
  PROVIDER_IDS,
  type ProviderId,
  resolveApiKey,
  resolveEndpoint,
} from './providers.js';
import type { Llm } from './types.js';

/**
 * Models offered when a provider's `/models` cannot be asked (no key yet, offline, an endpoint
 * without it): the current families, newest first (`known_models` of `PROVIDER_FACTS`).
 */
export const KNOWN_MODELS: Readonly<Record<ProviderId, readonly string[]>> = Object.fromEntries(
  PROVIDER_IDS.map((id) => [id, providerFacts(id).known_models]),
) as Record<ProviderId, readonly string[]>;

/** Whether `model` of `provider` is known to read images (unknown models: no). */
export function modelReadsImages(provider: ProviderId, model: string): boolean {
  const id = model
    .toLowerCase()
    .replace(/^models\//, '')
    .replace(/^[a-z0-9-]+\//, '');
  return providerFacts(provider).image_models.some((r) => r.test(id));
}

/** Models of `provider` SkillDesk knows to read images, to name in a refusal. */
export function imageModelsOf(provider: ProviderId): string[] {
  const own = KNOWN_MODELS[provider].filter((m) => modelReadsImages(provider, m));
  return own.length ? own.slice(0, 3) : ['gpt-4.1', 'claude-sonnet-4-5', 'gemini-2.5-flash'];
}

/** A provider's models and where the list came from. */
export interface ModelList {
  models: string[];
  /** `provider`: its `/models` answered; `known`: the built-in list (see `warning` for why). */
  source: 'provider' | 'known';
  warning: string | null;
}

// Only the ids are read; everything else in the reply is ignored.
const OpenAiModels = z.object({ data: z.array(z.object({ id: z.string().min(1) })) });
const GoogleModels = z.object({
  models: z.array(z.object({ name: z.string(), supportedGenerationMethods: z.array(z.string()).optional() })),
});

/** One header, or none when its value is missing (a keyless local server gets no auth header). */
const header = (name: string, value: string | undefined): Record<string, string> =>
  value ? { [name]: value } : {};

/** How each wire format asks for the model list: the URL and its own auth headers. */
const MODEL_LIST_REQUEST: Readonly<
  Record<
    ProviderWire,
    (baseUrl: string, key: string | undefined) => { url: string; headers: Record<string, string> }
  >
> = {
  'anthropic-messages': (base, key) => ({
    url: `${base}/models?limit=100`,
    headers: { ...header('x-api-key', key), 'anthropic-version': '2023-06-01' },
  }),
  'google-generative': (base, key) => ({
    url: `${base}/models?pageSize=200`,
    headers: header('x-goog-api-key', key),
  }),
  'openai-chat': (base, key) => ({
    url: `${base}/models`,
    headers: header('authorization', key && `Bearer ${key}`),
  }),
};

/**
 * Ask the provider which models it has (`GET {base}/models`, the provider's own auth), falling
 * back to {@link KNOWN_MODELS} with a warning in words. Never throws for a provider's failure.
 */
export async function listModels(
  config: { provider: ProviderId; baseUrl?: string; keyName?: string },
  deps: { keys: KeySource; fetch?: typeof fetch; timeoutMs?: number },
): Promise<ModelList> {
  const known = (warning: string): ModelList => ({
    models: [...KNOWN_MODELS[config.provider]],
    source: 'known',
    warning,
  });
  let resolved: ReturnType<typeof resolveEndpoint>;
  let key: string | undefined;
  try {
    resolved = resolveEndpoint({
      provider: config.provider,
      baseUrl: config.baseUrl,
      keyName: config.keyName,
    });
    key = resolveApiKey(resolved, deps.keys);
  } catch (e) {
    return known(`${(e as Error).message} Showing the models SkillDesk knows.`);
  }
  const wire = providerFacts(config.provider).wire;
  const { url, headers } = MODEL_LIST_REQUEST[wire](resolved.baseUrl, key);
  try {
    const res = await (deps.fetch ?? fetch)(url, {
      headers,
      signal: AbortSignal.timeout(deps.timeoutMs ?? 8000),
    });
    if (!res.ok)
      return known(
        `The provider’s model list answered HTTP ${res.status}. Showing the models SkillDesk knows.`,
      );
    const body: unknown = await res.json();
    let models: string[];
    if (wire === 'google-generative') {
      const g = GoogleModels.parse(body);
      models = g.models
        .filter(
          (m) => !m.supportedGenerationMethods || m.supportedGenerationMethods.includes('generateContent'),
        )
        .map((m) => m.name.replace(/^models\//, ''));
    } else models = OpenAiModels.parse(body).data.map((m) => m.id);
    models = [...new Set(models)].sort();
    if (models.length === 0)
      return known('The provider listed no models. Showing the models SkillDesk knows.');
    return { models, source: 'provider', warning: null };
  } catch (e) {
    const why = e instanceof z.ZodError ? 'an answer it could not read' : (e as Error).message;
    return known(`Couldn’t get the provider’s model list (${why}). Showing the models SkillDesk knows.`);
  }
}

/** The id a trace row and a reply record for a model (`provider:model`), or null. */
export function modelId(llm: Llm | null): string | null {
  return llm ? `${llm.provider}:${llm.model}` : null;
}
