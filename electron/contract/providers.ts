/**
 * What every face may know about a provider kind, in one table: its label, how it is named
 * mid-sentence, where its API is, whether it needs a key and where the CLI reads one, which AI SDK
 * package and wire format it speaks, its models (the default, the ones offered when its `/models`
 * cannot be asked, the ones that read images) and which model names belong to its prompt-variant
 * family. The provider ids, the model layer's registry (`PROVIDERS`), the variant rules and the
 * renderer's labels are derived from it; a provider's list prices (optional) stay in
 * `electron/llm/prices.ts` and its SDK factory in `electron/llm/sdk-model.ts`, keyed by `sdk`.
 */

/**
 * The wire format a provider's API speaks, which also decides how its model list is asked for:
 * `openai-chat` (Chat Completions, `GET /models` with a bearer key), `anthropic-messages`
 * (`x-api-key` and `anthropic-version` headers) or `google-generative` (`x-goog-api-key`, a
 * `models` list of `models/<id>` names with the methods each supports).
 */
export type ProviderWire = 'openai-chat' | 'anthropic-messages' | 'google-generative';

/** The AI SDK package that builds a provider's model. */
export type ProviderSdk =
  | '@ai-sdk/anthropic'
  | '@ai-sdk/openai'
  | '@ai-sdk/google'
  | '@ai-sdk/xai'
  | '@ai-sdk/deepseek'
  | '@ai-sdk/openai-compatible';

/** The facts of one provider kind. */
export interface ProviderFacts {
  /** Human name for settings, menus and messages. */
  label: string;
  /** Who answered, as said mid-sentence in a failed reply ("your model server", "OpenAI"). */
  spoken: string;
  /** The API root the SDK talks to when the config gives none; null: the user must give one. */
  default_base_url: string | null;
  /**
   * The model used when the config names none; null where no name can be guessed (a local server
   * serves whatever was pulled into it): the model then comes from the server's own `/models`.
   */
  default_model: string | null;
  /** False for local OpenAI-compatible servers (Ollama, LM Studio, vLLM, llama.cpp): a key is optional. */
  requires_key: boolean;
  /** The environment variable the CLI reads the key from. */
  env_var: string;
  sdk: ProviderSdk;
  wire: ProviderWire;
  /**
   * Models offered when the provider's `/models` cannot be asked (no key yet, offline, an endpoint
   * without it): the current families, newest first. The user may still type any id.
   */
  known_models: readonly string[];
  /**
   * Model ids (lower-cased, without a `models/` or vendor prefix) known to read images. A model not
   * matched is taken not to read images: the send is refused before the call.
   */
  image_models: readonly RegExp[];
  /**
   * Model names of this provider's prompt-variant family (a skill's `model_variant` named after the
   * provider id), whichever provider serves them; null: none of its own (any endpoint).
   */
  family_models: RegExp | null;
}

