import { z } from 'zod';
import { AppError } from '../contract/errors.js';
import { isProviderKindId, needsBaseUrl, providerFacts } from '../contract/providers.js';
import { PROVIDER_ID_VALUES, type ProviderIdName } from '../contract/settings.js';

/** The provider ids used everywhere: settings, the CLI's `--provider`, traces (defined in the contract). */
export const PROVIDER_IDS = PROVIDER_ID_VALUES;

/** One of {@link PROVIDER_IDS}. */
export type ProviderId = ProviderIdName;

/** What the app knows about a provider before any call is made. */
export interface ProviderInfo {
  id: ProviderId;
  /** Human name for settings and messages. */
  label: string;
  /**
   * The model used when the config names none; null where no name can be guessed (a local server
   * serves whatever was pulled into it): the model then comes from the server's own `/models`.
   */
  defaultModel: string | null;
  /** The API root the SDK talks to when the config gives no `baseUrl` (undefined: must be given). */
  defaultBaseUrl: string | undefined;
  /** The environment variable the CLI reads the key from. */
  envVar: string;
  /** False for local OpenAI-compatible servers (Ollama, LM Studio, vLLM, llama.cpp): a key is optional. */
  requiresKey: boolean;
}

/** The provider registry, as the model layer reads it (derived from the contract's `PROVIDER_FACTS`). */
export const PROVIDERS: Readonly<Record<ProviderId, ProviderInfo>> = Object.fromEntries(
  PROVIDER_IDS.map((id): [ProviderId, ProviderInfo] => {
    const f = providerFacts(id);
    return [
      id,
      {
        id,
        label: f.label,
        defaultModel: f.default_model,
        defaultBaseUrl: f.default_base_url ?? undefined,
        envVar: f.env_var,
        requiresKey: f.requires_key,
      },
    ];
  }),
) as Record<ProviderId, ProviderInfo>;

/** Zod schema of a provider id. */
export const ProviderIdSchema = z.enum(PROVIDER_IDS);

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Which provider and model to call. Holds no secret: the key is looked up by name in a
 * {@link KeySource} when a call is made.
 */
export const LlmConfigSchema = z
  .strictObject({
    provider: ProviderIdSchema,
    /** Model id as the provider spells it; the provider's default when absent. */
    model: z.string().trim().min(1).optional(),
    /** API root (e.g. `http://127.0.0.1:11434/v1`); required for `openai-compatible`. */
    baseUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
    /** Name the key is stored under in the KeySource (default: the provider id). */
    keyName: z.string().trim().min(1).max(200).optional(),
  })
  .superRefine((c, ctx) => {
    if (needsBaseUrl(c.provider) && !c.baseUrl) {
      ctx.addIssue({
        code: 'custom',
        path: ['baseUrl'],
        message: `${c.provider} needs a base URL (e.g. http://127.0.0.1:11434/v1 for Ollama)`,
      });
    }
  });

/** Which provider and model to call (validated by {@link LlmConfigSchema}). */
export type LlmConfig = z.infer<typeof LlmConfigSchema>;

/** An {@link LlmConfig} with every default filled in. */
export interface ResolvedLlmConfig {
  provider: ProviderId;
  model: string;
  baseUrl: string;
  keyName: string;
}

/**
 * Where API keys come from. The desktop app backs it with the OS keychain (Electron
 * `safeStorage`), the CLI with the environment. Keys never leave the main process.
 */
export interface KeySource {
  /** The key stored under `name` (a provider id or a config's `keyName`), if any. */
  get(name: string): string | undefined;
  /** How the user adds a missing key, for the error message (e.g. "set ANTHROPIC_API_KEY"). */
  hint?(name: string): string;
}

/**
 * The CLI's key source: a provider id maps to its environment variable (`ANTHROPIC_API_KEY`, …);
 * any other name that looks like an environment variable is read as one.
 */
export function envKeySource(env: NodeJS.ProcessEnv = process.env): KeySource {
  const varFor = (name: string): string | undefined =>
    isProviderId(name) ? PROVIDERS[name].envVar : ENV_NAME.test(name) ? name : undefined;
  return {
    get: (name) => {
      const v = varFor(name);
      const value = v ? env[v]?.trim() : undefined;
      return value ? value : undefined;
    },
    hint: (name) => {
      const v = varFor(name);
      return v
        ? `set the environment variable ${v}`
        : `no environment variable matches the key name "${name}"`;
    },
  };
}

/** A key source with no keys (local endpoints, tests). */
export const NO_KEYS: KeySource = { get: () => undefined };

/** True when `value` is one of {@link PROVIDER_IDS}. */
export function isProviderId(value: string): value is ProviderId {
  return isProviderKindId(value);
}

