/**
 * The `settings/*` slice of the API contract: which provider and model chat uses, and API keys.
 * Keys only ever go in: no reply carries a key, only whether one is stored and where.
 */
import { z } from 'zod';
import { PROVIDER_KIND_IDS, type ProviderKindId } from './providers.js';

/** The provider ids, derived from `PROVIDER_FACTS`; the llm package imports them (`PROVIDER_IDS`). */
export const PROVIDER_ID_VALUES = PROVIDER_KIND_IDS;
/** A provider id. */
export type ProviderIdName = ProviderKindId;
/** Zod schema of a provider id. */
export const ProviderIdNameSchema = z.enum(PROVIDER_ID_VALUES);

/** Where a provider's key comes from. */
export type KeySourceName = 'keychain' | 'file' | 'env';

/** The package index pip uses when the user has not set one. */
export const DEFAULT_PACKAGE_INDEX = 'https://pypi.org/simple/';

/**
 * What is wrong with a package index URL, or null: https only (plain HTTP lets anyone on the way
 * swap the wheels) and no user name or password in it (the settings file is not a secret store,
 * and pip would send them along).
 */
export function packageIndexProblem(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `"${url.slice(0, 200)}" is not a URL`;
  }
  if (u.protocol !== 'https:') return `"${url.slice(0, 200)}" must be an https:// URL`;
  if (u.username || u.password) return 'must not hold a user name or password';
  if (/[\s${}]/.test(url)) return 'must not hold spaces, "$", "{" or "}"';
  return null;
}

