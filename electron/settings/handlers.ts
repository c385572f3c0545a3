import type { EventHub, HandlersFor } from '../contract/channels.js';
import { AppError, isAppError } from '../contract/errors.js';
import { modelLabel } from '../contract/model-label.js';
import { ANY_ENDPOINT_PROVIDER, PROVIDER_KIND_NAMES } from '../contract/providers.js';
import type {
  ConfiguredProviderView,
  FindLocalServersRes,
  GetSettingsRes,
  KeySourceName,
  ListingBudgetView,
  ProviderChoice,
  ProviderView,
  TestConnectionRes,
} from '../contract/settings.js';
import { DEFAULT_LISTING_BUDGET_PERCENT, DEFAULT_PACKAGE_INDEX } from '../contract/settings.js';
import {
  contextWindow,
  createLlm,
  envKeySource,
  isProviderId,
  type KeySource,
  type Llm,
  type LlmConfig,
  LlmConfigSchema,
  listingBudgetTokens,
  listModels,
  PROVIDER_IDS,
  PROVIDERS,
  type ProviderId,
  readPriceTable,
  resolveApiKey,
  resolveEndpoint,
} from '../llm/index.js';
import { sandboxIsolation } from '../sandbox/index.js';
import { cleanStaleTemps } from '../store/index.js';
import type { SecretStore } from './secrets.js';
import { type ProviderEntry, readSettings, type SettingsFile, writeSettings } from './settings-file.js';

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
   * The model of a call: the chat's own provider and model when it has one (resolved by the
   * provider's id, whatever the default is now), else the default provider's; null when there is
   * no default. Throws INVALID_INPUT on a bad saved config, LLM_NOT_CONFIGURED when a chat's
   * provider was removed.
   */
  chatLlm(choice?: { provider: string; model?: string }): Llm | null;
  /**
   * Whether new chats are named by their model after the first reply: `SKILLDESK_CHAT_TITLES`
   * (`auto` or `off`) when set, else settings.json's `chat_titles` (default `auto`).
   */
  autoTitles(): boolean;
  /** A stored model id in words, by the provider's label ({@link modelLabel}). */
  modelName(modelId: string | null | undefined): string | null;
  /**
   * The skill listing's budget in tokens for a chat's model (its own choice, else the default
   * provider's): the set percentage (default 1) of that model's context.
   */
  listingBudget(choice?: { provider: string; model?: string }): number;
}

/**
 * The provider a chat's `provider` names: the configured one with that id, else — for chats
 * pinned before several providers could be configured — the provider kind of that name with its
 * defaults. Null when neither exists.
 */
export function resolveProvider(settings: SettingsFile, ref: string): ProviderEntry | null {
  const own = settings.providers.find((p) => p.id === ref);
  if (own) return own;
  return isProviderId(ref) ? { id: ref, kind: ref, label: PROVIDERS[ref].label } : null;
}

/**
 * The model a provider's calls get when no chat names one: its own, else its kind's default when
 * the server lists it (or its list was never read), else the first model the server lists. Null
 * when nothing is known yet: a made-up name would only come back as a 404 on the first message.
 */
export function effectiveModel(p: ProviderEntry): string | null {
  if (p.model) return p.model;
  const list = p.models?.list;
  const def = PROVIDERS[p.kind].defaultModel;
  if (def && (!list || list.includes(def))) return def;
  return list?.[0] ?? def;
}

/** Model servers people run on their own machine, at the ports they listen on out of the box. */
export const LOCAL_SERVERS: readonly { name: string; base_url: string }[] = [
  { name: 'Ollama', base_url: 'http://127.0.0.1:11434/v1' },
  { name: 'LM Studio', base_url: 'http://127.0.0.1:1234/v1' },
  { name: 'llama.cpp', base_url: 'http://127.0.0.1:8080/v1' },
];

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Where to look for local servers: {@link LOCAL_SERVERS}, or `SKILLDESK_LOCAL_SERVERS`
 * (`Name=http://127.0.0.1:PORT/v1;…`) for servers on other ports. Only loopback URLs are kept:
 * this probe must never become a way to make SkillDesk call out to the network.
 */
export function localServerCandidates(env: NodeJS.ProcessEnv): { name: string; base_url: string }[] {
  const raw = env.SKILLDESK_LOCAL_SERVERS?.trim();
  if (!raw) return [...LOCAL_SERVERS];
  const out: { name: string; base_url: string }[] = [];
  for (const part of raw.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    const url = part.slice(eq + 1).trim();
    try {
      const u = new URL(url);
      if (u.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname) && name)
        out.push({ name, base_url: url.replace(/\/+$/, '') });
    } catch {
      // Not a URL: skipped, like any entry that is not a loopback server.
    }
  }
  return out;
}