/** Validate an untrusted config; throws AppError INVALID_INPUT naming the bad field. */
export function parseLlmConfig(input: unknown): LlmConfig {
  const r = LlmConfigSchema.safeParse(input);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const path = issue.path.length ? issue.path.join('.') : '(config)';
  throw new AppError('INVALID_INPUT', `Invalid LLM config at ${path}: ${issue.message}`, {
    issues: r.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
  });
}

/** Where a provider is and which key it takes: a {@link ResolvedLlmConfig} without a model. */
export type ResolvedEndpoint = Omit<ResolvedLlmConfig, 'model'>;

/** Fill in the provider's base URL and key name (what listing its models needs). */
export function resolveEndpoint(config: Omit<LlmConfig, 'model'>): ResolvedEndpoint {
  const info = PROVIDERS[config.provider];
  const baseUrl = config.baseUrl ?? info.defaultBaseUrl;
  if (!baseUrl) {
    throw new AppError('LLM_NOT_CONFIGURED', `${info.label} needs a base URL`, { provider: config.provider });
  }
  return {
    provider: config.provider,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    keyName: config.keyName ?? config.provider,
  };
}

/**
 * Fill in the provider's defaults (model, base URL, key name). Throws LLM_NOT_CONFIGURED when no
 * model is named and the provider has no default: a made-up name would only fail at the server.
 */
export function resolveLlmConfig(config: LlmConfig): ResolvedLlmConfig {
  const info = PROVIDERS[config.provider];
  const endpoint = resolveEndpoint(config);
  const model = config.model ?? info.defaultModel;
  if (!model) {
    throw new AppError(
      'LLM_NOT_CONFIGURED',
      `${info.label} has no model chosen: press Test connection in Settings → Providers to pick one from the models it serves.`,
      { provider: config.provider },
    );
  }
  return { ...endpoint, model };
}

/**
 * Look up the key for a call. Throws LLM_MISSING_KEY (naming where to put it) when the provider
 * needs one and none is stored; local OpenAI-compatible servers get `undefined` and no header.
 */
export function resolveApiKey(config: ResolvedEndpoint, keys: KeySource): string | undefined {
  const key = keys.get(config.keyName);
  if (key) return key;
  const info = PROVIDERS[config.provider];
  if (!info.requiresKey) return undefined;
  const where = keys.hint?.(config.keyName) ?? `add the ${info.label} key in Settings → Providers`;
  throw new AppError('LLM_MISSING_KEY', `No API key for ${info.label}: ${where}.`, {
    provider: config.provider,
    keyName: config.keyName,
    envVar: info.envVar,
  });
}

/** The `--provider/--model/--base-url/--api-key-env` flags of the CLI, as parsed by commander. */
export interface LlmFlags {
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
}

/**
 * Turn CLI flags into an LlmConfig. Unset flags fall back to `SKILLDESK_PROVIDER`,
 * `SKILLDESK_MODEL` and `SKILLDESK_BASE_URL`. Returns undefined when no provider is chosen (the
 * app then runs without a model). Bad values throw AppError USAGE (exit code 2).
 */
export function llmConfigFromFlags(
  flags: LlmFlags,
  env: NodeJS.ProcessEnv = process.env,
): LlmConfig | undefined {
  const provider = flags.provider ?? (env.SKILLDESK_PROVIDER || undefined);
  const model = flags.model ?? (env.SKILLDESK_MODEL || undefined);
  const baseUrl = flags.baseUrl ?? (env.SKILLDESK_BASE_URL || undefined);
  if (!provider) {
    if (model || baseUrl) {
      throw new AppError(
        'USAGE',
        `--model and --base-url need --provider (one of: ${PROVIDER_IDS.join(', ')})`,
      );
    }
    return undefined;
  }
  if (!isProviderId(provider)) {
    throw new AppError('USAGE', `Unknown provider "${provider}": use one of ${PROVIDER_IDS.join(', ')}`);
  }
  if (flags.apiKeyEnv !== undefined && !ENV_NAME.test(flags.apiKeyEnv)) {
    throw new AppError(
      'USAGE',
      `--api-key-env must be an environment variable name, got "${flags.apiKeyEnv}"`,
    );
  }
  const r = LlmConfigSchema.safeParse({ provider, model, baseUrl, keyName: flags.apiKeyEnv });
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const flag =
      issue.path[0] === 'baseUrl' ? '--base-url' : issue.path[0] === 'model' ? '--model' : '--provider';
    throw new AppError('USAGE', `${flag}: ${issue.message}`);
  }
  return r.data;
}