/** A package index URL as the user may set it (see {@link packageIndexProblem}). */
export const PackageIndexUrlSchema = z
  .string()
  .trim()
  .min(1)
  .max(2000)
  .superRefine((url, ctx) => {
    const problem = packageIndexProblem(url);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** `settings/get` takes no arguments. */
export const GetSettingsReqSchema = z.object({}).strict();
/** Request of `settings/get`. */
export type GetSettingsReq = z.infer<typeof GetSettingsReqSchema>;

/** One provider as the settings screen shows it. */
export interface ProviderView {
  id: ProviderIdName;
  label: string;
  /** Null where the model comes from the server's own list (openai-compatible). */
  default_model: string | null;
  /** Null when the provider needs one (openai-compatible). */
  default_base_url: string | null;
  requires_key: boolean;
  /** The environment variable read as a fallback. */
  env_var: string;
  has_key: boolean;
  source: KeySourceName | null;
}

/**
 * A configured provider's id: what chats pin and keys are stored under. A provider kind's id
 * (`openai`) is also accepted where nothing is configured under it, so chats pinned before
 * several providers existed keep their model.
 */
export const ProviderRefSchema = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'must be 1–40 lower-case letters, digits or hyphens');

/** The default provider (null: none, chat replies say so). */
export interface ProviderChoice {
  /** The configured provider's id. */
  provider: string;
  kind: ProviderIdName;
  /** Null: the provider kind's default model. */
  model: string | null;
  base_url: string | null;
}

/** One configured provider: its own base URL, key and model list. Never the key itself. */
export interface ConfiguredProviderView {
  id: string;
  kind: ProviderIdName;
  label: string;
  /** As saved; null means the kind's default base URL. */
  base_url: string | null;
  /** The model chats following the default get; null means the kind's default model. */
  model: string | null;
  /**
   * The model calls get: `model`, else the kind's default when its list has it (or was not read),
   * else the first model of its list; null when none can be known yet (read its list first).
   */
  effective_model: string | null;
  requires_key: boolean;
  /** The environment variable read when no key is stored for this provider. */
  env_var: string;
  has_key: boolean;
  source: KeySourceName | null;
  /** The model list last read from its `/models` (null: never read, or cleared by a change). */
  models: string[] | null;
  /** When `models` was read (ISO time). */
  models_fetched_at: string | null;
  is_default: boolean;
}

/** How the operating system confines the Python sandbox here, and the user's choice about it. */
export interface SandboxSettingsView {
  /** `bwrap`, `unshare` (Linux), `sandbox-exec` (macOS) or `none` (in-process isolation only). */
  method: 'bwrap' | 'unshare' | 'sandbox-exec' | 'none';
  blocks_tcp: boolean;
  blocks_unix: boolean;
  /** In words. */
  detail: string;
  /** The user accepted running code with in-process isolation only (where `method` is `none`). */
  allow_in_process_isolation: boolean;
}

/** Reply of `settings/get`. */
export interface GetSettingsRes {
  /** The Python sandbox's isolation on this machine. */
  sandbox: SandboxSettingsView;
  /** The default provider and model of chats that have none of their own. */
  chat: ProviderChoice | null;
  /** The provider kinds SkillDesk can talk to. */
  providers: ProviderView[];
  /** The providers set up here, in the order they were added. */
  configured: ConfiguredProviderView[];
  /** Whether new chats are named by their model after the first reply. */
  chat_titles: 'auto' | 'off';
  /** Set when `SKILLDESK_CHAT_TITLES` decides `chat_titles` (the setting here then has no effect). */
  chat_titles_from_env: boolean;
  /** Where Install packages fetches skills' Python packages. */
  packages: {
    /** The index the user set, or null for PyPI. */
    index_url: string | null;
    /** The index in use (the user's, else PyPI's). */
    effective_index_url: string;
  };
  /** How much of the model's context the whole skill listing may take. */
  listing: ListingBudgetView;
  /** Where keys entered here are kept. */
  key_storage: 'keychain' | 'file';
  /** Set when the settings file could not be read (defaults are in use); says what happened. */
  warning: string | null;
  /** The settings file. */
  file: string;
}

/** `settings/set-provider`: choose the chat provider, model and base URL. */
export const SetProviderReqSchema = z
  .object({
    provider: ProviderIdNameSchema,
    model: z.string().trim().max(200).optional(),
    base_url: z.string().trim().max(2000).optional(),
  })
  .strict();
/** Request of `settings/set-provider` (empty strings mean the default). */
export type SetProviderReq = z.infer<typeof SetProviderReqSchema>;

/**
 * `settings/save-provider`: add a provider (no `id`) or change one. A changed base URL or kind
 * forgets its model list and any earlier test outcome.
 */
export const SaveProviderReqSchema = z
  .object({
    id: ProviderRefSchema.optional(),
    kind: ProviderIdNameSchema,
    label: z.string().trim().max(80).optional(),
    model: z.string().trim().max(200).optional(),
    base_url: z.string().trim().max(2000).optional(),
    /** Also make it the default of new chats. */
    make_default: z.boolean().optional(),
  })
  .strict();
/** Request of `settings/save-provider` (empty strings mean the kind's default). */
export type SaveProviderReq = z.infer<typeof SaveProviderReqSchema>;
/** Reply of `settings/save-provider`. */
export interface SaveProviderRes {
  /** The saved provider's id (new ones get one from their kind). */
  id: string;
  settings: GetSettingsRes;
}

/** `settings/remove-provider`: forget a configured provider and its stored key. */
export const RemoveProviderReqSchema = z.object({ id: ProviderRefSchema }).strict();
/** Request of `settings/remove-provider`. */
export type RemoveProviderReq = z.infer<typeof RemoveProviderReqSchema>;

/** `settings/set-default`: the provider (and optionally model) new chats use. */
export const SetDefaultReqSchema = z
  .object({ id: ProviderRefSchema, model: z.string().trim().max(200).optional() })
  .strict();
/** Request of `settings/set-default`. */
export type SetDefaultReq = z.infer<typeof SetDefaultReqSchema>;

/** `settings/set-key`: store (or, with an empty key, remove) a provider's API key. */
export const SetKeyReqSchema = z
  .object({
    provider: ProviderRefSchema,
    key: z
      .string()
      .max(4000, 'must be at most 4000 characters')
      .refine((k) => !/[\r\n]/.test(k), 'must be one line'),
  })
  .strict();
/** Request of `settings/set-key`. */
export type SetKeyReq = z.infer<typeof SetKeyReqSchema>;
/** Reply of `settings/set-key`: the provider's key status, never the key. */
export interface SetKeyRes {
  provider: string;
  has_key: boolean;
  source: KeySourceName | null;
}

/**
 * `settings/test-connection`: read the provider's `/models` (the default provider when none is
 * given). No completion is asked for, so a test spends no tokens.
 */
export const TestConnectionReqSchema = z.object({ provider: ProviderRefSchema.optional() }).strict();
/** Request of `settings/test-connection`. */
export type TestConnectionReq = z.infer<typeof TestConnectionReqSchema>;
/** Reply of `settings/test-connection`: the outcome is data, a failure is not an error. */
export interface TestConnectionRes {
  ok: boolean;
  /** The configured provider's id. */
  provider: string | null;
  label: string | null;
  /** The provider's model as calls will use it (after any pick this test made). */
  model: string | null;
  /**
   * Set when the test chose the model because none was chosen and the kind's default is not
   * served: the model it picked from the list (the first one).
   */
  picked_model: string | null;
  /** The base URL that was asked, so a later change of it can make this outcome stale. */
  base_url: string | null;
  took_ms: number;
  /** How many models `/models` listed, on success. */
  model_count: number;
  /** Whether `model` is among them (false also when the test failed). */
  model_listed: boolean;
  error: { code: string; message: string } | null;
}

/** The skill listing's budget, in percent of the model's context (0: phase 1 always chooses). */
export const ListingBudgetPercentSchema = z.number().min(0).max(10);
/** The listing budget when none is set: 1% of the model's context. */
export const DEFAULT_LISTING_BUDGET_PERCENT = 1;

/** `settings/set-listing-budget`: the share of the model's context the whole skill listing may take. */
export const SetListingBudgetReqSchema = z.object({ percent: ListingBudgetPercentSchema }).strict();
/** Request of `settings/set-listing-budget`. */
export type SetListingBudgetReq = z.infer<typeof SetListingBudgetReqSchema>;

/** The skill listing's budget as it applies to the default model now. */
export interface ListingBudgetView {
  /** Percent of the model's context (the setting, or the default 1). */
  percent: number;
  /** The default provider's model it was computed for (null: no model chosen yet). */
  model: string | null;
  /** That model's context in tokens. */
  context_tokens: number;
  /** False when the model's context is not known and 128k is assumed. */
  context_known: boolean;
  /** The budget in tokens: every enabled skill's name and description fitting it are listed whole. */
  budget_tokens: number;
}

/** `settings/set-chat-titles`: name new chats automatically (`auto`) or not (`off`). */
export const SetChatTitlesReqSchema = z.object({ chat_titles: z.enum(['auto', 'off']) }).strict();
/** Request of `settings/set-chat-titles`. */
export type SetChatTitlesReq = z.infer<typeof SetChatTitlesReqSchema>;

/** `settings/set-sandbox`: accept (or stop accepting) in-process isolation for the sandbox. */
export const SetSandboxReqSchema = z.object({ allow_in_process_isolation: z.boolean() }).strict();
/** Request of `settings/set-sandbox`. */
export type SetSandboxReq = z.infer<typeof SetSandboxReqSchema>;

/**
 * `settings/set-packages`: the package index Install packages uses (an empty string: PyPI). Only
 * the user sets it; a skill never chooses an index.
 */
export const SetPackagesReqSchema = z
  .object({ index_url: z.union([z.literal(''), PackageIndexUrlSchema]) })
  .strict();
/** Request of `settings/set-packages`. */
export type SetPackagesReq = z.infer<typeof SetPackagesReqSchema>;

// ---- a provider's models, for choosing one per chat ----
/** `settings/list-models`: the models a provider offers (its `/models`, else a known list). */
export const ListModelsReqSchema = z
  .object({
    provider: ProviderRefSchema,
    /** Ask the provider again instead of answering from the saved list. */
    refresh: z.boolean().optional(),
  })
  .strict();
/** Request of `settings/list-models`. */
export type ListModelsReq = z.infer<typeof ListModelsReqSchema>;
/** Reply of `settings/list-models`. */
export interface ListModelsRes {
  provider: string;
  models: string[];
  /** `provider`: its `/models` answered (now or at `fetched_at`); `known`: SkillDesk's list (`warning` says why). */
  source: 'provider' | 'known';
  /** When the provider's list was read (null for SkillDesk's list). */
  fetched_at: string | null;
  warning: string | null;
}

// ---- model servers on this machine ----
/** `settings/find-local-servers`: look for Ollama, LM Studio and llama.cpp on loopback. */
export const FindLocalServersReqSchema = z.object({}).strict();
/** Request of `settings/find-local-servers`. */
export type FindLocalServersReq = z.infer<typeof FindLocalServersReqSchema>;
/** A model server found answering on this machine. */
export interface LocalServerView {
  /** What it is, e.g. "Ollama". */
  name: string;
  /** Its OpenAI-style API root, e.g. `http://127.0.0.1:11434/v1`. */
  base_url: string;
  /** The models it serves, as its `/models` lists them. */
  models: string[];
  /** The provider already set up at this base URL, if any. */
  configured_id: string | null;
}
/** Reply of `settings/find-local-servers`: only servers that answered with at least one model. */
export interface FindLocalServersRes {
  servers: LocalServerView[];
  took_ms: number;
}

/** The `settings/*` channels. */
export interface SettingsChannels {
  'settings/set-sandbox': { req: SetSandboxReq; res: GetSettingsRes };
  'settings/set-packages': { req: SetPackagesReq; res: GetSettingsRes };
  'settings/get': { req: GetSettingsReq; res: GetSettingsRes };
  'settings/set-provider': { req: SetProviderReq; res: GetSettingsRes };
  'settings/save-provider': { req: SaveProviderReq; res: SaveProviderRes };
  'settings/remove-provider': { req: RemoveProviderReq; res: GetSettingsRes };
  'settings/set-default': { req: SetDefaultReq; res: GetSettingsRes };
  'settings/set-chat-titles': { req: SetChatTitlesReq; res: GetSettingsRes };
  'settings/set-listing-budget': { req: SetListingBudgetReq; res: GetSettingsRes };
  'settings/set-key': { req: SetKeyReq; res: SetKeyRes };
  'settings/test-connection': { req: TestConnectionReq; res: TestConnectionRes };
  'settings/list-models': { req: ListModelsReq; res: ListModelsRes };
  'settings/find-local-servers': { req: FindLocalServersReq; res: FindLocalServersRes };
}

/** Request schemas of the `settings/*` channels. */
export const settingsRequestSchemas = {
  'settings/set-sandbox': SetSandboxReqSchema,
  'settings/set-packages': SetPackagesReqSchema,
  'settings/get': GetSettingsReqSchema,
  'settings/set-provider': SetProviderReqSchema,
  'settings/save-provider': SaveProviderReqSchema,
  'settings/remove-provider': RemoveProviderReqSchema,
  'settings/set-default': SetDefaultReqSchema,
  'settings/set-chat-titles': SetChatTitlesReqSchema,
  'settings/set-listing-budget': SetListingBudgetReqSchema,
  'settings/set-key': SetKeyReqSchema,
  'settings/test-connection': TestConnectionReqSchema,
  'settings/list-models': ListModelsReqSchema,
  'settings/find-local-servers': FindLocalServersReqSchema,
};

/** The `settings/*` events. */
export interface SettingsEvents {
  /** The provider choice or a key status changed. */
  'settings/changed': { what: 'provider' | 'key' | 'sandbox' | 'packages' };
}