function configOf(p: { kind: ProviderId; id?: string; model?: string; base_url?: string }): LlmConfig {
  const r = LlmConfigSchema.safeParse({
    provider: p.kind,
    model: p.model || undefined,
    baseUrl: p.base_url || undefined,
    ...(p.id ? { keyName: p.id } : {}),
  });
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const field = issue.path[0] === 'baseUrl' ? 'base_url' : String(issue.path[0] ?? 'provider');
  throw new AppError('INVALID_INPUT', `${field}: ${issue.message}`, {
    issues: [{ path: field, message: issue.message }],
  });
}

const NO_KEYS_SOURCE: KeySource = { get: () => undefined };

/** A free id for a new provider of `kind`: the kind's own id first, then `kind-2`, `kind-3` … */
function newProviderId(settings: SettingsFile, kind: ProviderId): string {
  const taken = new Set(settings.providers.map((p) => p.id));
  if (!taken.has(kind)) return kind;
  for (let n = 2; ; n++) if (!taken.has(`${kind}-${n}`)) return `${kind}-${n}`;
}

/** Build the `settings/*` slice. */
export function createProviderSettings(deps: SettingsHandlerDeps): ProviderSettings {
  // Files of the account folder are written atomically; temps a killed process left go now.
  cleanStaleTemps(deps.home);
  const fromEnv = envKeySource(deps.env);
  // A provider's key: the one stored under its id, else its kind's environment variable.
  const keysOf = (p: ProviderEntry): KeySource => ({
    get: (name) => deps.secrets.get(name) ?? fromEnv.get(p.kind),
    hint: () => {
      const where = `add it in Settings → Providers (${p.label}), or set ${PROVIDERS[p.kind].envVar}`;
      const problem = deps.secrets.problem?.();
      return problem ? `${where} (${problem})` : where;
    },
  });
  const keyStatusOf = (p: ProviderEntry): { has_key: boolean; source: KeySourceName | null } => {
    if (deps.secrets.get(p.id)) return { has_key: true, source: deps.secrets.kind };
    if (fromEnv.get(p.kind)) return { has_key: true, source: 'env' };
    return { has_key: false, source: null };
  };
  const build = (p: ProviderEntry, model?: string): Llm => {
    // Prices only feed cost estimates: a broken prices.json is a warning, never a refused call.
    const prices = readPriceTable(deps.home);
    if (prices.warning) deps.onWarning?.(prices.warning);
    const config = configOf({
      kind: p.kind,
      id: p.id,
      model: model ?? effectiveModel(p) ?? undefined,
      base_url: p.base_url,
    });
    return createLlm(config, { keys: keysOf(p), prices: prices.table, onWarning: deps.onWarning });
  };
  const settingsNow = () => readSettings(deps.home).settings;
  const save = (next: SettingsFile, what: 'provider' | 'key' = 'provider') => {
    writeSettings(deps.home, next);
    deps.events.emit('settings/changed', { what });
  };
  const mustFind = (settings: SettingsFile, id: string): ProviderEntry => {
    const p = settings.providers.find((x) => x.id === id);
    if (!p) {
      const ids = settings.providers.map((x) => x.id);
      throw new AppError(
        'NOT_FOUND',
        `No provider "${id}" is set up. ${ids.length ? `Set up: ${ids.join(', ')}.` : 'None is set up yet: add one in Settings → Providers or with `skilldesk providers add`.'}`,
        { id },
      );
    }
    return p;
  };

  const kindView = (id: ProviderId): ProviderView => {
    const info = PROVIDERS[id];
    const { has_key, source } = keyStatusOf({ id, kind: id, label: info.label });
    return {
      id,
      label: info.label,
      default_model: info.defaultModel ?? null,
      default_base_url: info.defaultBaseUrl ?? null,
      requires_key: info.requiresKey,
      env_var: info.envVar,
      has_key,
      source,
    };
  };

  const configuredView = (p: ProviderEntry, settings: SettingsFile): ConfiguredProviderView => {
    const info = PROVIDERS[p.kind];
    return {
      id: p.id,
      kind: p.kind,
      label: p.label,
      base_url: p.base_url ?? null,
      model: p.model ?? null,
      effective_model: effectiveModel(p),
      requires_key: info.requiresKey,
      env_var: info.envVar,
      ...keyStatusOf(p),
      models: p.models?.list ?? null,
      models_fetched_at: p.models?.fetched_at ?? null,
      is_default: settings.default_provider === p.id,
    };
  };

  const titlesFromEnv = (): boolean | null => {
    const env = deps.env.SKILLDESK_CHAT_TITLES;
    return env === 'auto' || env === 'off' ? env === 'auto' : null;
  };
  const autoTitles = () => titlesFromEnv() ?? settingsNow().chat_titles !== 'off';

  /** The listing budget for a model, as Settings shows it. */
  const listingView = (settings: SettingsFile, model: string | null): ListingBudgetView => {
    const percent = settings.listing_budget_percent ?? DEFAULT_LISTING_BUDGET_PERCENT;
    const ctx = contextWindow(model);
    return {
      percent,
      model,
      context_tokens: ctx.tokens,
      context_known: ctx.known,
      budget_tokens: listingBudgetTokens(percent, ctx.tokens),
    };
  };

  const view = (): GetSettingsRes => {
    const read = readSettings(deps.home);
    const { settings, file } = read;
    // Every optional file that could not be read is said here, so Settings opens to fix it.
    const warnings = [read.warning, deps.secrets.problem?.() ?? null, readPriceTable(deps.home).warning];
    const warning = warnings.filter((w): w is string => Boolean(w)).join('\n') || null;
    const def = settings.providers.find((p) => p.id === settings.default_provider);
    const chat: ProviderChoice | null = def
      ? { provider: def.id, kind: def.kind, model: def.model ?? null, base_url: def.base_url ?? null }
      : null;
    return {
      sandbox: {
        ...sandboxIsolation(),
        allow_in_process_isolation:
          settings.sandbox.allow_in_process_isolation ||
          deps.env.SKILLDESK_SANDBOX_ISOLATION === 'in-process',
      },
      chat,
      providers: PROVIDER_IDS.map(kindView),
      configured: settings.providers.map((p) => configuredView(p, settings)),
      chat_titles: autoTitles() ? 'auto' : 'off',
      chat_titles_from_env: titlesFromEnv() !== null,
      packages: {
        index_url: settings.packages?.index_url ?? null,
        effective_index_url: settings.packages?.index_url ?? DEFAULT_PACKAGE_INDEX,
      },
      listing: listingView(settings, def ? effectiveModel(def) : null),
      key_storage: deps.secrets.kind,
      warning,
      file,
    };
  };

  /** Add or change a provider; returns its id. A change of kind or base URL drops its model list. */
  const upsert = (
    req: { id?: string; kind: ProviderId; label?: string; model?: string; base_url?: string },
    makeDefault: boolean,
  ): string => {
    configOf(req);
    const settings = settingsNow();
    const old = req.id ? settings.providers.find((p) => p.id === req.id) : undefined;
    const id = req.id ?? newProviderId(settings, req.kind);
    const sameEndpoint = old && old.kind === req.kind && (old.base_url ?? '') === (req.base_url ?? '');
    const entry: ProviderEntry = {
      id,
      kind: req.kind,
      label: req.label || old?.label || PROVIDERS[req.kind].label,
      ...(req.model ? { model: req.model } : {}),
      ...(req.base_url ? { base_url: req.base_url } : {}),
      ...(sameEndpoint && old.models ? { models: old.models } : {}),
    };
    const providers = old
      ? settings.providers.map((p) => (p.id === id ? entry : p))
      : [...settings.providers, entry];
    save({
      ...settings,
      providers,
      // The first provider is the default: a new user's first choice must just work.
      default_provider: makeDefault || settings.default_provider === null ? id : settings.default_provider,
    });
    return id;
  };

  /** Read a provider's `/models`, saving the list when the provider answered. */
  const fetchModels = async (p: ProviderEntry) => {
    const r = await listModels({ provider: p.kind, baseUrl: p.base_url, keyName: p.id }, { keys: keysOf(p) });
    if (r.source !== 'provider') return { ...r, fetched_at: null };
    const fetched_at = new Date().toISOString();
    const settings = settingsNow();
    // Saved only if the provider is still as it was asked (the user may have changed it meanwhile).
    const still = settings.providers.find((x) => x.id === p.id);
    if (still && still.kind === p.kind && still.base_url === p.base_url) {
      writeSettings(deps.home, {
        ...settings,
        providers: settings.providers.map((x) =>
          x.id === p.id ? { ...x, models: { list: r.models, fetched_at } } : x,
        ),
      });
    }
    return { ...r, fetched_at };
  };

  const handlers = {
    'settings/get': () => view(),

    'settings/set-provider': (req) => {
      // The one-provider form of older clients: the provider of that kind under the kind's id.
      upsert({ id: req.provider, kind: req.provider, model: req.model, base_url: req.base_url }, true);
      return view();
    },

    'settings/save-provider': async (req) => {
      // A new provider may choose its id, but a kind's id is only for that kind: chats pinned
      // before several providers existed name their provider by kind.
      if (req.id && isProviderId(req.id) && req.id !== req.kind) {
        throw new AppError(
          'INVALID_INPUT',
          `id: "${req.id}" is the name of another kind of provider; leave the id out, or choose another one.`,
          { issues: [{ path: 'id', message: 'names another provider kind' }] },
        );
      }
      const id = upsert(req, req.make_default ?? false);
      // A provider whose model can only come from its list gets the list now, so its first
      // message goes to a model the server has (a server that does not answer is said by Test).
      const saved = settingsNow().providers.find((p) => p.id === id);
      if (saved && !saved.models && effectiveModel(saved) === null) await fetchModels(saved);
      return { id, settings: view() };
    },

    'settings/remove-provider': (req) => {
      const settings = settingsNow();
      mustFind(settings, req.id);
      const providers = settings.providers.filter((p) => p.id !== req.id);
      // Its key goes with it: a provider added later under the same id must not inherit it.
      deps.secrets.set(req.id, '');
      save({
        ...settings,
        providers,
        default_provider:
          settings.default_provider === req.id ? (providers[0]?.id ?? null) : settings.default_provider,
      });
      return view();
    },

    'settings/set-default': (req) => {
      const settings = settingsNow();
      const p = mustFind(settings, req.id);
      const providers = req.model
        ? settings.providers.map((x) => (x.id === p.id ? { ...x, model: req.model } : x))
        : settings.providers;
      save({ ...settings, providers, default_provider: p.id });
      return view();
    },

    'settings/set-chat-titles': (req) => {
      save({ ...settingsNow(), chat_titles: req.chat_titles });
      return view();
    },

    'settings/set-listing-budget': (req) => {
      save({ ...settingsNow(), listing_budget_percent: req.percent });
      return view();
    },

    'settings/set-sandbox': (req) => {
      writeSettings(deps.home, {
        ...settingsNow(),
        sandbox: { allow_in_process_isolation: req.allow_in_process_isolation },
      });
      deps.events.emit('settings/changed', { what: 'sandbox' });
      return view();
    },

    'settings/set-packages': (req) => {
      const { packages: _old, ...rest } = settingsNow();
      writeSettings(deps.home, req.index_url ? { ...rest, packages: { index_url: req.index_url } } : rest);
      deps.events.emit('settings/changed', { what: 'packages' });
      return view();
    },

    'settings/set-key': (req) => {
      // A key is kept for a provider set up here (or a provider kind, as older clients send).
      if (!resolveProvider(settingsNow(), req.provider)) mustFind(settingsNow(), req.provider);
      deps.secrets.set(req.provider, req.key.trim());
      // Another key may see other models: the saved list is read again on next use.
      const settings = settingsNow();
      if (settings.providers.some((p) => p.id === req.provider && p.models)) {
        writeSettings(deps.home, {
          ...settings,
          providers: settings.providers.map((p) => {
            if (p.id !== req.provider) return p;
            const { models: _dropped, ...rest } = p;
            return rest;
          }),
        });
      }
      deps.events.emit('settings/changed', { what: 'key' });
      const p = resolveProvider(settingsNow(), req.provider)!;
      return { provider: req.provider, ...keyStatusOf(p) };
    },

    'settings/test-connection': async (req): Promise<TestConnectionRes> => {
      const settings = settingsNow();
      const ref = req.provider ?? settings.default_provider;
      // Only providers set up here are tested (a chat's older pin by kind is not a provider to test).
      const p = ref ? (settings.providers.find((x) => x.id === ref) ?? null) : null;
      const t = deps.now();
      const took = () => Math.round(deps.now() - t);
      const fail = (code: string, message: string): TestConnectionRes => ({
        ok: false,
        provider: p?.id ?? ref ?? null,
        label: p?.label ?? null,
        model: p ? effectiveModel(p) : null,
        picked_model: null,
        base_url: p?.base_url ?? null,
        took_ms: took(),
        model_count: 0,
        model_listed: false,
        error: { code, message },
      });
      if (!ref) return fail('LLM_NOT_CONFIGURED', 'Add a provider first, then test it.');
      if (!p) return fail('NOT_FOUND', `No provider "${ref}" is set up.`);
      try {
        configOf({ kind: p.kind, id: p.id, model: p.model, base_url: p.base_url });
      } catch (e) {
        if (!isAppError(e)) throw e;
        return fail(e.code, e.message);
      }
      try {
        // Said before asking, in the words a chat would use, rather than as an HTTP 401.
        resolveApiKey(resolveEndpoint(configOf({ kind: p.kind, id: p.id, base_url: p.base_url })), keysOf(p));
      } catch (e) {
        if (!isAppError(e)) throw e;
        return fail(e.code, e.message);
      }
      const r = await fetchModels(p);
      if (r.source !== 'provider') {
        return fail(
          'LLM_FAILED',
          (r.warning ?? 'The provider did not list its models.').replace(
            / Showing the models SkillDesk knows\.$/,
            '',
          ),
        );
      }
      // With no model of its own, the provider now follows its list (see effectiveModel); the
      // test says which one it picked when that is not the kind's default.
      const model = effectiveModel({ ...p, models: { list: r.models, fetched_at: r.fetched_at ?? '' } });
      const picked = !p.model && model !== null && model !== PROVIDERS[p.kind].defaultModel ? model : null;
      return {
        ok: true,
        provider: p.id,
        label: p.label,
        model,
        picked_model: picked,
        base_url: p.base_url ?? null,
        took_ms: took(),
        model_count: r.models.length,
        model_listed: model !== null && r.models.includes(model),
        error: null,
      };
    },

    'settings/find-local-servers': async (): Promise<FindLocalServersRes> => {
      const t = deps.now();
      const settings = settingsNow();
      const norm = (u: string) => u.replace(/\/+$/, '').replace('://localhost', '://127.0.0.1');
      const found = await Promise.all(
        localServerCandidates(deps.env).map(async (c) => {
          // Each server is asked only for its model list, with a short timeout: a port nobody
          // listens on refuses at once, and a stuck one must not hold Settings up.
          const r = await listModels(
            { provider: ANY_ENDPOINT_PROVIDER, baseUrl: c.base_url },
            { keys: NO_KEYS_SOURCE, timeoutMs: 1500 },
          );
          if (r.source !== 'provider' || r.models.length === 0) return null;
          const own = settings.providers.find(
            (p) => p.kind === ANY_ENDPOINT_PROVIDER && p.base_url && norm(p.base_url) === norm(c.base_url),
          );
          return { ...c, models: r.models, configured_id: own?.id ?? null };
        }),
      );
      return {
        servers: found.filter((x): x is NonNullable<typeof x> => x !== null),
        took_ms: Math.round(deps.now() - t),
      };
    },

    'settings/list-models': async (req) => {
      const settings = settingsNow();
      const p = resolveProvider(settings, req.provider);
      if (!p) mustFind(settings, req.provider);
      const own = settings.providers.find((x) => x.id === req.provider);
      if (own?.models && !req.refresh) {
        return {
          provider: req.provider,
          models: own.models.list,
          source: 'provider' as const,
          fetched_at: own.models.fetched_at,
          warning: null,
        };
      }
      const r = await fetchModels(p!);
      return { provider: req.provider, ...r };
    },
  } satisfies HandlersFor<'settings'>;

  return {
    handlers,
    autoTitles,
    modelName(modelId) {
      const { settings } = readSettings(deps.home);
      return modelLabel(modelId, [...settings.providers, ...PROVIDER_KIND_NAMES]);
    },
    listingBudget(choice) {
      const settings = settingsNow();
      const p = choice
        ? resolveProvider(settings, choice.provider)
        : (settings.providers.find((x) => x.id === settings.default_provider) ?? null);
      const model = choice?.model ?? (p ? effectiveModel(p) : null);
      return listingView(settings, model).budget_tokens;
    },
    chatLlm(choice) {
      const { settings, warning } = readSettings(deps.home);
      if (warning) deps.onWarning?.(warning);
      if (choice) {
        const p = resolveProvider(settings, choice.provider);
        if (!p) {
          throw new AppError(
            'LLM_NOT_CONFIGURED',
            `This chat uses the provider "${choice.provider}", which is no longer set up: choose another model in the chat's model menu, or add the provider again in Settings → Providers.`,
            { provider: choice.provider },
          );
        }
        return build(p, choice.model);
      }
      const def = settings.providers.find((p) => p.id === settings.default_provider);
      return def ? build(def) : null;
    },
  };
}
