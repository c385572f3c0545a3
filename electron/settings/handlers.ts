import type { EventHub, HandlersFor } from '../contract/channels.js';
import { AppError, isAppError } from '../contract/errors.js';
import type {
  GetSettingsRes,
  ProviderChoice,
  ProviderView,
  TestConnectionRes,
} from '../contract/settings.js';
import {
  createLlm,
  type Llm,
  type LlmConfig,
  LlmConfigSchema,
  listModels,
  PROVIDER_IDS,
  PROVIDERS,
  type ProviderId,
  readPriceTable,
} from '../llm/index.js';
import { sandboxIsolation } from '../sandbox/index.js';
import { cleanStaleTemps } from '../store/index.js';
import { appKeySource, keyStatus, type SecretStore } from './secrets.js';
import { readSettings, type SettingsFile, writeSettings } from './settings-file.js';

/** What the settings slice needs. */
export interface SettingsHandlerDeps {
  home: string;
  env: NodeJS.ProcessEnv;
  secrets: SecretStore;
  events: EventHub;
  /** Monotonic milliseconds. */
  now: () => number;
  onWarning?: (message: string) => void;
}

/** The settings slice plus the model chat turns use, built from the current settings and keys. */
export interface ProviderSettings {
  handlers: HandlersFor<'settings'>;
  /**
   * The chat model, or null when no provider is chosen. Throws INVALID_INPUT on a bad saved config.
   * Given a chat's own choice, that provider and model (with the base URL saved for it, if any).
   */
  chatLlm(choice?: { provider: ProviderId; model: string }): Llm | null;
}

function configOf(choice: { provider: ProviderId; model?: string; base_url?: string }): LlmConfig {
  const r = LlmConfigSchema.safeParse({
    provider: choice.provider,
    model: choice.model || undefined,
    baseUrl: choice.base_url || undefined,
  });
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const field = issue.path[0] === 'baseUrl' ? 'base_url' : String(issue.path[0] ?? 'provider');
  throw new AppError('INVALID_INPUT', `${field}: ${issue.message}`, {
    issues: [{ path: field, message: issue.message }],
  });
}

/** Build the `settings/*` slice. */
export function createProviderSettings(deps: SettingsHandlerDeps): ProviderSettings {
  // Files of the account folder are written atomically; temps a killed process left go now.
  cleanStaleTemps(deps.home);
  const keys = appKeySource(deps.secrets, deps.env);
  const build = (config: LlmConfig): Llm => {
    // Prices only feed cost estimates: a broken prices.json is a warning, never a refused call.
    const prices = readPriceTable(deps.home);
    if (prices.warning) deps.onWarning?.(prices.warning);
    return createLlm(config, { keys, prices: prices.table, onWarning: deps.onWarning });
  };

  const providerView = (id: ProviderId): ProviderView => {
    const info = PROVIDERS[id];
    return {
      id,
      label: info.label,
      default_model: info.defaultModel,
      default_base_url: info.defaultBaseUrl ?? null,
      requires_key: info.requiresKey,
      env_var: info.envVar,
      ...keyStatus(deps.secrets, deps.env, id),
    };
  };

  const view = (): GetSettingsRes => {
    const read = readSettings(deps.home);
    const { settings, file } = read;
    // Every optional file that could not be read is said here, so Settings opens to fix it.
    const warnings = [read.warning, deps.secrets.problem?.() ?? null, readPriceTable(deps.home).warning];
    const warning = warnings.filter((w): w is string => Boolean(w)).join('\n') || null;
    const chat: ProviderChoice | null = settings.chat
      ? {
          provider: settings.chat.provider,
          model: settings.chat.model ?? null,
          base_url: settings.chat.base_url ?? null,
        }
      : null;
    return {
      sandbox: {
        ...sandboxIsolation(),
        allow_in_process_isolation:
          settings.sandbox.allow_in_process_isolation ||
          deps.env.SKILLDESK_SANDBOX_ISOLATION === 'in-process',
      },
      chat,
      providers: PROVIDER_IDS.map(providerView),
      key_storage: deps.secrets.kind,
      warning,
      file,
    };
  };

  const handlers = {
    'settings/get': () => view(),

    'settings/set-provider': (req) => {
      configOf(req);
      const next: SettingsFile = {
        ...readSettings(deps.home).settings,
        chat: {
          provider: req.provider,
          ...(req.model ? { model: req.model } : {}),
          ...(req.base_url ? { base_url: req.base_url } : {}),
        },
      };
      writeSettings(deps.home, next);
      deps.events.emit('settings/changed', { what: 'provider' });
      return view();
    },

    'settings/set-sandbox': (req) => {
      writeSettings(deps.home, {
        ...readSettings(deps.home).settings,
        sandbox: { allow_in_process_isolation: req.allow_in_process_isolation },
      });
      deps.events.emit('settings/changed', { what: 'sandbox' });
      return view();
    },

    'settings/set-key': (req) => {
      deps.secrets.set(req.provider, req.key.trim());
      deps.events.emit('settings/changed', { what: 'key' });
      return { provider: providerView(req.provider) };
    },

    'settings/test-connection': async (req): Promise<TestConnectionRes> => {
      const saved = readSettings(deps.home).settings.chat;
      const choice = req.provider
        ? { provider: req.provider, model: req.model, base_url: req.base_url }
        : saved;
      const t = deps.now();
      const took = () => Math.round(deps.now() - t);
      if (!choice) {
        return {
          ok: false,
          provider: null,
          model: null,
          took_ms: 0,
          reply: null,
          error: { code: 'LLM_NOT_CONFIGURED', message: 'Choose a provider first, then test it.' },
        };
      }
      let llm: Llm;
      try {
        llm = build(configOf(choice));
      } catch (e) {
        if (!isAppError(e)) throw e;
        return {
          ok: false,
          provider: choice.provider,
          model: choice.model ?? null,
          took_ms: took(),
          reply: null,
          error: { code: e.code, message: e.message },
        };
      }
      try {
        const r = await llm.generate({
          messages: [{ role: 'user', content: 'Reply with the single word: ok' }],
          maxOutputTokens: 1,
          timeoutMs: 30_000,
        });
        return {
          ok: true,
          provider: llm.provider,
          model: llm.model,
          took_ms: took(),
          reply: r.text.trim().slice(0, 200),
          error: null,
        };
      } catch (e) {
        const error = isAppError(e)
          ? { code: e.code, message: e.message }
          : { code: 'LLM_FAILED', message: 'The provider call failed; see the app log.' };
        return { ok: false, provider: llm.provider, model: llm.model, took_ms: took(), reply: null, error };
      }
    },
    'settings/list-models': async (req) => {
      const { settings } = readSettings(deps.home);
      const baseUrl = settings.chat?.provider === req.provider ? settings.chat.base_url : undefined;
      const r = await listModels({ provider: req.provider, baseUrl: baseUrl || undefined }, { keys });
      return { provider: req.provider, ...r };
    },
  } satisfies HandlersFor<'settings'>;

  return {
    handlers,
    chatLlm(choice) {
      const { settings, warning } = readSettings(deps.home);
      if (warning) deps.onWarning?.(warning);
      if (choice) {
        const baseUrl = settings.chat?.provider === choice.provider ? settings.chat.base_url : undefined;
        return build(configOf({ ...choice, ...(baseUrl ? { base_url: baseUrl } : {}) }));
      }
      return settings.chat ? build(configOf(settings.chat)) : null;
    },
  };
}