/** Every provider kind, in the order settings and the CLI list them. */
export const PROVIDER_FACTS = {
  anthropic: {
    label: 'Anthropic',
    spoken: 'Anthropic',
    default_base_url: 'https://api.anthropic.com/v1',
    default_model: 'claude-sonnet-4-6',
    requires_key: true,
    env_var: 'ANTHROPIC_API_KEY',
    sdk: '@ai-sdk/anthropic',
    wire: 'anthropic-messages',
    known_models: ['claude-sonnet-4-6', 'claude-opus-4-1', 'claude-sonnet-4-5', 'claude-haiku-4-5'],
    image_models: [/^claude-3/, /^claude-(opus|sonnet|haiku)-4/, /^claude-4/],
    family_models: /^claude/,
  },
  openai: {
    label: 'OpenAI',
    spoken: 'OpenAI',
    default_base_url: 'https://api.openai.com/v1',
    default_model: 'gpt-4.1-mini',
    requires_key: true,
    env_var: 'OPENAI_API_KEY',
    sdk: '@ai-sdk/openai',
    wire: 'openai-chat',
    known_models: ['gpt-4.1-mini', 'gpt-4.1', 'gpt-4.1-nano', 'gpt-4o', 'gpt-4o-mini', 'o4-mini', 'o3'],
    image_models: [
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
    family_models: /^(gpt|o\d|chatgpt)/,
  },
  google: {
    label: 'Google Gemini',
    spoken: 'Google',
    default_base_url: 'https://generativelanguage.googleapis.com/v1beta',
    default_model: 'gemini-2.5-flash',
    requires_key: true,
    env_var: 'GOOGLE_GENERATIVE_AI_API_KEY',
    sdk: '@ai-sdk/google',
    wire: 'google-generative',
    known_models: ['gemini-2.5-flash', 'gemini-2.5-pro', 'gemini-2.5-flash-lite'],
    image_models: [/^gemini-/],
    family_models: /^gemini/,
  },
  xai: {
    label: 'xAI',
    spoken: 'xAI',
    default_base_url: 'https://api.x.ai/v1',
    default_model: 'grok-4',
    requires_key: true,
    env_var: 'XAI_API_KEY',
    sdk: '@ai-sdk/xai',
    wire: 'openai-chat',
    known_models: ['grok-4', 'grok-3', 'grok-3-mini'],
    image_models: [/^grok-4/, /^grok-2-vision/, /^grok-vision/],
    family_models: /^grok/,
  },
  deepseek: {
    label: 'DeepSeek',
    spoken: 'DeepSeek',
    default_base_url: 'https://api.deepseek.com',
    default_model: 'deepseek-chat',
    requires_key: true,
    env_var: 'DEEPSEEK_API_KEY',
    sdk: '@ai-sdk/deepseek',
    wire: 'openai-chat',
    known_models: ['deepseek-chat', 'deepseek-reasoner'],
    image_models: [],
    family_models: /^deepseek/,
  },
  'openai-compatible': {
    label: 'OpenAI-compatible',
    spoken: 'your model server',
    default_base_url: null,
    default_model: null,
    requires_key: false,
    env_var: 'OPENAI_COMPATIBLE_API_KEY',
    sdk: '@ai-sdk/openai-compatible',
    wire: 'openai-chat',
    known_models: [],
    // Any endpoint: judged by the model's name alone.
    image_models: [
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
    family_models: null,
  },
} as const satisfies Record<string, ProviderFacts>;

/** A provider kind's id. */
export type ProviderKindId = keyof typeof PROVIDER_FACTS;

/** Every provider id, in the table's order. */
export const PROVIDER_KIND_IDS = Object.keys(PROVIDER_FACTS) as [ProviderKindId, ...ProviderKindId[]];

/** Whether `value` is a provider id this build knows. */
export function isProviderKindId(value: string): value is ProviderKindId {
  return Object.hasOwn(PROVIDER_FACTS, value);
}

/** The facts of one provider, widened to {@link ProviderFacts} (no literal types to narrow on). */
export function providerFacts(id: ProviderKindId): ProviderFacts {
  return PROVIDER_FACTS[id];
}

/**
 * The provider kind that speaks to any OpenAI-style endpoint: what local model servers (Ollama,
 * LM Studio, …) are saved as, and what a model reached through someone else's client is called.
 */
export const ANY_ENDPOINT_PROVIDER: ProviderKindId = 'openai-compatible';

/** The provider kind a new provider form starts on. */
export const FIRST_PROVIDER_CHOICE: ProviderKindId = 'openai';

/** Whether a provider kind has no API root of its own (the user must give a base URL). */
export function needsBaseUrl(id: ProviderKindId): boolean {
  return PROVIDER_FACTS[id].default_base_url === null;
}

/** Every provider kind as model naming needs it: id and label (see `modelLabel`). */
export const PROVIDER_KIND_NAMES: readonly { id: ProviderKindId; label: string }[] = PROVIDER_KIND_IDS.map(
  (id) => ({ id, label: PROVIDER_FACTS[id].label }),
);
