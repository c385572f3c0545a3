import { z } from 'zod';
import { type KeySource, type ProviderId, resolveApiKey, resolveEndpoint } from './providers.js';

/**
 * Models offered when a provider's `/models` cannot be asked (no key yet, offline, an endpoint
 * without it): the current families, newest first. The user may still type any id.
 */
export const KNOWN_MODELS: Readonly<Record<ProviderId, readonly string[]>> = {
  anthropic: ['claude-sonnet-4-6', 'claude-opus-4-1', 'claude-sonnet-4-5', 'claude-haiku-4-5'],
  openai: ['gpt-4.1-mini', 'gpt-4.1', 'gpt-4.1-nano', 'gpt-4o', 'gpt-4o-mini', 'o4-mini', 'o3'],
  google: ['gemini-2.5-flash', 'gemini-2.5-pro', 'gemini-2.5-flash-lite'],
  xai: ['grok-4', 'grok-3', 'grok-3-mini'],
  deepseek: ['deepseek-chat', 'deepseek-reasoner'],
  'openai-compatible': [],
};

// ---- which models read images ----
/**
 * Model ids (lower-cased, without a `models/` or vendor prefix) known to read images, per
 * provider. A model not matched is taken not to read images: the send is refused before the call.
 */
const IMAGE_MODELS: Readonly<Record<ProviderId, readonly RegExp[]>> = {
  openai: [
    /^gpt-4o/,
    /^gpt-4\.1/,
    /^gpt-4\.5/,
    /^gpt-4-turbo/,
    /^gpt-5/,
    /^o1(?!-mini)/,
    /^o3(?!-mini)/,
    /^o4-mini/,
    /^chatgpt-4o/,
  ],
  anthropic: [/^claude-3/, /^claude-(opus|sonnet|haiku)-4/, /^claude-4/],
  google: [/^gemini-/],
  xai: [/^grok-4/, /^grok-2-vision/, /^grok-vision/],
  deepseek: [],
  // Any endpoint: judged by the model's name alone.
  'openai-compatible': [
    /gpt-4o/,
    /gpt-4\.1/,
    /gpt-5/,
    /claude-3/,
    /claude-(opus|sonnet|haiku)-4/,
    /gemini-/,
    /vision/,
    /-vl\b/,
    /llava/,
  ],
};

/** Whether `model` of `provider` is known to read images (unknown models: no). */
export function modelReadsImages(provider: ProviderId, model: string): boolean {
  const id = model
    .toLowerCase()
    .replace(/^models\//, '')
    .replace(/^[a-z0-9-]+\//, '');
  return IMAGE_MODELS[provider].some((r) => r.test(id));
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
  const headers: Record<string, string> = {};
  let url = `${resolved.baseUrl}/models`;
  if (config.provider === 'anthropic') {
    if (key) headers['x-api-key'] = key;
    headers['anthropic-version'] = '2023-06-01';
    url += '?limit=100';
  } else if (config.provider === 'google') {
    if (key) headers['x-goog-api-key'] = key;
    url += '?pageSize=200';
  } else if (key) headers.authorization = `Bearer ${key}`;
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
    if (config.provider === 'google') {
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
